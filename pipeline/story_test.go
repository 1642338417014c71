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
	"feeddigest/internal/smtptest"
	"feeddigest/pages"
)

// One story from three feeds is shown once, under the first of them in
// the user's order (the folder "Town", gathered at its first feed, comes
// before Daily News, which the config names before the Council), "also
// in" the others, and counted once by the contents, the heading and the
// Subject; two links that differ by ?id= are two stories.
func TestSameStoryFromThreeFeedsShownOnce(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		checkSameStoryShownOnce(t, state)
	})
}

// The same for a digest listed feed by feed (a large one, see
// renderDigest): the page and the email are those of the digest read
// whole.
func TestSameStoryShownOnceInADigestListedByFeed(t *testing.T) {
	forEachStateInTurn(t, func(t *testing.T, state backend) {
		was := pages.WholeDigestEntries
		pages.WholeDigestEntries = 0
		t.Cleanup(func() { pages.WholeDigestEntries = was })
		checkSameStoryShownOnce(t, state)
	})
}

func checkSameStoryShownOnce(t *testing.T, state backend) {
	pub := feedtest.Start(t)
	story := func(id, title, link string) feedtest.Entry {
		e := entry(id, "2026-11-20T10:00:00Z")
		e.Title, e.Link = title, link
		return e
	}
	pub.Add("/blog", story("b-1", "Reading list, part two", "https://city.example/read?id=2"))
	pub.Add("/news", story("n-1", "The bridge opens", "https://city.example/bridge?utm_source=news&utm_medium=rss"),
		story("n-2", "Reading list", "https://city.example/read?id=1"))
	pub.Add("/council", story("c-1", "Bridge opening ceremony", "HTTPS://City.example:443/bridge#ceremony"))
	pub.Add("/agg", story("a-1", "Bridge open", "https://city.example/bridge?fbclid=abc"),
		story("a-2", "Weather", "https://agg.example/weather"))
	cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	feeds = [
	  { url = "%s", title = "Local Blog", folder = "Town" },
	  { url = "%s", title = "Daily News" },
	  { url = "%s", title = "Town Council", folder = "Town" },
	  { url = "%s", title = "Aggregator" },
	]
	`, pub.URL+"/blog", pub.URL+"/news", pub.URL+"/council", pub.URL+"/agg"), "")
	runAt(t, cfg, "2026-11-21T12:00:00Z")

	page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
	eml, err := os.ReadFile(filepath.Join(cfg.Email.Outbox, "ada-2026-11-21.eml"))
	if err != nil {
		t.Fatal(err)
	}
	h, parts := smtptest.ReadAlternative(t, eml)
	text := strings.ReplaceAll(parts["text/plain"], "\r\n", "\n")
	for part, body := range map[string]string{"page": page, "html email": parts["text/html"], "text email": text} {
		for _, gone := range []string{"The bridge opens", "Bridge open<", "Bridge open\n"} {
			if strings.Contains(body, gone) {
				t.Errorf("%s shows %q, which is the Council's story", part, strings.TrimSpace(gone))
			}
		}
		if !regexp.MustCompile(`(?i)also in: (<span dir="auto">)?Daily News, Aggregator`).MatchString(body) {
			t.Errorf("%s does not say the story is also in Daily News, Aggregator", part)
		}
		for _, kept := range []string{"Bridge opening ceremony", "Reading list, part two", "Reading list\n", "Weather"} {
			if part != "text email" {
				kept = strings.TrimSuffix(kept, "\n") + "<"
			}
			if !strings.Contains(body, kept) {
				t.Errorf("%s lost %q", part, strings.TrimRight(kept, "<\n"))
			}
		}
	}
	if !strings.Contains(page, "4 new entries from 4 feeds") {
		t.Error("the page's heading does not count the story once (4 new entries from 4 feeds)")
	}
	if got, want := h.Get("Subject"), "Your digest for Saturday 21 November: 4 new from 4 feeds"; got != want {
		t.Errorf("Subject = %q, want %q", got, want)
	}
	var contents []string
	for _, m := range regexp.MustCompile(`<a href="#feed-\d" dir="auto">([^<]*)</a> <span class="m">(\d+) entr`).FindAllStringSubmatch(page, -1) {
		contents = append(contents, m[1]+" "+m[2])
	}
	if want := "Local Blog 1, Town Council 1, Daily News 1, Aggregator 1"; strings.Join(contents, ", ") != want {
		t.Errorf("contents %q, want %q", strings.Join(contents, ", "), want)
	}
	// Under the Council's heading, not Daily News's.
	sections := page[strings.Index(page, `<section id="feed-1">`):]
	if c, s, n := strings.Index(sections, ">Town Council<"), strings.Index(sections, "Bridge opening ceremony"), strings.Index(sections, ">Daily News<"); c < 0 || s < c || n < s {
		t.Errorf("the story is not in the Council's section (%d, %d, %d)", c, s, n)
	}
	// Written again from the state, the page says the same.
	again := filepath.Join(t.TempDir(), "again")
	if _, err := Publish(context.Background(), cfg, again, at("2026-11-21T13:00:00Z")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(again, "ada", "2026-11-21.html")); got != page {
		t.Errorf("the page written again differs:\n%s\n----\n%s", got, page)
	}
}
