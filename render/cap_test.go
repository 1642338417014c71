package render

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"feeddigest/domain"
	"feeddigest/internal/smtptest"
)

// bigDigest has feeds × perFeed entries with long titles and texts.
func bigDigest(t *testing.T, feeds, perFeed int) Digest {
	d := sampleDigest(t)
	d.Groups = nil
	words := strings.Repeat("lorem ipsum dolor sit amet ", 30)
	for f := range feeds {
		g := FeedGroup{FeedURL: fmt.Sprintf("https://f%d.example/feed", f), FeedName: fmt.Sprintf("Feed %d", f),
			SiteURL: fmt.Sprintf("https://f%d.example/", f), More: 10}
		for e := range perFeed {
			g.Entries = append(g.Entries, domain.Entry{Title: fmt.Sprintf("Entry %d-%d %s", f, e, words), Author: "Someone",
				Link: fmt.Sprintf("https://f%d.example/%d", f, e), Content: "<p>" + words + "</p>",
				Published: d.BuiltAt.Add(-time.Duration(e) * time.Minute)})
		}
		d.Groups = append(d.Groups, g)
	}
	return d
}

func TestEmailStaysUnderTheSizeBound(t *testing.T) {
	d := bigDigest(t, 40, 50) // 2000 entries: about 2.4 MB in full
	raw := buildEmail(t, d, "https://example.org/digest/")
	if len(raw) > MaxEmailSize {
		t.Fatalf("email of %d bytes, bound %d", len(raw), MaxEmailSize)
	}
	_, parts := smtptest.ReadAlternative(t, raw)
	text, page := parts["text/plain"], parts["text/html"]
	kept := strings.Count(text, "\n* Entry ")
	if kept == 0 || kept >= 2000 || strings.Count(page, "<h3") != kept {
		t.Fatalf("%d entries in the text part, %d in the HTML part, of 2000", kept, strings.Count(page, "<h3"))
	}
	// Well used: a tenth more would not have fit, a tenth less would.
	if len(raw) < MaxEmailSize*9/10 {
		t.Errorf("email of %d bytes: the bound is %d", len(raw), MaxEmailSize)
	}
	if !strings.Contains(text, "Entry 0-0 ") || strings.Contains(text, "Entry 39-49 ") {
		t.Error("the email does not keep the first entries")
	}
	note := fmt.Sprintf("This email had room for the first %d entries. The other %d are on this digest's page.", kept, 2000-kept)
	if !strings.Contains(strings.Join(strings.Fields(text), " "), note) {
		t.Errorf("the plain text does not say %q", note)
	}
	if !strings.Contains(text, "https://example.org/digest/ada/2020-11-22.html") {
		t.Error("the plain text does not link the page")
	}
	if !strings.Contains(page, fmt.Sprintf("This email had room for the first %d entries. The other %d are on <a href=\"https://example.org/digest/ada/2020-11-22.html\"", kept, 2000-kept)) {
		t.Error("the HTML part does not say where the rest is")
	}
	if strings.Contains(text, "Nothing new") || strings.Contains(page, "Nothing new") {
		t.Error("a cut email says nothing is new")
	}
	// A digest under the bound is whole and says nothing of the kind.
	small := buildEmail(t, bigDigest(t, 2, 5), "")
	if strings.Contains(string(small), "had room") {
		t.Error("a small email says it was cut")
	}
}

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
	_, parts := smtptest.ReadAlternative(t, buildEmail(t, d, ""))
	text := strings.ReplaceAll(parts["text/plain"], "\r\n", "\n")
	if !strings.Contains(text, "\n…and 450 more entries at https://blog.example.org/\n") ||
		!strings.Contains(text, "\n…and 1 more entry, not listed here.\n") {
		t.Errorf("plain text:\n%s", text)
	}
	if !strings.Contains(parts["text/html"], `…and 450 more entries at <a href="https://blog.example.org/"`) {
		t.Error("the HTML part does not say how many more")
	}
	atom, err := AtomFeed("ada", "", []Digest{d}, d.BuiltAt)
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
	_, parts := smtptest.ReadAlternative(t, buildEmail(t, d, ""))
	for what, text := range map[string]string{"page": string(page), "text": parts["text/plain"], "html": parts["text/html"]} {
		for _, long := range []string{strings.Repeat("Feedname ", 20), strings.Repeat("Author ", 25)} {
			if strings.Contains(text, long) {
				t.Errorf("%s: a name is not cut", what)
			}
		}
		if !strings.Contains(text, "Feedname Feedname") || !strings.Contains(text, "Author Author") {
			t.Errorf("%s: a name is lost", what)
		}
	}
	if n := utf8.RuneCountInString(shortName(strings.Repeat("x", 5000))); n > maxTitleLen+1 {
		t.Errorf("a one-word name cut to %d characters", n)
	}
}
