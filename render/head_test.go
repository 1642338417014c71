package render

import (
	"strings"
	"testing"

	"feeddigest/internal/htmltest"
)

func TestUserPagesLinkTheirFeedIconAndNeighbours(t *testing.T) {
	d := sampleDigest(t)
	d.Prev, d.Next = DigestRef{Date: "2020-11-21"}, DigestRef{Date: "2020-11-23"}
	doc, _ := digestDoc(t, d)
	index, err := IndexPage("ada", nil, &d, nil)
	if err != nil {
		t.Fatal(err)
	}
	status, err := StatusPage(sampleStatus(), nil, utc("2020-11-22T00:10:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{"digest": "../favicon.svg", "index": "../favicon.svg", "status": "favicon.svg"}
	for name, icon := range pages {
		page := doc
		switch name {
		case "index":
			page = htmltest.Parse(t, string(index))
		case "status":
			page = htmltest.Parse(t, string(status))
		}
		if got := page.Find(`head link[rel="icon"][type="image/svg+xml"]`).AttrOr("href", ""); got != icon {
			t.Errorf("%s: icon %q, want %q (the site's own, by a relative address)", name, got, icon)
		}
		feed := page.Find(`head link[rel="alternate"][type="application/atom+xml"]`)
		if name == "status" {
			if feed.Length() != 0 {
				t.Error("status.html names a user's feed")
			}
			continue
		}
		if feed.AttrOr("href", "") != "feed.xml" || !strings.Contains(feed.AttrOr("title", ""), "ada") {
			t.Errorf("%s: feed link %q %q", name, feed.AttrOr("href", ""), feed.AttrOr("title", ""))
		}
	}
	pager := doc.Find(`nav[aria-label="Older and newer digests"]`)
	if pager.Find(`a[rel="prev"]`).AttrOr("href", "") != "2020-11-21.html" || pager.Find(`a[rel="next"]`).AttrOr("href", "") != "2020-11-23.html" {
		t.Errorf("pager: %s", pager.Text())
	}
	if !strings.Contains(pager.Text(), "Saturday 21 November 2020") {
		t.Errorf("the previous digest is not named by its date: %q", pager.Text())
	}
	// The newest digest has no next one; the first has no previous one.
	d.Prev, d.Next = DigestRef{}, DigestRef{}
	alone, _ := digestDoc(t, d)
	if alone.Find(`a[rel="prev"], a[rel="next"], nav[aria-label="Older and newer digests"]`).Length() != 0 {
		t.Error("a lone digest links neighbours")
	}
}

// A weekly digest's words fit a week: its pager names the digest before
// it by the days it covers, as the archive does, and a week with nothing
// new is a quiet week, never a quiet day.
func TestWeeklyWordsFitAWeek(t *testing.T) {
	d := emptyDigest(t)
	d.Weekly = true
	d.Prev = DigestRef{Date: "2020-11-09", Weekly: true, Since: utc("2020-11-09T00:05:00Z"), BuiltAt: utc("2020-11-16T00:05:00Z")}
	doc, _ := digestDoc(t, d)
	if got := doc.Find(`a[rel="prev"]`).Text(); got != "Previous: 9-16 November 2020" {
		t.Errorf("the previous weekly digest is named %q, want its days as the archive names them", got)
	}
	e := buildEmail(t, d, "")
	for what, got := range map[string]string{"page": doc.Text(), "text": e.Text, "html": e.HTML} {
		got = strings.Join(strings.Fields(got), " ")
		if strings.Contains(got, "quiet day") || strings.Contains(got, "yesterday") || !strings.Contains(got, "Enjoy the quiet week.") {
			t.Errorf("the %s of an empty weekly digest does not speak of a week:\n%s", what, got)
		}
	}
}
