package pipeline

import (
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

var tag = regexp.MustCompile(`<[^>]*>`)

// readable is what a reader reads of an HTML page or a plain text: the
// text without tags, its white space collapsed.
func readable(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tag.ReplaceAllString(s, ""))), " ")
}

// digestTexts are user's page of day and both parts of its email, as read.
func digestTexts(t *testing.T, siteDir, outbox, user, day string) map[string]string {
	t.Helper()
	page, text, html := digestParts(t, siteDir, outbox, user, day)
	return map[string]string{"page": readable(page), "text": readable(text), "html": readable(html)}
}

// A user whose only feed answers 404 for a month is told so in the first
// digest, page and email, Subject included; then at most once a week, in
// a short line that the Subject does not repeat; and no day calls itself
// quiet, named or not.
func TestFeedThatFailsForAMonthIsNamedThenWeekly(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Respond("/feed", feedtest.Response{Status: 404})
		pub.Add("/quiet", entry("q-1", "2026-11-20T10:00:00Z")) // read, so the first digest is built
		cfg := testConfig(t, state, `
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	feeds = [{ url = "`+pub.URL+`/feed", title = "Ada's Blog" }, "`+pub.URL+`/quiet"]
	`, "")
		first := "Ada's Blog: not found (404), since Sat 21 Nov 2026."
		again := "Ada's Blog: still failing since Sat 21 Nov 2026: not found (404)."
		start := time.Date(2026, 11, 21, 0, 5, 0, 0, time.UTC)
		var named, subjects []string
		for i := range 30 {
			day := start.AddDate(0, 0, i).Format(time.DateOnly)
			runAt(t, cfg, day+"T00:05:00Z")
			texts := digestTexts(t, cfg.SiteDir, cfg.Email.Outbox, "ada", day)
			switch {
			case strings.Contains(texts["page"], first):
				named = append(named, day[8:])
			case strings.Contains(texts["page"], again):
				named = append(named, day[8:]+"+")
			}
			for what, got := range texts {
				if strings.Contains(got, "quiet day") || strings.Contains(got, "Nothing new was published") {
					t.Errorf("%s of %s says nothing was published", what, day)
				}
				if day != "2026-11-21" && !strings.Contains(got, "Nothing new from the feeds that could be read.") {
					t.Errorf("%s of %s does not say why nothing is new:\n%s", what, day, got)
				}
				shown := strings.Contains(got, first) || strings.Contains(got, again)
				if shown != strings.Contains(got, "Could not read") || shown != strings.Contains(texts["page"], "Could not read") {
					t.Errorf("%s of %s: the feed named %v, the page and this part disagree:\n%s", what, day, shown, got)
				}
			}
			eml := readFile(t, filepath.Join(cfg.Email.Outbox, "ada-"+day+".eml"))
			header := strings.ReplaceAll(eml[:strings.Index(eml, "\r\n\r\n")], "\r\n ", " ") // unfolded
			if strings.Contains(header, "could not be read") {
				subjects = append(subjects, day[8:])
			}
		}
		// Named on the 21st, reminded weekly from the 28th, the Subject
		// once.
		if got, want := strings.Join(named, " "), "21 28+ 05+ 12+ 19+"; got != want {
			t.Errorf("days naming the feed (+: a reminder): %s, want %s", got, want)
		}
		if got := strings.Join(subjects, " "); got != "21" {
			t.Errorf("days whose Subject names a problem: %s, want 21", got)
		}
	})
}

// A feed never read, without a title in the config, is named by its
// address: its host alone may be another feed's.
func TestFeedNeverReadIsNamedByItsAddress(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/good", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/good", pub.URL+"/missing.xml"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		page := readable(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html")))
		host := strings.TrimPrefix(pub.URL, "http://")
		if !strings.Contains(page, host+"/missing.xml: not found (404)") {
			t.Errorf("the missing feed is not named by its address:\n%s", page)
		}
	})
}

// What could not be read is recorded in the digest when it is built: a
// page written again later says the same, though the feed reads well by
// then; and a failure before the previous digest is not told again.
func TestFailedFeedsAreRecordedInTheDigest(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/feed", entry("a-1", "2026-11-20T10:00:00Z"))
		pub.Respond("/feed", feedtest.Response{Status: 503})
		pub.Add("/fine", entry("f-1", "2026-11-20T10:00:00Z")) // read, so the first digest is built
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed", pub.URL+"/fine"), "")
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		pub.Respond("/feed", feedtest.Response{})
		runAt(t, cfg, "2026-11-22T12:05:00Z") // the retry reads it
		runAt(t, cfg, "2026-11-23T00:05:00Z") // the next digest links the first page again
		// The page is written again only to link the next one: it keeps the
		// name the feed had when the page was written (its address, as it was
		// never read then), not the title learned since.
		first := readable(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html")))
		host := strings.TrimPrefix(pub.URL, "http://")
		if !strings.Contains(first, host+"/feed: server error (503), since Sun 22 Nov 2026.") || !strings.Contains(first, "Next:") {
			t.Errorf("the first page, written again, does not say what it said:\n%s", first)
		}
		second := readable(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-23.html")))
		if strings.Contains(second, "Could not read") || !strings.Contains(second, "Title a-1") || strings.Contains(second, "quiet day") {
			t.Errorf("the second digest, after the feed was read again:\n%s", second)
		}
	})
}

// A new user whose every feed is mistyped gets no digest, and each run
// says why; once a feed reads (the URL fixed in the config), the first
// digest is built at once, in the next run, not at the next digest hour.
func TestFirstDigestWaitsForAFeedThatReads(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/feed.xml", entry("a-1", "2026-11-20T10:00:00Z"), entry("a-2", "2026-11-20T11:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/fed.xml", pub.URL+"/missing"), "")
		for _, now := range []string{"2026-11-21T00:05:00Z", "2026-11-21T01:05:00Z"} {
			sum := runAt(t, cfg, now)
			if sum.DigestsBuilt != 0 || len(sum.Waiting) != 1 || !strings.Contains(sum.Waiting[0], "ada: no first digest yet: none of the feeds could be read") {
				t.Errorf("run at %s: %d built, waiting %q", now, sum.DigestsBuilt, sum.Waiting)
			}
		}
		if pages, _ := filepath.Glob(filepath.Join(cfg.SiteDir, "ada", "*-*-*.html")); len(pages) != 0 {
			t.Errorf("pages written for a user none of whose feeds was read: %v", pages)
		}
		cfg.Users[0].Feeds[0].URL = pub.URL + "/feed.xml" // the typo fixed
		sum := runAt(t, cfg, "2026-11-21T02:05:00Z")
		if sum.DigestsBuilt != 1 || len(sum.Waiting) != 0 {
			t.Fatalf("after the fix: %d built, waiting %q", sum.DigestsBuilt, sum.Waiting)
		}
		page := readable(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html")))
		for _, want := range []string{"Title a-1", "Title a-2", "Could not read"} {
			if !strings.Contains(page, want) {
				t.Errorf("the first digest lacks %q:\n%s", want, page)
			}
		}
	})
}
