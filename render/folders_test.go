package render

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/domain"
	"feeddigest/internal/htmltest"
)

// folderDigest has feeds in the user's order: a folder's second feed
// comes after feeds of other folders, and feeds without a folder are
// spread out.
func folderDigest(t *testing.T) Digest {
	d := sampleDigest(t)
	one := func(url, name, folder string, n int) FeedGroup {
		g := FeedGroup{FeedURL: url, FeedName: name, Folder: folder}
		for range n {
			g.Entries = append(g.Entries, domain.Entry{Title: name + " entry", Link: url + "/post"})
		}
		return g
	}
	d.Groups = []FeedGroup{
		one("https://a.example/feed", "Alpha", "Science", 2),
		one("https://b.example/feed", "Bravo", "", 1),
		one("https://c.example/feed", "Charlie", "Art", 1),
		one("https://d.example/feed", "Delta", "Science", 1),
		one("https://e.example/feed", "Echo", "", 1),
	}
	d.Groups[0].More = 3 // 2 listed, 3 more: 5 in all
	return d
}

// The order a reader expects: folders by their first feed, the feeds
// without a folder as one folder at the place of the first of them.
var wantFeedOrder = []string{"Alpha", "Delta", "Bravo", "Echo", "Charlie"}

func TestSectionsFollowFoldersInTheUsersOrder(t *testing.T) {
	d := folderDigest(t)
	doc, _ := digestDoc(t, d)
	checkHeadingOrder(t, doc)

	var feeds []string
	doc.Find("main section[id^=feed-]").Each(func(_ int, s *goquery.Selection) {
		feeds = append(feeds, s.Find(".f").Text())
	})
	if strings.Join(feeds, ",") != strings.Join(wantFeedOrder, ",") {
		t.Errorf("sections %v, want %v", feeds, wantFeedOrder)
	}
	var folders []string
	doc.Find("main h2.d").Each(func(_ int, h *goquery.Selection) { folders = append(folders, h.Text()) })
	if strings.Join(folders, ",") != "Science,Art" {
		t.Errorf("folder headings %v, want Science, Art", folders)
	}
	// A feed in a folder is a level below the folder's heading; a feed
	// outside the folders is a section of its own.
	if doc.Find("h2.d").Parent().ChildrenFiltered("section").ChildrenFiltered("h3.f").Length() != 3 || doc.Find("main > section > h2.f").Length() != 2 {
		t.Error("feeds are not nested under their folders")
	}

	// The table of contents: the total in its heading, then each folder
	// and feed with its count, linked to its section.
	toc := doc.Find(`main nav[aria-label="Contents"]`)
	if toc.Length() != 1 {
		t.Fatal("no table of contents")
	}
	if got := toc.Find("h2").Text(); got != "9 new entries from 5 feeds" {
		t.Errorf("contents heading %q", got)
	}
	var items []string
	toc.Find("a").Each(func(_ int, a *goquery.Selection) {
		href := a.AttrOr("href", "")
		target := doc.Find(href)
		if !strings.HasPrefix(href, "#") || target.Length() != 1 || target.Find(".f").Text() != a.Text() {
			t.Errorf("contents link %q to %q does not lead to its section", a.Text(), href)
		}
		items = append(items, a.Text()+" "+a.Next().Text())
	})
	if got := strings.Join(items, ", "); got != "Alpha 2 of 5 entries, Delta 1 entry, Bravo 1 entry, Echo 1 entry, Charlie 1 entry" {
		t.Errorf("contents: %s", got)
	}
	if got := toc.Find("ul.c > li").First().Contents().First().Text(); strings.TrimSpace(got) != "Science" {
		t.Errorf("contents do not open with the folder Science: %q", got)
	}

	// Both parts of the email keep the same order and the folders: in
	// plain text a folder is underlined with "=", its feeds with "-", and
	// a feed outside the folders is a section as a folder is.
	text, html := emailParts(t, d)
	last := -1
	for _, h := range []string{"Science\n=======", "Alpha\n-----", "Delta\n-----", "Bravo\n=====", "Echo\n====", "Art\n===", "Charlie\n-------"} {
		i := strings.Index(text, "\n\n"+h+"\n")
		if i <= last {
			t.Fatalf("plain text: heading %q missing or out of order:\n%s", h, text)
		}
		last = i
	}
	if !strings.Contains(text, "9 new entries from 5 feeds:\n  Science\n    Alpha: 2 of 5 entries\n    Delta: 1 entry\n  Bravo: 1 entry\n") {
		t.Errorf("plain text lacks the contents:\n%s", text)
	}
	var headings []string
	htmltest.Parse(t, html).Find("h2, h3").Each(func(_ int, h *goquery.Selection) {
		if !strings.HasSuffix(h.Text(), " entry") {
			headings = append(headings, h.Text())
		}
	})
	if got := strings.Join(headings, ","); got != "Feed changes,Science,Alpha,Delta,Bravo,Echo,Art,Charlie" {
		t.Errorf("HTML part headings: %s", got)
	}
	if !strings.Contains(html, "9 new entries from 5 feeds") {
		t.Error("HTML part does not give the total")
	}
}

// emailParts is the plain text and the HTML of d's email.
func emailParts(t *testing.T, d Digest) (text, html string) {
	t.Helper()
	e := buildEmail(t, d, "")
	return e.Text, e.HTML
}
