package render

import (
	"strings"
	"testing"
)

func TestMoreEntriesLineOnPageAndEmail(t *testing.T) {
	d := sampleDigest(t)
	d.Groups[0].More = 450
	d.Groups[1].More = 1 // no site link
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`…and 450 more entries at <a href="https://blog.example.org/" rel="noopener noreferrer">blog.example.org</a>.`,
		`…and 1 more entry, not listed here.`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page: no %s", want)
		}
	}
	e := buildEmail(t, d, "")
	text := e.Text
	if !strings.Contains(text, "\n…and 450 more entries at https://blog.example.org/\n") ||
		!strings.Contains(text, "\n…and 1 more entry, not listed here.\n") {
		t.Errorf("plain text:\n%s", text)
	}
	if !strings.Contains(e.HTML, `…and 450 more entries at <a href="https://blog.example.org/"`) {
		t.Error("the HTML part does not say how many more")
	}
	atom, err := AtomFeed("ada", nil, testSite, []Digest{d}, d.BuiltAt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(atom), "…and 450 more") || !strings.Contains(string(atom), "&lt;p&gt;454 entries") {
		t.Errorf("feed.xml does not count the entries not listed:\n%s", atom)
	}
}

func TestLongFeedNamesAndAuthorsAreCut(t *testing.T) {
	d := sampleDigest(t)
	d.Groups[0].FeedName = strings.Repeat("Feedname ", 2000)
	d.Groups[0].Entries[0].Author = strings.Repeat("Author ", 2000)
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	e := buildEmail(t, d, "")
	for what, text := range map[string]string{"page": string(page), "text": e.Text, "html": e.HTML} {
		for _, long := range []string{strings.Repeat("Feedname ", 20), strings.Repeat("Author ", 25)} {
			if strings.Contains(text, long) {
				t.Errorf("%s: a name is not cut", what)
			}
		}
		if !strings.Contains(text, "Feedname Feedname") || !strings.Contains(text, "Author Author") {
			t.Errorf("%s: a name is lost", what)
		}
	}
}
