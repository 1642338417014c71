package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
)

// check lists the feeds in the config's order (users in order, each
// user's feeds in order, a shared feed where it first appears), not
// alphabetically.
func TestCheckListsFeedsInConfigOrder(t *testing.T) {
	ts := checkServer(t)
	path := checkConfig(t, ts, []string{"/ttl", "/good", "/bare"}, []string{"/good", "/old"})
	code, stdout, stderr := runCLI("check", "-config", path)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var order []string
	for l := range strings.Lines(stdout) {
		if rest, ok := strings.CutPrefix(l, "ok  "+ts.URL); ok {
			order = append(order, strings.TrimSpace(rest))
		}
	}
	if got := strings.Join(order, " "); got != "/ttl /good /bare /old" {
		t.Errorf("feeds checked in the order %s, want the config's /ttl /good /bare /old:\n%s", got, stdout)
	}
	if stderr != "" {
		t.Errorf("off a terminal check writes no progress line: %q", stderr)
	}
}

// A feed's block comes as soon as it and the feeds before it are done:
// a slow feed holds back the feeds after it, not those before.
func TestCheckShowsEachFeedAsItFinishes(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<rss version="2.0"><channel><title>%s</title><item><guid>1</guid><title>One</title></item></channel></rss>`, r.URL.Path)
	}))
	defer ts.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\nhost_rate = 100.0\nper_host = 4\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q, %q, %q]\n", ts.URL+"/first", ts.URL+"/slow", ts.URL+"/last"))
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	shown := make(chan string, 3)
	var ticks []string
	go func() {
		// The first feed's block comes while the slow one is still
		// being read; then the slow one is let go.
		select {
		case url := <-shown:
			if url != ts.URL+"/first" {
				t.Errorf("first block %s, want /first", url)
			}
		case <-time.After(10 * time.Second):
			t.Error("no block before the slow feed finished")
		}
		close(release)
	}()
	var order []string
	checkFeeds(context.Background(), cfg, time.Now(), func(c feedCheck) {
		order = append(order, strings.TrimPrefix(c.url, ts.URL))
		if len(order) == 1 {
			shown <- c.url
		}
	}, func(done int, waiting string) {
		ticks = append(ticks, fmt.Sprintf("%d %s", done, strings.TrimPrefix(waiting, ts.URL)))
	})
	if got := strings.Join(order, " "); got != "/first /slow /last" {
		t.Errorf("blocks in the order %s, want /first /slow /last", got)
	}
	// A tick a feed; the first done is /first (the next block waits for
	// /slow) or /last (it waits for /first).
	if len(ticks) != 3 || ticks[0] != "1 /slow" && ticks[0] != "1 /first" || ticks[2] != "3 " {
		t.Errorf("progress %q, want a tick a feed, each naming the feed the next block waits for", ticks)
	}
}

// On a terminal, one line says how far check is and which feed it waits
// for; it is cleared before each block and at the end.
func TestCheckProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := checkProgress{w: &buf, total: 12}
	p.draw(3, "https://slow.example/"+strings.Repeat("x", 80))
	p.clear()
	got := buf.String()
	want := "\r\033[Kchecking: 3 of 12 feeds done, waiting for https://slow.example/" + strings.Repeat("x", 26) + "...\r\033[K"
	if got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
	buf.Reset()
	p.draw(12, "")
	if buf.Len() != 0 {
		t.Errorf("a line once every feed is done: %q", buf.String())
	}
	if newCheckProgress(&buf, 12).w != nil || buf.Len() != 0 {
		t.Error("a progress line on a writer that is not a terminal")
	}
}
