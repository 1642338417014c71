package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
	"feeddigest/render"
)

// siteHash hashes every file of the site folder, as the scheduled
// workflow does to decide whether to deploy it.
func siteHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestIdlePassLeavesTheSiteAsItWas(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/feed", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		before := siteHash(t, cfg.SiteDir)
		if sum := runAt(t, cfg, "2026-11-21T01:05:00Z"); sum.FeedsPolled != 0 || sum.DigestsBuilt != 0 {
			t.Fatalf("the second pass was not idle: %+v", sum)
		}
		if after := siteHash(t, cfg.SiteDir); after != before {
			t.Errorf("a pass that polled nothing and built nothing changed the site:\n%s", readFile(t, filepath.Join(cfg.SiteDir, "status.html")))
		}
		if status := readFile(t, filepath.Join(cfg.SiteDir, "status.html")); !strings.Contains(status, "2026-11-21 00:05 UTC") {
			t.Errorf("status.html is not as of the last poll:\n%s", status)
		}
		pub.Add("/feed", entry("a-2", "2026-11-21T10:00:00Z"))
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		if siteHash(t, cfg.SiteDir) == before {
			t.Error("a pass that built a digest left the site as it was")
		}
	})
}

func TestStatusTableSaysDueAndCounts(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		now := at("2026-11-22T12:00:00Z")
		rows := []render.FeedStatus{
			{URL: "https://a.example/past", State: "failing", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: at("2026-11-22T11:00:00Z"), ErrorCount: 1, LastError: "HTTP 503"},
			{URL: "https://a.example/now", State: "ok", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: now},
			{URL: "https://a.example/later", State: "ok", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: at("2026-11-22T13:00:00Z")},
			{URL: "https://a.example/gone", State: "gone", NextPoll: at("2026-11-22T11:00:00Z")},
		}
		var buf bytes.Buffer
		if err := WriteStatusTable(&buf, rows, now); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		line := func(url string) string {
			for l := range strings.Lines(out) {
				if strings.HasPrefix(l, url+" ") {
					return l
				}
			}
			t.Fatalf("no line for %s in\n%s", url, out)
			return ""
		}
		for url, want := range map[string]string{
			"https://a.example/past": " due ", "https://a.example/now": " due ",
			"https://a.example/later": " 2026-11-22 13:00Z ", "https://a.example/gone": " never ",
		} {
			if l := line(url); !strings.Contains(l, want) {
				t.Errorf("%s: want %q in %q", url, want, l)
			}
		}
		if strings.Contains(out, "2026-11-22 11:00Z") || strings.Contains(out, "2026-11-22 12:00Z") {
			t.Errorf("a next poll in the past is shown as a date:\n%s", out)
		}
		if !strings.Contains(out, "4 feeds: 1 failing, 1 gone, 2 ok.") {
			t.Errorf("no summary line:\n%s", out)
		}
		buf.Reset()
		WriteStatusTable(&buf, rows[:1], now)
		if !strings.Contains(buf.String(), "1 feed: 1 failing.") {
			t.Errorf("one feed is not counted as one:\n%s", buf.String())
		}
	})
}

func TestStatusMarkdownIsATable(t *testing.T) {
	now := at("2026-11-22T12:00:00Z")
	rows := []render.FeedStatus{
		{URL: "https://a.example/x|y", State: "failing", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: at("2026-11-22T11:00:00Z"),
			ErrorCount: 2, LastStatus: 500, LastError: "HTTP 500 <b>boom</b> | *bold*", Server: "answers 304; trusts ETag"},
	}
	var buf bytes.Buffer
	if err := WriteStatusMarkdown(&buf, rows, now); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"### Feeds\n", "1 feed: 1 failing.",
		"| Feed | State | Last poll | Status | Next poll | Errors | Why | Server |\n| --- |",
		`| https://a.example/x\|y | failing | 2026-11-22 08:00Z | 500 | due | 2 | HTTP 500 \<b\>boom\</b\> \| \*bold\* | answers 304; trusts ETag |`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, "| https") && strings.Count(l, "|")-strings.Count(l, `\|`) != 9 {
			t.Errorf("a cell's text breaks the row: %q", l)
		}
	}
}

func TestSummaryMarkdown(t *testing.T) {
	var buf bytes.Buffer
	s := Summary{Now: at("2026-11-22T00:05:00Z"), UsersDue: 1, FeedsPolled: 2, Fresh: 1, Failed: 1, DigestsBuilt: 1,
		FeedErrors: []string{"https://a.example/f: HTTP 404"}}
	if err := WriteSummaryMarkdown(&buf, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## feeddigest: 1 digest built\n", "Pass at 2026-11-22 00:05 UTC.", "| feeds polled | 2 |",
		"1 feed error in this pass:", "- https://a.example/f: HTTP 404"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in\n%s", want, buf.String())
		}
	}
	buf.Reset()
	WriteFailureMarkdown(&buf, errors.New("state.db: database is locked"))
	if !strings.HasPrefix(buf.String(), "## feeddigest: the pass failed\n\nstate.db: database is locked") {
		t.Errorf("failure: %q", buf.String())
	}
}

func TestProgressCountsInTheSingular(t *testing.T) {
	var buf bytes.Buffer
	p := plainProgress(&buf)
	p(Event{Kind: "due", Total: 1})
	p(Event{Kind: "polled", Done: 1, Total: 1})
	if want := "polling 1 feed\npolled 1/1 feed (0 failed)\n"; buf.String() != want {
		t.Errorf("progress = %q, want %q", buf.String(), want)
	}
}
