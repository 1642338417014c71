package e2e

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// A server whose Last-Modified is fixed forever (a template's mtime), whose
// ETag follows the body, and which ignores conditional requests, polled by
// the real binary once a day for two weeks (-now) with new entries on some
// days: every entry reaches the digest once, each poll makes the requests
// DESIGN allows, no HEAD-only stretch lasts 7 days, and status says what
// was learned of the server. (Before validators were judged on their own,
// the Last-Modified that came back made every later poll a HEAD that found
// nothing new: from the third day on, no entry arrived.)
func TestFixedLastModifiedServerOverTwoWeeks(t *testing.T) {
	binary(t) // skips under -short
	var mu sync.Mutex
	items := []string{"p-0", "p-1", "p-2"}
	served := map[int][]string{}
	day := 0
	body := func() string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Template</title>`)
		for i := len(items) - 1; i >= max(0, len(items)-10); i-- {
			fmt.Fprintf(&b, `<item><guid>%[1]s</guid><title>Post %[1]s</title><link>https://site.example/%[1]s</link></item>`, items[i])
		}
		b.WriteString(`</channel></rss>`)
		return b.String()
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		served[day] = append(served[day], r.Method)
		b := body()
		w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(b)))[:18]+`"`)
		w.Header().Set("Last-Modified", "Sun, 01 Nov 2026 08:00:00 GMT")
		w.Header().Set("Content-Type", "application/rss+xml")
		if r.Method == http.MethodGet {
			w.Write([]byte(b))
		}
	}))
	defer ts.Close()
	dir := t.TempDir()
	config := fmt.Sprintf("site_dir = \"site\"\n[fetch]\nallow_private_networks = true\n[email]\nfrom = \"d@example.org\"\noutbox = \"outbox\"\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/feed")
	writeConfig(t, dir, config)
	newOn := map[int]bool{1: true, 2: true, 3: true, 5: true, 12: true, 13: true}
	// Day 12, 7 days after the last GET: the HEAD, and the GET whatever it says.
	want := []string{"GET", "GET", "GET", "GET", "GET", "HEAD,GET", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD,GET", "HEAD,GET"}
	start := time.Date(2026, 11, 2, 0, 5, 0, 0, time.UTC)
	for d := range 14 {
		mu.Lock()
		day = d
		if newOn[d] {
			items = append(items, fmt.Sprintf("p-%d", len(items)))
		}
		mu.Unlock()
		now := start.AddDate(0, 0, d)
		if code, stdout, stderr := feeddigest(t, dir, nil, "run", "-now", now.Format(time.RFC3339)); code != 0 {
			t.Fatalf("day %d: exit %d\n%s%s", d, code, stdout, stderr)
		}
		mu.Lock()
		got := strings.Join(served[d], ",")
		mu.Unlock()
		if got != want[d] {
			t.Errorf("day %d: requests %s, want %s", d, got, want[d])
		}
	}
	counts := map[string]int{}
	pages, _ := filepath.Glob(filepath.Join(dir, "site", "ada", "????-??-??.html"))
	link := regexp.MustCompile(`href="https://site\.example/(p-[0-9]+)"`)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]] = true
		}
		for id := range seen {
			counts[id]++
		}
	}
	for _, id := range items {
		if counts[id] != 1 {
			t.Errorf("%s in %d digests, want 1 (all: %v)", id, counts[id], counts)
		}
	}
	code, stdout, stderr := feeddigest(t, dir, nil, "status", "-now", start.AddDate(0, 0, 14).Format(time.RFC3339))
	note := "ignores conditional requests; a quick check (HEAD) by its ETag first, a full download when it changed and at least weekly; its Last-Modified stayed the same while the feed changed, so it is not used"
	if code != 0 || !strings.Contains(stdout, note) {
		t.Errorf("status: exit %d, want %q in\n%s%s", code, note, stdout, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "site", "status.html"))
	if err != nil || !strings.Contains(string(page), note) {
		t.Errorf("status.html does not say %q (%v)", note, err)
	}
}
