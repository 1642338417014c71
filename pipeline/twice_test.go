package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
)

// A feed the user lists twice, under two titles, one line an old address
// whose chain of permanent redirects (301, then 308) lands on the other:
// after the pass that finds the chain, the address is polled once a pass;
// each entry is shown once, under the first of the two lines (its title),
// never "also in" itself; the heading counts it once; and the run names
// the line that repeats the other. Whichever of the two lines comes first.
func TestAFeedListedTwiceIsReadAndShownOnce(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		for _, c := range []struct {
			name            string
			lines           []string // the user's feeds, in order
			heading, hidden string   // the feed's title on the page, and the one that must not show
			warning         string
		}{
			{"the old address listed last",
				[]string{"/news", `{ url = "%s/coastal", title = "Coastal Voices" }`, "/tide", `{ url = "%s/old", title = "Coast Radio" }`},
				"Coastal Voices", "Coast Radio", `feeds[3] (%[1]s/old) now leads to the same feed as feeds[1] (%[1]s/coastal)`},
			{"the old address listed first",
				[]string{"/news", `{ url = "%s/old", title = "Coast Radio" }`, "/tide", `{ url = "%s/coastal", title = "Coastal Voices" }`},
				"Coast Radio", "Coastal Voices", `feeds[3] (%[1]s/coastal) now leads to the same feed as feeds[1] (%[1]s/old)`},
		} {
			t.Run(c.name, func(t *testing.T) {
				pub := twiceServer(t)
				cfg := testConfig(t, state, twiceUser(pub, c.lines...), "")
				first := runAt(t, cfg, "2026-11-21T12:00:00Z")
				warning := fmt.Sprintf(c.warning, pub.URL)
				if len(first.SameFeeds) != 1 || !strings.Contains(first.SameFeeds[0], warning) {
					t.Errorf("the run says %q, want one warning with %q", first.SameFeeds, warning)
				}
				page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
				checkShownOnceUnder(t, page, c.heading, c.hidden, "c-1", "c-2", "c-3")
				if !strings.Contains(page, "7 new entries from 3 feeds") {
					t.Errorf("the first digest does not count the feed once (7 new entries from 3 feeds):\n%s", page)
				}

				// The next day: one request for the feed, its new entry once.
				pub.Add("/coastal", entry("c-4", "2026-11-21T20:00:00Z"))
				before := map[string]int{"/coastal": pub.Count("/coastal"), "/old": pub.Count("/old"), "/mid": pub.Count("/mid")}
				next := runAt(t, cfg, "2026-11-22T00:05:00Z")
				for path, want := range map[string]int{"/coastal": 1, "/old": 0, "/mid": 0} {
					if got := pub.Count(path) - before[path]; got != want {
						t.Errorf("the second pass asked %s %d times, want %d (requests %q)", path, got, want, pub.Requests())
					}
				}
				if next.Requests != 3 {
					t.Errorf("the second pass made %d requests, want 3 (news, tide, the feed listed twice once)", next.Requests)
				}
				page = readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html"))
				checkShownOnceUnder(t, page, c.heading, c.hidden, "c-4")
				if !strings.Contains(page, "1 new entry from 1 feed") {
					t.Errorf("the second digest does not count the entry once (1 new entry from 1 feed):\n%s", page)
				}
				if n := delivered(t, cfg, "ada")["c-1"]; n != 1 {
					t.Errorf("c-1 is on %d pages, want 1", n)
				}
				// The digests hold each entry once: the archive counts them so.
				if got := entryCounts(t, cfg); got != "2026-11-22:1 2026-11-21:7" {
					t.Errorf("the digests hold %s entries, want 2026-11-22:1 2026-11-21:7", got)
				}
			})
		}
	})
}

// A user who follows an old address adds the new one above it, the
// address its chain of redirects lands on: the entries already shown
// are not shown again, the next entry comes once, under the new line,
// first in the config.
func TestANewAddressAddedAboveTheOldOneShowsNothingAgain(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := twiceServer(t)
		cfg := testConfig(t, state, twiceUser(pub, "/news", `{ url = "%s/old", title = "Coast Radio" }`), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		checkShownOnceUnder(t, page, "Coast Radio", "Coastal Voices", "c-1", "c-2", "c-3")

		cfg = rewriteUsers(t, cfg, twiceUser(pub, "/news", `{ url = "%s/coastal", title = "Coastal Voices" }`, `{ url = "%s/old", title = "Coast Radio" }`))
		pub.Add("/coastal", entry("c-4", "2026-11-21T20:00:00Z"))
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		page = readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html"))
		checkShownOnceUnder(t, page, "Coastal Voices", "Coast Radio", "c-4")
		for _, old := range []string{"c-1", "c-2", "c-3"} {
			if strings.Contains(page, "Title "+old+"<") {
				t.Errorf("%s, shown the day before, is shown again", old)
			}
		}
	})
}

// twiceServer serves three feeds, /news, /tide and /coastal (three
// entries), and an old address of /coastal: /old answers 301 onto /mid,
// which answers 308 onto /coastal.
func twiceServer(t *testing.T) *feedtest.Server {
	pub := feedtest.Start(t)
	pub.Add("/news", entry("news-1", "2026-11-20T09:00:00Z"), entry("news-2", "2026-11-20T10:00:00Z"))
	pub.Add("/tide", entry("tide-1", "2026-11-20T09:30:00Z"), entry("tide-2", "2026-11-20T10:30:00Z"))
	pub.Add("/coastal", entry("c-1", "2026-11-20T08:00:00Z"), entry("c-2", "2026-11-20T11:00:00Z"), entry("c-3", "2026-11-20T12:00:00Z"))
	pub.Redirect("/old", "/mid", http.StatusMovedPermanently)
	pub.Redirect("/mid", "/coastal", http.StatusPermanentRedirect)
	return pub
}

// twiceUser is the users block of ada, whose feeds are lines: a path of
// pub, or an inline table with %s where pub's URL goes.
func twiceUser(pub *feedtest.Server, lines ...string) string {
	var feeds []string
	for _, l := range lines {
		if strings.HasPrefix(l, "/") {
			feeds = append(feeds, fmt.Sprintf("%q", pub.URL+l))
			continue
		}
		feeds = append(feeds, strings.ReplaceAll(l, "%s", pub.URL))
	}
	return "[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [\n  " + strings.Join(feeds, ",\n  ") + ",\n]\n"
}

// rewriteUsers replaces the users block of cfg's file (from its first
// [[users]]) by users, and loads it again.
func rewriteUsers(t *testing.T, cfg *config.Config, users string) *config.Config {
	t.Helper()
	text := readFile(t, cfg.Path)
	text = text[:strings.Index(text, "[[users]]")] + users
	if err := os.WriteFile(cfg.Path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := config.Load(cfg.Path)
	if err != nil {
		t.Fatal(err)
	}
	return again
}

// checkShownOnceUnder checks that page shows each of ids once, in the
// section headed by heading, that no section is headed by hidden, and
// that nothing is "also in" another feed.
func checkShownOnceUnder(t *testing.T, page, heading, hidden string, ids ...string) {
	t.Helper()
	if regexp.MustCompile(`(?i)also in`).MatchString(page) {
		t.Error("the page says an entry is also in another feed")
	}
	// A notice may say that the line moved; neither the contents nor a
	// section name it.
	if regexp.MustCompile(`(<h2 class="f" dir="auto">(<a [^>]*>)?|<a href="#feed-\d+" dir="auto">)` + regexp.QuoteMeta(hidden) + `<`).MatchString(page) {
		t.Errorf("the page has a section of %q, the line that repeats the first", hidden)
	}
	head := regexp.MustCompile(`<h2 class="f" dir="auto">(<a [^>]*>)?` + regexp.QuoteMeta(heading) + `(</a>)?</h2>`).FindStringIndex(page)
	if head == nil {
		t.Fatalf("no section headed %q:\n%s", heading, page)
	}
	section := page[head[1]:]
	if end := strings.Index(section, "</section>"); end >= 0 {
		section = section[:end]
	}
	for _, id := range ids {
		if n := strings.Count(page, "Title "+id+"<"); n != 1 {
			t.Errorf("%s is shown %d times, want once", id, n)
		}
		if !strings.Contains(section, "Title "+id+"<") {
			t.Errorf("%s is not under %q", id, heading)
		}
	}
}

// entryCounts is how many entries each of ada's digests holds, newest
// first ("date:count date:count").
func entryCounts(t *testing.T, cfg *config.Config) string {
	t.Helper()
	st, err := OpenReader(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	digests, err := st.Digests(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range digests {
		out = append(out, fmt.Sprintf("%s:%d", d.Date, d.EntryCount))
	}
	return strings.Join(out, " ")
}
