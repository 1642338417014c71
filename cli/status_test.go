package cli

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/pipeline"
	"feeddigest/render"
)

func TestStatusTableSaysDueAndCounts(t *testing.T) {
	now := at("2026-11-22T12:00:00Z")
	rows := []render.FeedStatus{
		{URL: "https://a.example/past", State: "failing", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: at("2026-11-22T11:00:00Z"), ErrorCount: 1, LastError: "HTTP 503"},
		{URL: "https://a.example/now", State: "ok", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: now},
		{URL: "https://a.example/later", State: "ok", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: at("2026-11-22T13:00:00Z")},
		{URL: "https://a.example/gone", State: "gone", NextPoll: at("2026-11-22T11:00:00Z")},
	}
	write := func(rows []render.FeedStatus) string {
		var buf bytes.Buffer
		if err := writeStatus(&buf, statusReport{now: now, zone: time.UTC, feeds: rows}, 80); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	out := write(rows)
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
		"https://a.example/later": " 22 Nov 13:00 ", "https://a.example/gone": " never ",
	} {
		if l := line(url); !strings.Contains(l, want) {
			t.Errorf("%s: want %q in %q", url, want, l)
		}
	}
	if strings.Contains(out, "22 Nov 11:00") || strings.Contains(out, "22 Nov 12:00") {
		t.Errorf("a next poll in the past is shown as a date:\n%s", out)
	}
	if !strings.Contains(out, "4 feeds: 1 failing, 1 gone, 2 ok.") {
		t.Errorf("no summary line:\n%s", out)
	}
	if out := write(rows[:1]); !strings.Contains(out, "1 feed: 1 failing.") {
		t.Errorf("one feed is not counted as one:\n%s", out)
	}
}

func TestStatusMarkdownIsATable(t *testing.T) {
	now := at("2026-11-22T12:00:00Z")
	rows := []render.FeedStatus{
		{URL: "https://a.example/x|y", State: "failing", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: at("2026-11-22T11:00:00Z"),
			ErrorCount: 2, LastStatus: 500, LastError: "HTTP 500 <b>boom</b> | *bold*", Server: "supports conditional requests (by ETag)"},
		{URL: "https://b.example/feed", Title: "B *News*", State: "ok", LastPoll: at("2026-11-22T08:00:00Z"), NextPoll: at("2026-11-22T13:00:00Z")},
	}
	var buf bytes.Buffer
	if err := writeStatusMarkdown(&buf, rows, now); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"### Feeds\n", "2 feeds: 1 failing, 1 ok.",
		"| Feed | State | Last poll | Status | Next poll | Errors | Why | Server |\n| --- |",
		`| https://a.example/x\|y | failing | 2026-11-22 08:00 | 500 | due | 2 | HTTP 500 \<b\>boom\</b\> \| \*bold\* | supports conditional requests (by ETag) |`,
		`| B \*News\* (https://b.example/feed) | ok | 2026-11-22 08:00 | - | 2026-11-22 13:00 | 0 |  |  |`,
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
	s := pipeline.Summary{Now: at("2026-11-22T00:05:00Z"), UsersDue: 1, FeedsPolled: 2, Fresh: 1, Failed: 1, DigestsBuilt: 1,
		FeedErrors: []string{"https://a.example/f: HTTP 404"}}
	if err := writeSummaryMarkdown(&buf, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## feeddigest: 1 digest built\n", "Pass at 2026-11-22 00:05 UTC.", "| feeds polled | 2 |",
		"1 feed error in this pass:", "- https://a.example/f: HTTP 404"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in\n%s", want, buf.String())
		}
	}
	buf.Reset()
	writeFailureMarkdown(&buf, errors.New("state.db: database is locked"))
	if !strings.HasPrefix(buf.String(), "## feeddigest: the pass failed\n\nstate.db: database is locked") {
		t.Errorf("failure: %q", buf.String())
	}
}

func TestProgressCountsInTheSingular(t *testing.T) {
	var buf bytes.Buffer
	p := plainProgress(&buf)
	p(pipeline.Event{Kind: "due", Total: 1})
	p(pipeline.Event{Kind: "polled", Done: 1, Total: 1})
	if want := "polling 1 feed\npolled 1/1 feed (0 failed)\n"; buf.String() != want {
		t.Errorf("progress = %q, want %q", buf.String(), want)
	}
}

// at is the instant s, in RFC 3339 (a malformed one is the zero time,
// which no test expects).
func at(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// status's users' table: a heading, then each user's rhythm and next
// digest, in the one zone of the report's header (the first user's), not
// each in their own; "due" when the next run builds it. The rows' facts
// are pipeline's TestStatusShowsRhythmAndNextDigest.
func TestUsersTable(t *testing.T) {
	london, _ := time.LoadLocation("Europe/London")
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	users := []render.UserStatus{
		{Name: "ada", Rhythm: "daily at 00:00 Europe/London", Location: london, NextDigest: at("2026-11-26T00:00:00Z")},
		{Name: "kenji", Rhythm: "weekly on Saturday at 06:00 Asia/Tokyo", Location: tokyo, NextDigest: at("2026-11-27T21:00:00Z")},
		{Name: "grace", Rhythm: "daily at 00:00 UTC", Due: true},
	}
	var buf bytes.Buffer
	rep := statusReport{now: at("2026-11-22T12:00:00Z"), zone: london, whose: "ada", users: users}
	if err := writeStatus(&buf, rep, 80); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "times in Europe/London (ada's zone)") {
		t.Errorf("the header does not name the zone:\n%s", out)
	}
	_, table, _ := strings.Cut(out, "\nUSER ")
	lines := strings.Split("USER "+table, "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "RHYTHM") || !strings.Contains(lines[0], "NEXT DIGEST") {
		t.Fatalf("want a heading and a line per user, got\n%s", out)
	}
	for i, want := range [][]string{
		{"ada", "daily at 00:00 Europe/London", "26 Nov 00:00"},
		{"kenji", "weekly on Saturday at 06:00 Asia/Tokyo", "27 Nov 21:00"},
		{"grace", "daily at 00:00 UTC", "due"},
	} {
		for _, cell := range want {
			if !strings.Contains(lines[i+1], cell) {
				t.Errorf("line %d %q lacks %q", i+1, lines[i+1], cell)
			}
		}
	}
}

// `status` shows, for a full_text feed, how many of its last poll's
// article pages were read whole (here one of two: the other is a 404),
// beside what polling taught of its server; nothing for a plain feed.
func TestStatusShowsArticlePages(t *testing.T) {
	ts := feedtest.Start(t)
	words := strings.Repeat("Whole article words that readability keeps. ", 12)
	ts.Handle("/post/whole", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>Post</title></head><body><nav><a href=\"/\">Home</a></nav>"+
			"<article><h1>Post</h1><p>%s</p><p>%s</p></article></body></html>", words, words)
	}))
	day := at("2026-11-21T10:00:00Z")
	ts.Add("/teaser",
		feedtest.Entry{ID: "whole", Title: "Whole", Link: ts.URL + "/post/whole", Body: "<p>Teaser.</p>", Published: day},
		feedtest.Entry{ID: "missing", Title: "Missing", Link: ts.URL + "/post/missing", Body: "<p>Teaser.</p>", Published: day.Add(time.Minute)})
	ts.Add("/plain", feedtest.Entry{ID: "p1", Title: "Plain", Link: ts.URL + "/post/plain", Body: "<p>Plain.</p>", Published: day})
	path := writeConfig(t, fmt.Sprintf(`[fetch]
allow_private_networks = true
[[users]]
name = "ada"
timezone = "Europe/London"
feeds = [{ url = %q, full_text = true }, %q]
`, ts.URL+"/teaser", ts.URL+"/plain"))
	if code, stdout, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z"); code != 0 || !strings.Contains(stdout, "article pages  2 asked, 1 read whole") {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Setenv("COLUMNS", "1000") // the full table: a line per feed
	code, stdout, stderr := runCLI("status", "-config", path, "-now", "2026-11-22T00:10:00Z")
	if code != 0 {
		t.Fatalf("status: exit %d, %s", code, stderr)
	}
	_, lines := feedLinesOf(stdout, ts.URL)
	if !strings.Contains(lines["/teaser"], "article pages: 1 of 2 read whole") {
		t.Errorf("the full_text feed's line does not count its article pages: %q", lines["/teaser"])
	}
	if lines["/plain"] == "" || strings.Contains(lines["/plain"], "article") {
		t.Errorf("the plain feed's line speaks of articles: %q", lines["/plain"])
	}
	if strings.Count(stdout, "article pages:") != 1 {
		t.Errorf("status:\n%s", stdout)
	}
}
