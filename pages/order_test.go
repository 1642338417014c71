package pages

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/render"
)

// Folders, and the feeds without one, come at the place of their first
// feed in the user's config, even when that feed has nothing new today
// (DESIGN section 4: "at the place of the first of them").
func TestFoldersAtTheirFirstFeedInTheConfig(t *testing.T) {
	u := config.User{Name: "ada", Feeds: []config.Subscription{
		{URL: "https://quiet.example/feed"}, // no folder, nothing new
		{URL: "https://science.example/feed", Folder: "Science"},
		{URL: "https://quiet-art.example/feed", Folder: "Art"}, // nothing new
		{URL: "https://loud.example/feed", Title: "Loud"},      // no folder
		{URL: "https://art.example/feed", Folder: "Art"},
		{URL: "https://more-science.example/feed", Folder: "Science"},
	}}
	group := func(url string) *render.FeedGroup {
		return &render.FeedGroup{FeedURL: url, FeedName: strings.TrimSuffix(strings.TrimPrefix(url, "https://"), ".example/feed"),
			Entries: []domain.Entry{{Title: "news of " + url, Link: url + "/1"}}}
	}
	byFeed := map[string]*render.FeedGroup{}
	for _, url := range []string{"https://science.example/feed", "https://loud.example/feed", "https://art.example/feed", "https://more-science.example/feed"} {
		byFeed[url] = group(url)
	}
	groups := inUserOrder(u, byFeed)
	var got []string
	for _, g := range groups {
		got = append(got, g.Folder+"/"+g.FeedName)
	}
	want := "/Loud, Science/science, Science/more-science, Art/art"
	if strings.Join(got, ", ") != want {
		t.Errorf("groups %s, want %s", strings.Join(got, ", "), want)
	}

	// And the page shows them so: the unfoldered feed first, then the
	// folders.
	page, err := render.DigestPage(render.Digest{User: "ada", Date: "2026-11-22", Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(page)))
	if err != nil {
		t.Fatal(err)
	}
	var sections []string
	doc.Find("main section[id^=feed-] .f").Each(func(_ int, s *goquery.Selection) { sections = append(sections, s.Text()) })
	if strings.Join(sections, ",") != "Loud,science,more-science,art" {
		t.Errorf("sections %v, want Loud, science, more-science, art", sections)
	}
}
