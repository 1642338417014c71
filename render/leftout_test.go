package render

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/domain"
	"feeddigest/internal/htmltest"
)

// What rules left out is one quiet line on the page and in both email
// parts, never in the counts; a day on which rules left out everything
// never says nothing was published.
func TestLeftOutLine(t *testing.T) {
	for _, tt := range []struct {
		name    string
		d       Digest
		subject string // how much the subject says is new
	}{
		{"with entries", goldenDigest(t), "4 new from 3 feeds, 1 feed could not be read"},
		{"all left out", emptyDigest(t), "nothing new"},
	} {
		tt.d.LeftOut = 3
		tt.d.Email = "ada@example.org"
		page, err := DigestPage(tt.d)
		if err != nil {
			t.Fatal(err)
		}
		draft, err := DigestEmail(tt.d, "d@example.org", "")
		if err != nil {
			t.Fatal(err)
		}
		mail, err := draft.FirstEntries(draft.Entries())
		if err != nil {
			t.Fatal(err)
		}
		for part, got := range map[string]string{"page": string(page), "text": mail.Text, "html": mail.HTML} {
			if strings.Count(got, "3 left out by your rules.") != 1 {
				t.Errorf("%s: %s does not say once that 3 were left out", tt.name, part)
			}
			if strings.Contains(got, "Enjoy the quiet day") {
				t.Errorf("%s: %s calls a day with entries left out quiet", tt.name, part)
			}
		}
		if !strings.HasSuffix(mail.Subject, ": "+tt.subject) {
			t.Errorf("%s: subject %q, want it to end %q (left out never counted)", tt.name, mail.Subject, tt.subject)
		}
	}
	page, err := DigestPage(emptyDigest(t))
	if err != nil || strings.Contains(string(page), "left out") {
		t.Errorf("a digest without rules speaks of them (%v)", err)
	}
}

// The page's quiet line opens a collapsed list of what the rules left
// out, linked titles (an untitled entry by its link), bounded, with "and
// N more" for those the digest did not keep; the email keeps the line.
func TestLeftOutLineOpensTheirTitles(t *testing.T) {
	d := emptyDigest(t)
	d.Email = "ada@example.org"
	d.LeftOut = 103
	d.LeftOutTitles = []domain.LeftOutTitle{
		{Title: "Sponsored: a mattress", Link: "/ads/1", Feed: "https://a.example/feed"},
		{Link: "https://a.example/ads/2?utm_source=rss", Feed: "https://a.example/feed"},
		{Title: "Giveaway <b>now</b>", Link: "javascript:alert(1)", Feed: "https://a.example/feed"},
	}
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.Parse(t, string(page))
	details := doc.Find("main details.m")
	if details.Length() != 1 || details.Is("[open]") || details.Find("summary").Text() != "103 left out by your rules" {
		t.Fatalf("the quiet line does not open a closed list: %q", details.Find("summary").Text())
	}
	var items []string
	details.Find("li").Each(func(_ int, li *goquery.Selection) {
		items = append(items, strings.TrimSpace(li.Text())+" -> "+li.Find("a").AttrOr("href", ""))
	})
	want := []string{"Sponsored: a mattress -> https://a.example/ads/1", "https://a.example/ads/2 -> https://a.example/ads/2",
		"Giveaway now -> ", "…and 100 more -> "}
	if strings.Join(items, "\n") != strings.Join(want, "\n") {
		t.Errorf("left-out list:\n%s\nwant\n%s", strings.Join(items, "\n"), strings.Join(want, "\n"))
	}
	e := buildEmail(t, d, "")
	if !strings.Contains(e.Text, "103 left out by your rules.") || strings.Contains(e.HTML, "mattress") {
		t.Error("the email does not keep the quiet line alone")
	}
}
