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
	"feeddigest/render"
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
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
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

		// A page whose entries lost their texts is not rendered again: it
		// would come back empty. Its pager alone changes, every other byte
		// as written.
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
		got := readFile(t, last)
		if links := pageLinks(t, got); links["next"] != "2026-11-24.html" {
			t.Errorf("the page whose entries lost their texts links %v, want next 2026-11-24.html", links)
		}
		var unlinked strings.Builder
		was, now := render.Pager{Prev: render.DigestRef{Date: days[1]}}, render.Pager{Prev: render.DigestRef{Date: days[1]}, Next: render.DigestRef{Date: "2026-11-24"}}
		if err := render.RelinkPage(&unlinked, strings.NewReader(got), int64(len(got)), now, was); err != nil {
			t.Fatal(err)
		}
		if unlinked.String() != before {
			t.Errorf("the page whose entries lost their texts changed beyond its pager:\n%s\nwas\n%s", got, before)
		}
		// Not ending as this version writes it, and its entries without
		// their texts, the page is left as it is.
		next := filepath.Join(dir, "2026-11-24.html")
		older := strings.Replace(readFile(t, next), "</main>\n<footer>", "</main>\n<!-- older -->\n<footer>", 1)
		if err := os.WriteFile(next, []byte(older), 0o644); err != nil {
			t.Fatal(err)
		}
		if st, err = openState(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DropTexts(context.Background(), at("2027-01-01T00:00:00Z")); err != nil {
			t.Fatal(err)
		}
		st.Close()
		pub.Add("/feed", entry("a-10", "2026-11-25T00:01:00Z"))
		runAt(t, cfg, "2026-11-25T00:05:00Z")
		if readFile(t, next) != older {
			t.Error("a page that could not be relinked was rendered again, though its entries lost their texts")
		}
		if links := pageLinks(t, readFile(t, filepath.Join(dir, "2026-11-24.html"))); links["prev"] != days[2]+".html" {
			t.Errorf("the new page links %v", links)
		}
	})
}

// The page before a new digest is relinked by changing its pager alone;
// a page that does not end as this version writes it (here one written by
// an older version, with a comment before its footer) is rendered again.
func TestPreviousPageIsRelinkedOrRenderedAgain(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
		dir := filepath.Join(cfg.SiteDir, "ada")
		pub.Add("/feed", entry("a-1", "2026-11-21T00:01:00Z"))
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		first := filepath.Join(dir, "2026-11-21.html")
		older := strings.Replace(readFile(t, first), "</main>\n<footer>", "</main>\n<!-- older -->\n<footer>", 1)
		if err := os.WriteFile(first, []byte(older), 0o644); err != nil {
			t.Fatal(err)
		}
		pub.Add("/feed", entry("a-2", "2026-11-22T00:01:00Z"))
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		got := readFile(t, first)
		if strings.Contains(got, "<!-- older -->") || pageLinks(t, got)["next"] != "2026-11-22.html" || !strings.Contains(got, "Title a-1") {
			t.Errorf("the older page was not rendered again:\n%s", got)
		}

		second := filepath.Join(dir, "2026-11-22.html")
		marked := strings.Replace(readFile(t, second), "Title a-2", "Title a-2 (as written)", 1)
		if err := os.WriteFile(second, []byte(marked), 0o644); err != nil {
			t.Fatal(err)
		}
		pub.Add("/feed", entry("a-3", "2026-11-23T00:01:00Z"))
		runAt(t, cfg, "2026-11-23T00:05:00Z")
		got = readFile(t, second)
		if !strings.Contains(got, "Title a-2 (as written)") || pageLinks(t, got)["next"] != "2026-11-23.html" {
			t.Errorf("the page was not relinked as written:\n%s", got)
		}
	})
}
