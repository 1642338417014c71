package render

import (
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/internal/htmltest"
)

func problemDigest(t *testing.T) Digest {
	d := emptyDigest(t)
	d.Problems = []Problem{
		{FeedName: "Alpha", Problem: domain.Problem{FeedURL: "https://a.example/feed", State: domain.ProblemFailing, Reason: "not found (404)", Since: utc("2020-11-19T23:30:00Z")}},
		{Problem: domain.Problem{FeedURL: "https://b.example/feed", State: domain.ProblemRecovered, Reason: "server error (503)", Since: utc("2020-11-22T02:00:00Z"), Until: utc("2020-11-22T06:00:00Z")}},
		{FeedName: "Charlie", Problem: domain.Problem{FeedURL: "https://c.example/feed", State: domain.ProblemGone, Reason: "gone (410)", Since: utc("2020-11-21T00:05:00Z")}},
		{FeedName: "Delta", Problem: domain.Problem{FeedURL: "https://d.example/feed", State: domain.ProblemDead, Since: utc("2020-08-20T00:05:00Z")}},
	}
	return d
}

// A day on which feeds failed names them, with why and since when, on
// the page and in both parts of the email, and never calls itself quiet.
func TestFailedFeedsAreNamedNeverAQuietDay(t *testing.T) {
	d := problemDigest(t)
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	text, html := emailParts(t, d)
	lines := []string{
		"Alpha: not found (404), since Thu 19 Nov 2020.",
		"b.example: server error (503), from Sun 22 Nov 2020; read again on Sun 22 Nov 2020.",
		"Charlie: gone (410), since Sat 21 Nov 2020; no longer polled; you may want to unsubscribe.",
		"Delta: could not be read, since Thu 20 Aug 2020; no longer polled after 90 days of errors.",
	}
	doc := htmltest.Parse(t, string(page))
	for what, got := range map[string]string{
		"page": doc.Find("#unread li").Text(),
		"text": strings.Join(strings.Fields(text), " "),
		"html": htmltest.Parse(t, html).Find("li").Text(),
	} {
		for _, line := range lines {
			if !strings.Contains(got, line) {
				t.Errorf("%s does not say %q:\n%s", what, line, got)
			}
		}
		if strings.Contains(got, "quiet day") || strings.Contains(got, "Nothing new was published") {
			t.Errorf("%s calls a day with failed feeds quiet", what)
		}
	}
	for what, got := range map[string]string{"page": string(page), "text": text, "html": html} {
		if strings.Contains(got, "quiet day") || strings.Contains(got, "Nothing new was published") {
			t.Errorf("%s calls a day with failed feeds quiet", what)
		}
		if !strings.Contains(strings.Join(strings.Fields(got), " "), "Nothing new from the feeds that could be read.") {
			t.Errorf("%s does not say nothing came from the feeds that could be read", what)
		}
	}
	if got := doc.Find("#unread h2").Text(); got != "Could not read" {
		t.Errorf("section heading %q", got)
	}
	// A feed gone is told of once: not again among the feed changes.
	d.Notices = []Notice{{FeedName: "Charlie", Notice: domain.Notice{FeedURL: "https://c.example/feed", Kind: domain.NoticeGone}},
		{FeedName: "Echo", Notice: domain.Notice{FeedURL: "https://e.example/feed", Kind: domain.NoticeGone}}}
	page, _ = DigestPage(d)
	if n := strings.Count(string(page), "Charlie"); n != 1 || !strings.Contains(string(page), `<strong dir="auto">Echo</strong> is gone`) {
		t.Errorf("Charlie named %d times; Echo's notice kept: %v", n, strings.Contains(string(page), "Echo"))
	}
	// Dates are the reader's: 23:30 UTC on the 19th is the 20th in Tokyo.
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	d.Location = tokyo
	page, _ = DigestPage(d)
	if !strings.Contains(string(page), "Fri 20 Nov 2020") {
		t.Error("the first error's date is not in the reader's zone")
	}
}

// With entries, the failed feeds come after them and the contents list
// them too.
func TestFailedFeedsFollowTheEntries(t *testing.T) {
	d := sampleDigest(t)
	d.Problems = problemDigest(t).Problems[:1]
	doc, page := digestDoc(t, d)
	checkHeadingOrder(t, doc)
	last := strings.LastIndex(string(page), "<article>")
	unread := strings.Index(string(page), `<section id="unread">`)
	if last < 0 || unread < last {
		t.Error("Could not read does not come after the entries")
	}
	if got := doc.Find(`nav[aria-label="Contents"] a[href="#unread"]`).Parent().Text(); got != "Could not read 1 feed" {
		t.Errorf("contents line %q", got)
	}
	text, html := emailParts(t, d)
	for what, got := range map[string]string{"text": text, "html": html} {
		// Links mentioned, at the very end, names entries again.
		got, _, _ = strings.Cut(got, "Links mentioned")
		if i, j := strings.Index(got, "Could not read"), strings.LastIndex(got, "Could not read"); i == j || j < strings.LastIndex(got, "Links of the week") {
			t.Errorf("%s: Could not read is not listed in the contents and after the entries", what)
		}
	}
	if strings.Contains(string(page), "Nothing new") {
		t.Error("a page with entries says nothing is new")
	}
}

// A feed named before that goes on failing is a short reminder, on the
// page and in both parts of the email, and the Subject does not mention
// it: only a problem named for the first time reaches the Subject.
func TestStillFailingIsAShortReminderNeverInTheSubject(t *testing.T) {
	d := emptyDigest(t)
	d.Problems = []Problem{{FeedName: "Alpha", Problem: domain.Problem{FeedURL: "https://a.example/feed", State: domain.ProblemFailing,
		Reason: "not found (404)", Since: utc("2020-11-19T23:30:00Z"), Again: true}}}
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	e := buildEmail(t, d, "")
	line := "Alpha: still failing since Thu 19 Nov 2020: not found (404)."
	for what, got := range map[string]string{
		"page": htmltest.Parse(t, string(page)).Find("#unread li").Text(),
		"text": strings.Join(strings.Fields(e.Text), " "),
		"html": htmltest.Parse(t, e.HTML).Find("li").Text(),
	} {
		if !strings.Contains(got, line) {
			t.Errorf("%s does not say %q:\n%s", what, line, got)
		}
	}
	if strings.Contains(e.Subject, "could not be read") {
		t.Errorf("a reminder reaches the Subject: %q", e.Subject)
	}
	d.Problems[0].Again = false
	if e := buildEmail(t, d, ""); !strings.Contains(e.Subject, "1 feed could not be read") {
		t.Errorf("a problem named for the first time is not in the Subject: %q", e.Subject)
	}
}
