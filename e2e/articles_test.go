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

// A run killed (SIGKILL) while it fetches a teaser feed's article pages
// loses no entry, and the next run asks for none of the pages the dead
// one claimed: each page is asked for at most once, ever; the entries
// whose article was not read keep the feed's own text, and the feed is
// not blamed.
func TestKilledWhileFetchingArticlesLosesNothingAndAsksNothingTwice(t *testing.T) {
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
	bin := killFeedBinary(t)
	run := func(env ...string) (string, bool, error) {
		cmd := command(bin, env, "run", "-config", config, "-now", "2026-11-22T00:05:00Z")
		out, err := cmd.CombinedOutput()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return string(out), ws.Signaled(), err
	}
	if out, killed, _ := run("FEEDDIGEST_TEST_KILL_ARTICLE=/post/b"); !killed {
		t.Fatalf("the run was not killed at /post/b:\n%s", out)
	}
	if n := server.Count("/post/c"); n != 1 {
		t.Fatalf("/post/c asked %d times before the kill, want once", n)
	}
	if out, killed, err := run(); killed || err != nil {
		t.Fatalf("the run after the kill: killed %v, %v\n%s", killed, err, out)
	}
	for path, want := range map[string]int{"/post/a": 0, "/post/b": 0, "/post/c": 1} {
		if n := server.Count(path); n != want {
			t.Errorf("%s asked %d times in all, want %d: a page the dead run claimed is never asked again", path, n, want)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "site", "ada", "2026-11-22.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Teaser of a", "Teaser of b", "Teaser of c", "Good post"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the digest lacks %q: an entry was lost", want)
		}
	}
	if strings.Contains(string(page), "Could not read") {
		t.Error("the digest blames a feed for the kill")
	}
}
