package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// pageLinks are the head's icon and feed, and the pager's prev and next,
// of a digest page.
func pageLinks(t *testing.T, page string) map[string]string {
	t.Helper()
	links := map[string]string{}
	for _, m := range regexp.MustCompile(`<link rel="(icon|alternate)"[^>]* href="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		links[m[1]] = m[2]
	}
	for _, m := range regexp.MustCompile(`<a href="([^"]+)" rel="(prev|next)"`).FindAllStringSubmatch(page, -1) {
		links[m[2]] = m[1]
	}
	return links
}

// Each digest page links the one before and the one after it: the page
// before is written again when a new digest comes. Every page's head
// names the user's Atom feed and the site's own icon.
func TestDigestPagesLinkTheirNeighbours(t *testing.T) {
	pub := feedtest.Start(t)
	cfg := testConfig(t, oneUser(t, pub.URL+"/feed"), "")
	days := []string{"2026-11-21", "2026-11-22", "2026-11-23"}
	for i, day := range days {
		pub.Add("/feed", entry(fmt.Sprintf("a-%d", i), day+"T00:01:00Z"))
		runAt(t, cfg, day+"T00:05:00Z")
	}
	dir := filepath.Join(cfg.SiteDir, "ada")
	for i, day := range days {
		page := readFile(t, filepath.Join(dir, day+".html"))
		links := pageLinks(t, page)
		want := map[string]string{"icon": "../favicon.svg", "alternate": "feed.xml"}
		if i > 0 {
			want["prev"] = days[i-1] + ".html"
		}
		if i+1 < len(days) {
			want["next"] = days[i+1] + ".html"
		}
		if fmt.Sprint(links) != fmt.Sprint(want) {
			t.Errorf("%s links %v, want %v", day, links, want)
		}
		for _, href := range links {
			if _, err := os.Stat(filepath.Join(dir, href)); err != nil {
				t.Errorf("%s links %s, which is not there: %v", day, href, err)
			}
		}
	}
	if icon := readFile(t, filepath.Join(cfg.SiteDir, "favicon.svg")); !strings.HasPrefix(icon, "<svg ") {
		t.Errorf("favicon.svg: %q", icon)
	}
	if links := pageLinks(t, readFile(t, filepath.Join(dir, "index.html"))); links["icon"] != "../favicon.svg" || links["alternate"] != "feed.xml" {
		t.Errorf("index.html head links %v", links)
	}
	if links := pageLinks(t, readFile(t, filepath.Join(cfg.SiteDir, "status.html"))); links["icon"] != "favicon.svg" {
		t.Errorf("status.html head links %v", links)
	}

	// A page whose entries lost their texts is not written again: it
	// would come back empty. It goes without a link to the next digest.
	st, err := openState(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DropTexts(context.Background(), at("2027-01-01T00:00:00Z")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	last := filepath.Join(dir, days[2]+".html")
	before := readFile(t, last)
	pub.SetWindow(1) // the poll brings a-9 alone, not a-2's text again
	pub.Add("/feed", entry("a-9", "2026-11-24T00:01:00Z"))
	runAt(t, cfg, "2026-11-24T00:05:00Z")
	if readFile(t, last) != before {
		t.Error("a page whose entries lost their texts was written again")
	}
	if links := pageLinks(t, readFile(t, filepath.Join(dir, "2026-11-24.html"))); links["prev"] != days[2]+".html" {
		t.Errorf("the new page links %v", links)
	}
}
