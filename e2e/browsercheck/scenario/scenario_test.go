package main

import (
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"feeddigest/parse"
)

func testWorld(t *testing.T, base string) map[string]*feed {
	t.Helper()
	feeds, err := world(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(feeds) != 13 {
		t.Fatalf("%d feeds, want the issue's twelve and a quiet one", len(feeds))
	}
	byPath := map[string]*feed{}
	for _, f := range feeds {
		byPath[f.Path] = f
	}
	return byPath
}

// Every feed that answers reads, in feeddigest's own parser, as what the
// scenario means it to be: its title and language, every item it lists.
func TestFeedsReadAsFeeddigestReadsThem(t *testing.T) {
	feeds := testWorld(t, "http://127.0.0.1:1")
	now := firstDay.Add(7 * time.Hour)
	base, _ := url.Parse("http://127.0.0.1:1/")
	for path, f := range feeds {
		if f.Fails == serverError || f.Fails == dropsLine {
			continue
		}
		t.Run(path, func(t *testing.T) {
			items := f.visible(now)
			if len(items) == 0 {
				t.Fatal("lists nothing on the first day")
			}
			body, contentType, err := render(f, items)
			if err != nil {
				t.Fatal(err)
			}
			p, err := parse.Read(body, contentType, base)
			if err != nil || p.Feed == nil {
				t.Fatalf("parse.Read: %v (%+v)", err, p)
			}
			if p.Feed.Title != f.Title || p.Feed.Language != f.Language {
				t.Errorf("read as %q in %q, want %q in %q", p.Feed.Title, p.Feed.Language, f.Title, f.Language)
			}
			if p.Feed.Repaired != "" {
				t.Errorf("needed repairs: %s", p.Feed.Repaired)
			}
			if len(p.Feed.Entries) != len(items) {
				t.Fatalf("%d entries, want %d", len(p.Feed.Entries), len(items))
			}
			for i, e := range p.Feed.Entries {
				if e.Title != items[i].Title || !e.Published.Equal(items[i].Published) {
					t.Errorf("entry %d read as %q at %s, want %q at %s", i, e.Title, e.Published, items[i].Title, items[i].Published)
				}
				if (items[i].Enclosure != nil) != (len(e.Enclosures) == 1) {
					t.Errorf("entry %d has %d enclosures, item has %v", i, len(e.Enclosures), items[i].Enclosure)
				}
			}
		})
	}
}

// The feeds the issue names, with what makes each hard to show.
func TestFeedsAreTheIssuesTwelve(t *testing.T) {
	feeds := testWorld(t, "http://127.0.0.1:1")
	if n := utf8.RuneCountInString(feeds["/gorod.xml"].Title); n != 105 {
		t.Errorf("the Russian feed's title has %d characters, want 105", n)
	}
	for _, it := range feeds["/microblog.json"].Items {
		if it.Title != "" || it.Text == "" {
			t.Fatalf("microblog post %s: title %q, text %q: want untitled text", it.ID, it.Title, it.Text)
		}
	}
	for _, it := range feeds["/podcast.xml"].Items {
		if it.Enclosure == nil || it.Enclosure.Type != "audio/mpeg" {
			t.Fatalf("podcast episode %s has no audio enclosure", it.ID)
		}
	}
	for _, it := range feeds["/workshop.xml"].Items {
		if !strings.Contains(it.HTML, `<iframe`) || !strings.Contains(it.HTML, "youtube.com/embed/") {
			t.Fatalf("workshop post %s embeds no YouTube frame", it.ID)
		}
	}
	brackets := regexp.MustCompile(`\([A-Za-z][A-Za-z ,]+\)`)
	if !brackets.MatchString(feeds["/city-he.xml"].Items[0].HTML + feeds["/city-he.xml"].Items[2].HTML) {
		t.Error("the Hebrew feed's posts hold no English phrase in brackets")
	}
	for path, lang := range map[string]string{"/garden-ar.xml": "ar", "/city-he.xml": "he"} {
		if feeds[path].Language != lang {
			t.Errorf("%s is in %q, want %q", path, feeds[path].Language, lang)
		}
	}
}

// The news site publishes fifty items a day, and no two items a window
// shows share a headline (a digest listing the same headline twice reads
// as a bug of the digest).
func TestNewsFiftyADayDistinctHeadlines(t *testing.T) {
	news := testWorld(t, "http://127.0.0.1:1")["/news.xml"]
	for d := range days {
		from := firstDay.AddDate(0, 0, d)
		n := 0
		for _, it := range news.Items {
			if !it.Published.Before(from) && it.Published.Before(from.AddDate(0, 0, 1)) {
				n++
			}
		}
		if n != 50 {
			t.Errorf("%s: %d items, want 50", from.Format("Mon 2 Jan"), n)
		}
	}
	seen := map[string]int{}
	for i, it := range news.Items {
		if j, ok := seen[it.Title]; ok && i-j < news.Window {
			t.Fatalf("items %d and %d, within one window, are both %q", j, i, it.Title)
		}
		seen[it.Title] = i
	}
}

// A long read is long, and has what excerpts trip on: a figure with a
// caption first, then a heading; and links for "Links mentioned".
func TestLongReadsAreLong(t *testing.T) {
	tags := regexp.MustCompile(`<[^>]*>`)
	for _, it := range testWorld(t, "http://127.0.0.1:1")["/longreads.atom"].Items {
		words := len(strings.Fields(tags.ReplaceAllString(it.HTML, " ")))
		if words < 2800 {
			t.Errorf("%s: %d words, want a long read (about 3,000)", it.ID, words)
		}
		if !strings.HasPrefix(it.HTML, "<figure><img") || !strings.Contains(it.HTML, "</figcaption></figure>\n<h2>") {
			t.Errorf("%s does not open with a captioned figure, then a heading", it.ID)
		}
		if !strings.Contains(it.HTML, `<img src="http://127.0.0.1:1/img/`) {
			t.Errorf("%s: its images are not on the scenario's server", it.ID)
		}
		if strings.Count(it.HTML, "<a href=") < 2 {
			t.Errorf("%s links to fewer than two pages", it.ID)
		}
	}
}

// The server lists what a feed published by the simulated time, answers
// conditional requests, and fails as each failing feed should.
func TestServerAnswersAsAPublisher(t *testing.T) {
	s := newServer(nil)
	ts := httptest.NewServer(s)
	defer ts.Close()
	feeds, err := world(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range feeds {
		s.feeds[f.Path] = f
	}
	get := func(path string, header http.Header) (*http.Response, string, error) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, string(b), err
	}

	s.setNow(firstDay.Add(7 * time.Hour))
	resp, body, err := get("/blog.xml", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("blog: %v %v", resp, err)
	}
	if strings.Contains(body, "2026/11/19/") || !strings.Contains(body, "2026/11/18/") {
		t.Error("the blog on Thursday at 07:00 lists a post of 09:30 or lacks Wednesday's")
	}
	etag := resp.Header.Get("ETag")
	if resp, _, err := get("/blog.xml", http.Header{"If-None-Match": {etag}}); err != nil || resp.StatusCode != http.StatusNotModified {
		t.Errorf("a request with the ETag: %v %v, want 304", resp, err)
	}
	s.setNow(firstDay.Add(10 * time.Hour))
	if resp, body, err := get("/blog.xml", http.Header{"If-None-Match": {etag}}); err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(body, "2026/11/19/") {
		t.Errorf("after a new post, a request with the old ETag: %v %v, want 200 with it", resp, err)
	}

	if resp, _, err := get("/broken.xml", nil); err != nil || resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("broken.xml: %v %v, want 500", resp, err)
	}
	if resp, _, err := get("/dropped.xml", nil); err == nil {
		t.Errorf("dropped.xml answered %s, want the connection dropped", resp.Status)
	}
	if resp, _, err := get("/newsletter.xml", nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("newsletter.xml on Thursday: %v %v, want 200", resp, err)
	}
	s.setNow(goneFrom)
	if resp, _, err := get("/newsletter.xml", nil); err != nil || resp.StatusCode != http.StatusGone {
		t.Errorf("newsletter.xml from Friday: %v %v, want 410", resp, err)
	}
	resp, body, err = get("/img/fieldnotes-1-0.png", nil)
	if err != nil || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("a figure: %v %v", resp, err)
	}
	if _, err := png.Decode(strings.NewReader(body)); err != nil {
		t.Errorf("a figure is no PNG: %v", err)
	}
}

// The real binary, run over the five days, builds every page the
// browser check looks at: each user's digests on the days they are due,
// and status.html with every feed.
func TestScenarioBuildsThePagesToReview(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary over five simulated days")
	}
	bin := filepath.Join(t.TempDir(), "feeddigest")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = "../../.." // the module's root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := t.TempDir()
	if err := buildScenario(context.Background(), bin, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Site   string
		Pages  map[string]string
		Emails map[string]string
	}
	b, err := os.ReadFile(filepath.Join(out, "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"busy-day": "ada/2026-11-21.html", "first-digest": "ada/2026-11-18.html", "weekly": "ben/2026-11-23.html",
		"weekly-first": "ben/2026-11-16.html", "weekly-quiet": "cy/2026-11-23.html", "rtl": "noor/2026-11-23.html", "status": "status.html",
		"busy-day-fr": "amelie/2026-11-21.html", "busy-day-de": "jonas/2026-11-21.html", "busy-day-ja": "kenji/2026-11-21.html",
		"busy-day-ru": "olga/2026-11-21.html",
	}
	for name, page := range want {
		if manifest.Pages[name] != page {
			t.Errorf("page %s is %q, want %q", name, manifest.Pages[name], page)
		}
	}
	read := func(page string) string {
		b, err := os.ReadFile(filepath.Join(out, manifest.Site, page))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if busy := read(want["busy-day"]); strings.Count(busy, "Metro Wire") < 2 || len(busy) < 40_000 {
		t.Errorf("the busy day's page (%d bytes) does not hold a day of Metro Wire", len(busy))
	}
	if rtl := read(want["rtl"]); strings.Count(rtl, `lang="he"`)+strings.Count(rtl, `lang="ar"`) < 3 || !strings.Contains(rtl, `<html lang="ar" dir="rtl">`) {
		t.Error("noor's page is not mostly Arabic and Hebrew, in Arabic")
	}
	for _, r := range readersElsewhere {
		if page := read(want["busy-day-"+r.language]); !strings.Contains(page, `<html lang="`+r.language+`">`) || strings.Count(page, "Metro Wire") < 2 {
			t.Errorf("%s's busy day is not ada's feeds in %s", r.name, r.language)
		}
	}
	if quiet := read(want["weekly-quiet"]); !strings.Contains(quiet, "Nothing new") || strings.Contains(quiet, "<article") {
		t.Error("cy's Monday digest is not a weekly digest with nothing new")
	}
	email, err := os.ReadFile(filepath.Join(out, manifest.Emails["busy-day-email"]))
	if err != nil {
		t.Fatal(err)
	}
	if manifest.Emails["busy-day-email"] != "email/ada-2026-11-21.html" || !strings.HasPrefix(strings.ToLower(string(email)), "<!doctype html") ||
		!strings.Contains(string(email), "Metro Wire") || strings.Contains(string(email), "=3D") {
		t.Errorf("the busy day's email is not its HTML part, decoded (%s, %d bytes)", manifest.Emails["busy-day-email"], len(email))
	}
	status := read("status.html")
	for _, path := range []string{"/blog.xml", "/news.xml", "/longreads.atom", "/podcast.xml", "/microblog.json", "/garden-ar.xml",
		"/city-he.xml", "/gorod.xml", "/workshop.xml", "/broken.xml", "/dropped.xml", "/newsletter.xml", "/almanac.xml"} {
		if !strings.Contains(status, path) {
			t.Errorf("status.html does not list %s", path)
		}
	}
}

// A folder the scenario did not finish is never emptied; one it finished
// is replaced.
func TestPrepareClearsOnlyAFinishedScenario(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepare(dir); err == nil {
		t.Fatal("prepare accepted a folder holding someone's notes")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Fatalf("prepare removed what it did not make: %v", err)
	}
	done := filepath.Join(dir, "done")
	if err := os.MkdirAll(filepath.Join(done, "site"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(done, "scenario.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepare(done); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(done); len(entries) != 0 {
		t.Errorf("a finished scenario's folder still holds %d files", len(entries))
	}
	if err := prepare(filepath.Join(dir, "new")); err != nil {
		t.Errorf("a folder that does not exist yet: %v", err)
	}
}
