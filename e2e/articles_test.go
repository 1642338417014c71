package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// articleWorld is a teaser feed (full_text) of three entries whose
// pages hold articles, a plain feed, one user, and the test build of
// feeddigest that can be killed at an article page.
type articleWorld struct {
	server      *feedtest.Server
	dir, config string
	bin         string
}

func newArticleWorld(t *testing.T) *articleWorld {
	server := feedtest.Start(t)
	day := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, name := range []string{"a", "b", "c"} { // oldest first: c is asked first, then b
		server.Add("/teaser", feedtest.Entry{ID: name, Title: "Post " + name, Link: server.URL + "/post/" + name,
			Body: "<p>Teaser of " + name + ".</p>", Published: day.Add(time.Duration(i) * time.Minute)})
		server.Handle("/post/"+name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><body><article><p>%s</p></article></body></html>", strings.Repeat("Whole article of "+name+". ", 20))
		}))
	}
	server.Add("/good", feedtest.Entry{ID: "g", Title: "Good post", Body: "<p>Good.</p>", Published: day})
	dir := t.TempDir()
	config := writeConfig(t, dir, fmt.Sprintf(`state = "state.db"
site_dir = "site"
[fetch]
allow_private_networks = true
host_rate = 1000.0
[email]
from = "Digest <digest@example.org>"
outbox = "outbox"
[[users]]
name = "ada"
timezone = "UTC"
feeds = [{ url = %q, full_text = true }, %q]
`, server.URL+"/teaser", server.URL+"/good"))
	return &articleWorld{server: server, dir: dir, config: config, bin: killFeedBinary(t)}
}

// run runs feeddigest at now, killed as it is about to ask for a page
// whose path contains killAt ("": never), and says whether it was.
func (w *articleWorld) run(now, killAt string) (string, bool, error) {
	var env []string
	if killAt != "" {
		env = append(env, "FEEDDIGEST_TEST_KILL_ARTICLE="+killAt)
	}
	cmd := command(w.bin, env, "run", "-config", w.config, "-now", now)
	out, err := cmd.CombinedOutput()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return string(out), ws.Signaled(), err
}

func (w *articleWorld) page(t *testing.T, date string) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(w.dir, "site", "ada", date+".html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// A run killed (SIGKILL) while it fetches a teaser feed's article pages
// loses no entry, and the next run fetches the pages the dead one claimed
// and never asked for, and asks once more for those it asked for (a kill
// from outside lands on whatever page is in flight): every entry gets its
// article, and the feed is not blamed.
func TestKilledWhileFetchingArticlesLosesNothingAndFetchesTheRest(t *testing.T) {
	w := newArticleWorld(t)
	const now = "2026-11-22T00:05:00Z"
	if out, killed, _ := w.run(now, "/post/b"); !killed {
		t.Fatalf("the run was not killed at /post/b:\n%s", out)
	}
	if n := w.server.Count("/post/c"); n != 1 {
		t.Fatalf("/post/c asked %d times before the kill, want once", n)
	}
	if out, killed, err := w.run(now, ""); killed || err != nil {
		t.Fatalf("the run after the kill: killed %v, %v\n%s", killed, err, out)
	}
	// c was asked for by the dead run, whose poll was never saved: asked
	// once more; b's asking was cut short before it reached the server;
	// a was claimed and never asked for.
	for path, want := range map[string]int{"/post/a": 1, "/post/b": 1, "/post/c": 2} {
		if n := w.server.Count(path); n != want {
			t.Errorf("%s asked %d times in all, want %d", path, n, want)
		}
	}
	page := w.page(t, "2026-11-22")
	for _, want := range []string{"Whole article of a", "Whole article of b", "Whole article of c", "Good post"} {
		if !strings.Contains(page, want) {
			t.Errorf("the digest lacks %q", want)
		}
	}
	if strings.Contains(page, "Could not read") {
		t.Error("the digest blames a feed for the kill")
	}
}

// An article page that kills the process every time it is asked for
// stops at most two runs, as a feed that does: the first, and the second,
// which read its feed again alone after the others. The third takes the
// feed for the cause (a penalty); once that ends, the page is not asked
// for again (its entry keeps the feed's own text) and every other entry
// gets its article: no run dies on it again. A page answered before the
// kill is no suspect: its answer died with the run, and it is asked
// again by the next poll.
func TestArticlePageThatKillsEveryRunStopsAtMostTwo(t *testing.T) {
	w := newArticleWorld(t)
	deaths := 0
	for i, now := range []string{"2026-11-22T00:05:00Z", "2026-11-22T00:06:00Z", "2026-11-22T00:07:00Z", "2026-11-24T00:05:00Z"} {
		out, killed, err := w.run(now, "/post/b")
		if killed {
			if deaths++; i >= 2 {
				t.Fatalf("run %d, at %s, died too:\n%s", i+1, now, out)
			}
			continue
		}
		if err != nil {
			t.Fatalf("run at %s: %v\n%s", now, err, out)
		}
	}
	if deaths != 2 {
		t.Errorf("%d runs died, want 2", deaths)
	}
	// c, asked first, by each of the three runs that polled the feed; a
	// only by the last; b (whose asking kills the run before it reaches
	// the server) never.
	for path, want := range map[string]int{"/post/a": 1, "/post/b": 0, "/post/c": 3} {
		if n := w.server.Count(path); n != want {
			t.Errorf("%s asked %d times in all, want %d", path, n, want)
		}
	}
	if !strings.Contains(w.page(t, "2026-11-22"), "Good post") {
		t.Error("the digest of the day the page killed two runs lacks the plain feed's entry")
	}
	var all strings.Builder
	for _, date := range []string{"2026-11-22", "2026-11-23", "2026-11-24"} {
		if page, err := os.ReadFile(filepath.Join(w.dir, "site", "ada", date+".html")); err == nil {
			all.Write(page)
		}
	}
	for _, want := range []string{"Whole article of a", "Teaser of b", "Whole article of c", "Good post"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no digest shows %q", want)
		}
	}
}
