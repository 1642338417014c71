package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// articleHTML is a page whose article readability finds: words enough,
// in an <article>, among a menu and a footer.
func articleHTML(words string) string {
	return `<!doctype html><html><head><title>Post</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>` +
		`<article><h1>Post</h1><p>` + strings.Repeat(words+" ", 12) + `</p><p>` + strings.Repeat(words+" ", 12) + `</p></article>` +
		`<footer>Copyright</footer></body></html>`
}

// teaserConfig is a config for one user with a full_text feed, per_host
// 1 so that one host's log shows the limits of polls and page fetches
// together.
func teaserConfig(t *testing.T, state backend, teaser, plain string) *config.Config {
	t.Helper()
	text := fmt.Sprintf(`state = %q
site_dir = "site"
[fetch]
allow_private_networks = true
per_host = 1
host_rate = 200.0
timeout = "2s"
max_body = "1MB"
[email]
from = "Digest <digest@example.org>"
outbox = "outbox"
[[users]]
name = "ada"
timezone = "Europe/London"
email = "ada@example.org"
full_entries = 6
feeds = [{ url = %q, full_text = true }, %q]
`, state.newState(t), teaser, plain)
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func servePage(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}
}

// A teaser feed is made whole: each new entry's page fetched once, at
// most full_entries a poll, under the host's limits shared with the
// polls, and only for entries a digest shows (a first digest shows the 5
// newest); the article is on the page and in the email's excerpt. Pages
// that fail (a gzip bomb, not HTML, a 404, a stall) keep the feed's own
// text quietly; a page in another charset is decoded.
func TestTeaserFeedMadeWhole(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		ts := feedtest.Start(t)
		var bomb bytes.Buffer
		zw := gzip.NewWriter(&bomb)
		zw.Write(make([]byte, 4<<20)) // 4 MB of zeros, past max_body
		zw.Close()
		stall := make(chan struct{})
		t.Cleanup(func() { close(stall) })
		latin1 := []byte(strings.ReplaceAll(articleHTML("Caf\xe9 cr\xe8me latin words"), "<head>", `<head><meta charset="iso-8859-1">`))
		pages := map[string]http.Handler{
			"/post/whole":  servePage("text/html; charset=utf-8", []byte(articleHTML("Whole article words"))),
			"/post/latin1": servePage("text/html", latin1),
			"/post/pdf":    servePage("application/pdf", []byte("%PDF-1.4 "+strings.Repeat("x", 500))),
			"/post/bomb": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(bomb.Bytes())
			}),
			"/post/stall": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte("<html><body><p>"))
				w.(http.Flusher).Flush()
				select {
				case <-stall:
				case <-r.Context().Done():
				}
			}),
			"/post/old":   servePage("text/html", []byte(articleHTML("Never fetched"))),
			"/post/older": servePage("text/html", []byte(articleHTML("Never fetched"))),
		}
		for path, h := range pages {
			ts.Handle(path, h)
		}
		// The stalled page ends for the server a moment after the client
		// gave up on it and may have asked the host for its next page.
		ts.Uncounted("/post/stall")
		day := at("2026-11-21T10:00:00Z")
		var entries []feedtest.Entry
		// Oldest first: a first digest shows the 5 newest, so the pages of
		// "older" and "old" are never worth a request.
		for i, name := range []string{"older", "old", "bomb", "pdf", "stall", "latin1", "whole"} {
			entries = append(entries, feedtest.Entry{ID: name, Title: "Post " + name, Link: ts.URL + "/post/" + name,
				Body: "<p>Teaser of " + name + ".</p>", Published: day.Add(time.Duration(i) * time.Minute)})
		}
		ts.Add("/teaser", entries...)
		ts.Add("/plain", feedtest.Entry{ID: "p1", Title: "Plain", Link: ts.URL + "/post/plain", Body: "<p>Plain teaser.</p>", Published: day})
		cfg := teaserConfig(t, state, ts.URL+"/teaser", ts.URL+"/plain")

		sum := runAt(t, cfg, "2026-11-21T12:00:00Z")
		for _, path := range []string{"/post/whole", "/post/latin1", "/post/pdf", "/post/bomb", "/post/stall"} {
			if n := ts.Count(path); n != 1 {
				t.Errorf("%s asked %d times, want once", path, n)
			}
		}
		if n := ts.Count("/post/old") + ts.Count("/post/older") + ts.Count("/post/plain"); n != 0 {
			t.Errorf("pages a first digest leaves out or of a feed without full_text asked %d times", n)
		}
		if sum.Failed != 0 || sum.Articles != 5 || sum.ArticlesRead != 2 || sum.Requests != 2+5 {
			t.Errorf("summary: failed %d, articles %d read %d, requests %d; want 0, 5, 2 and 7", sum.Failed, sum.Articles, sum.ArticlesRead, sum.Requests)
		}
		if peak := ts.PeakInFlightPerHost(); len(peak) != 1 || peak[strings.TrimPrefix(ts.URL, "http://")] != 1 {
			t.Errorf("peak in flight per host %v, want per_host 1 across polls and pages", peak)
		}
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		for _, want := range []string{"Whole article words", "Café crème latin words", "Teaser of bomb", "Teaser of pdf", "Teaser of stall"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		for _, gone := range []string{"Teaser of whole", "Teaser of latin1", "Copyright", "About"} {
			if strings.Contains(page, gone) {
				t.Errorf("the page shows %q", gone)
			}
		}
		if strings.Contains(page, "could not") {
			t.Error("a page that failed is shown as the feed's problem")
		}
		// status and status.html show the pages of the teaser feed's poll,
		// and none of the plain feed's.
		wantNote := "article pages: 2 of 5 read whole"
		if note := serverColumn(t, cfg, ts.URL+"/teaser"); !strings.Contains(note, wantNote) {
			t.Errorf("status of the teaser feed says %q, want %q in it", note, wantNote)
		}
		if note := serverColumn(t, cfg, ts.URL+"/plain"); strings.Contains(note, "article") {
			t.Errorf("status of the plain feed says %q", note)
		}
		if status := readFile(t, filepath.Join(cfg.SiteDir, "status.html")); strings.Count(status, wantNote) != 1 {
			t.Errorf("status.html shows %q %d times, want once", wantNote, strings.Count(status, wantNote))
		}
		_, text := smtptest.ReadAlternative(t, []byte(readFile(t, filepath.Join(cfg.Email.Outbox, "ada-2026-11-21.eml"))))
		if !strings.Contains(text["text/plain"], "Whole article words") || !strings.Contains(text["text/html"], "Whole article words") {
			t.Error("the email's excerpt is not the article's")
		}

		// The next day, the feed introduced: every new entry is shown, and
		// the pages of the newest full_entries (6) of them are fetched, a
		// 404 among them; none is asked again.
		next := []string{"late", "404", "n1", "n2", "n3", "n4", "next"} // oldest first
		for i, name := range next {
			ts.Add("/teaser", feedtest.Entry{ID: name, Title: "Post " + name, Link: ts.URL + "/post/" + name,
				Body: "<p>Teaser of " + name + ".</p>", Published: day.Add(24*time.Hour + time.Duration(i)*time.Minute)})
			if name != "404" {
				ts.Handle("/post/"+name, servePage("text/html", []byte(articleHTML("Next whole words"))))
			}
		}
		runAt(t, cfg, "2026-11-22T00:30:00Z")
		for _, name := range next {
			want := 1
			if name == "late" {
				want = 0 // past full_entries
			}
			if n := ts.Count("/post/" + name); n != want {
				t.Errorf("the new entry %s's page asked %d times, want %d", name, n, want)
			}
		}
		for path := range pages {
			if n := ts.Count(path); n > 1 {
				t.Errorf("%s asked again (%d times)", path, n)
			}
		}
		if page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html")); !strings.Contains(page, "Next whole words") {
			t.Error("the second digest lacks the new entry's article")
		}
		if note := serverColumn(t, cfg, ts.URL+"/teaser"); !strings.Contains(note, "article pages: 5 of 6 read whole") {
			t.Errorf("status after the second poll says %q, want 5 of its 6 pages read whole", note)
		}
	})
}

// serverColumn is what `status` says of a feed's server (and its article
// pages), from the state of cfg.
func serverColumn(t *testing.T, cfg *config.Config, url string) string {
	t.Helper()
	rows, err := Status(context.Background(), cfg, at("2026-11-30T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.URL == url {
			return r.Server
		}
	}
	t.Fatalf("status shows no row for %s", url)
	return ""
}

// A first digest, or a feed newly added to a user, shows the 5 newest
// entries of each feed; the pages of the older ones are never worth a
// request, whatever full_entries allows. A feed another user was shown
// already brings that user every new entry, so their pages are fetched,
// up to full_entries.
func TestPagesOnlyOfEntriesADigestShows(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		ts := feedtest.Start(t)
		day := at("2026-11-21T10:00:00Z")
		var entries []feedtest.Entry
		for i := range 12 {
			name := fmt.Sprintf("p%02d", i) // p11 the newest
			entries = append(entries, feedtest.Entry{ID: name, Title: "Post " + name, Link: ts.URL + "/post/" + name,
				Body: "<p>Teaser of " + name + ".</p>", Published: day.Add(time.Duration(i) * time.Minute)})
			ts.Handle("/post/"+name, servePage("text/html", []byte(articleHTML("Whole article words"))))
		}
		ts.Add("/teaser", entries...)
		ts.Add("/plain", feedtest.Entry{ID: "plain", Title: "Plain", Link: ts.URL + "/post/plain", Body: "<p>Plain.</p>", Published: day})
		stateAt := state.newState(t)
		dir := t.TempDir()
		configure := func(users string) *config.Config {
			t.Helper()
			path := filepath.Join(dir, "config.toml")
			text := fmt.Sprintf("state = %q\nsite_dir = \"site\"\n[fetch]\nallow_private_networks = true\nhost_rate = 1000.0\n", stateAt) + users
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			return cfg
		}
		asked := func() (names []string) {
			for _, e := range entries {
				if ts.Count("/post/"+e.ID) > 0 {
					names = append(names, e.ID)
				}
			}
			return names
		}
		teaser := fmt.Sprintf("{ url = %q, full_text = true }", ts.URL+"/teaser")
		user := func(name, feeds string) string {
			return fmt.Sprintf("[[users]]\nname = %q\ntimezone = \"UTC\"\nfull_entries = 10\nfeeds = [%s]\n", name, feeds)
		}

		// ada follows the plain feed; then adds the teaser feed: its
		// first poll asks for the pages of the 5 newest only.
		runAt(t, configure(user("ada", strconv.Quote(ts.URL+"/plain"))), "2026-11-21T12:00:00Z")
		cfg := configure(user("ada", strconv.Quote(ts.URL+"/plain")+", "+teaser))
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		if got, want := asked(), []string{"p07", "p08", "p09", "p10", "p11"}; !slices.Equal(got, want) {
			t.Errorf("the first poll of a feed newly added asked for the pages of %v, want only the 5 newest %v", got, want)
		}
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html"))
		if !strings.Contains(page, "Whole article words") || strings.Contains(page, "Teaser of p11") {
			t.Error("the first digest does not show the newest entries' articles")
		}
		for _, gone := range []string{"Teaser of p06", "Post p06"} {
			if strings.Contains(page, gone) {
				t.Errorf("the first digest shows %q, an entry past the 5 newest", gone)
			}
		}

		// The next day ada was shown the feed: bob, new, follows it too.
		// Its 10 new entries are all ada's, so all their pages are asked
		// for, bob's first digest notwithstanding.
		var next []feedtest.Entry
		for i := range 10 {
			name := fmt.Sprintf("q%02d", i)
			next = append(next, feedtest.Entry{ID: name, Title: "Post " + name, Link: ts.URL + "/post/" + name,
				Body: "<p>Teaser of " + name + ".</p>", Published: day.Add(24*time.Hour + time.Duration(i)*time.Minute)})
			ts.Handle("/post/"+name, servePage("text/html", []byte(articleHTML("Next whole words"))))
		}
		ts.Add("/teaser", next...)
		entries = next
		runAt(t, configure(user("ada", teaser)+user("bob", teaser)), "2026-11-23T00:05:00Z")
		if got := asked(); len(got) != 10 {
			t.Errorf("a feed ada was shown asked for %d of its 10 new entries' pages (%v), want all", len(got), got)
		}
	})
}
