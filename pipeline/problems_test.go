package pipeline

import (
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

// A user whose only feed answers 404 every day is told so in every
// digest, page and email, and never that it was a quiet day.
func TestFeedThatAnswers404IsNamedEveryDay(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Respond("/feed", feedtest.Response{Status: 404})
		cfg := testConfig(t, state, `
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	feeds = [{ url = "`+pub.URL+`/feed", title = "Ada's Blog" }]
	`, "")
		for _, day := range []string{"2026-11-21", "2026-11-22", "2026-11-23"} {
			runAt(t, cfg, day+"T00:05:00Z")
			for what, got := range digestTexts(t, cfg.SiteDir, cfg.Email.Outbox, "ada", day) {
				if !strings.Contains(got, "Could not read") || !strings.Contains(got, "Ada's Blog: not found (404), since Sat 21 Nov 2026.") {
					t.Errorf("%s of %s does not name the feed and its 404 since the first day:\n%s", what, day, got)
				}
				if strings.Contains(got, "quiet day") || strings.Contains(got, "Nothing new was published") {
					t.Errorf("%s of %s says nothing was published", what, day)
				}
			}
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
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
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
		if strings.Contains(second, "Could not read") || !strings.Contains(second, "Title a-1") {
			t.Errorf("the second digest, after the feed was read again:\n%s", second)
		}
	})
}
