package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"feeddigest/config"
)

// item is one entry of a test feed.
type item struct {
	id, title, body string
	published       time.Time
}

// publisher serves RSS feeds that tests change as they go, with ETags and
// 304s like a well-configured server, and records every request.
type publisher struct {
	t      *testing.T
	mu     sync.Mutex
	feeds  map[string][]item // path -> items, newest last
	status map[string]int    // path -> forced status
	window int               // items in a feed body, newest first (0: all)
	log    []string          // "METHOD path status"
	server *httptest.Server
}

func newPublisher(t *testing.T) *publisher {
	p := &publisher{t: t, feeds: map[string][]item{}, status: map[string]int{}}
	p.server = httptest.NewServer(p)
	t.Cleanup(p.server.Close)
	return p
}

func (p *publisher) url(path string) string { return p.server.URL + path }

func (p *publisher) add(path string, items ...item) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.feeds[path] = append(p.feeds[path], items...)
}

func (p *publisher) setStatus(path string, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status[path] = status
}

func (p *publisher) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

func (p *publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	code := p.serve(w, r)
	p.log = append(p.log, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, code))
}

func (p *publisher) serve(w http.ResponseWriter, r *http.Request) int {
	if code := p.status[r.URL.Path]; code != 0 {
		w.WriteHeader(code)
		if code == http.StatusOK {
			w.Write([]byte("<rss><channel><item><title>broken"))
		}
		return code
	}
	items, ok := p.feeds[r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return http.StatusNotFound
	}
	body := rss(r.URL.Path, items, p.window)
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:6]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/rss+xml")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return http.StatusNotModified
	}
	if r.Method == http.MethodGet {
		w.Write(body)
	}
	return http.StatusOK
}

func rss(path string, items []item, window int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Feed %s</title><link>https://site.example%s/</link>`, path, path)
	n := 0
	for i := len(items) - 1; i >= 0; i-- {
		if window > 0 && n == window {
			break
		}
		it := items[i]
		fmt.Fprintf(&b, `<item><guid>%s</guid><title>%s</title><link>https://site.example/%s</link><description>%s</description><pubDate>%s</pubDate></item>`,
			it.id, html.EscapeString(it.title), it.id, html.EscapeString(it.body), it.published.Format(time.RFC1123Z))
		n++
	}
	b.WriteString(`</channel></rss>`)
	return []byte(b.String())
}

// oneUser is the users block of one London user following urls.
func oneUser(t *testing.T, urls ...string) string {
	var quoted []string
	for _, u := range urls {
		quoted = append(quoted, fmt.Sprintf("%q", u))
	}
	return fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [%s]\n", strings.Join(quoted, ", "))
}

// testConfig writes a config with the given users block into a temp folder.
func testConfig(t *testing.T, users string, extra string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	text := `state = "` + testState(t) + `"
site_dir = "site"
` + extra + `
[fetch]
allow_private_networks = true
host_rate = 1000.0
per_host = 8
[email]
from = "Digest <digest@example.org>"
outbox = "outbox"
` + users
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// pass runs one pass at now and fails the test on error.
func runAt(t *testing.T, cfg *config.Config, now string) Summary {
	t.Helper()
	sum, err := Run(context.Background(), cfg, Options{Now: at(now)})
	if err != nil {
		t.Fatalf("run at %s: %v", now, err)
	}
	return sum
}

var entryLink = regexp.MustCompile(`href="https://site\.example/([a-z]+-[0-9]+)"`)

// delivered returns, per entry id, how many of user's daily pages link it.
func delivered(t *testing.T, cfg *config.Config, user string) map[string]int {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(cfg.SiteDir, user, "????-??-??.html"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		perPage := map[string]bool{}
		for _, m := range entryLink.FindAllStringSubmatch(string(b), -1) {
			perPage[m[1]] = true
		}
		for id := range perPage {
			counts[id]++
		}
	}
	return counts
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
