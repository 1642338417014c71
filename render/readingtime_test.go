package render

import (
	"strings"
	"testing"

	"feeddigest/ingest"
	"feeddigest/internal/htmltest"
)

// An entry of 200 words or more says how long it takes to read at 230
// words a minute, rounded to the nearest minute and never below one.
func TestReadingTime(t *testing.T) {
	for _, c := range []struct {
		words int
		want  string
	}{
		{0, ""}, {199, ""}, {200, "1 min read"}, {344, "1 min read"}, {345, "2 min read"},
		{1610, "7 min read"}, {3000, "13 min read"},
	} {
		if got := readingTime(nil, c.words); got != c.want {
			t.Errorf("readingTime(%d) = %q, want %q", c.words, got, c.want)
		}
	}
}

// The reading time is counted once, in the fragments, from the text
// without its markup, and shown on the page and in both parts of the
// email beside the author and time; 199 words show none.
func TestReadingTimeShown(t *testing.T) {
	words := func(n int) string { return "<p>" + strings.Repeat("<b>word</b> ", n) + "</p>" }
	for _, c := range []struct {
		words int
		want  string
	}{{199, ""}, {200, "1 min read"}, {3000, "13 min read"}} {
		d := sampleDigest(t)
		e := &d.Groups[0].Entries[0]
		e.Content = words(c.words)
		if got := ingest.MakeFragments(d.Groups[0].FeedURL, *e).Words; got != c.words {
			t.Errorf("%d words counted as %d", c.words, got)
		}
		doc, _ := digestDoc(t, d)
		meta := doc.Find(`article:has(a[href="https://blog.example.org/posts/hello"]) p.m`).First().Text()
		text, html := emailParts(t, d)
		mailMeta := htmltest.Parse(t, html).Find(`h3:has(a[href="https://blog.example.org/posts/hello"]), h4:has(a[href="https://blog.example.org/posts/hello"])`).Next().Text()
		for where, got := range map[string]string{"page": meta, "email": mailMeta} {
			if c.want == "" && strings.Contains(got, "min read") {
				t.Errorf("%d words: %s meta line %q has a reading time", c.words, where, got)
			}
			if c.want != "" && !strings.HasSuffix(got, " · "+c.want) {
				t.Errorf("%d words: %s meta line %q, want it to end with %q", c.words, where, got, c.want)
			}
		}
		if c.want != "" && !strings.Contains(text, "  Ada · 21 Nov 2020, 14:05 · "+c.want+"\n") {
			t.Errorf("%d words: the text part has no reading time:\n%s", c.words, text)
		}
		if c.want == "" && strings.Contains(text, "min read") {
			t.Errorf("%d words: the text part has a reading time", c.words)
		}
	}
	// Stored fragments carry the count: no text is read again to show it.
	d := sampleDigest(t)
	e := &d.Groups[0].Entries[0]
	e.Fragments = ingest.MakeFragments(d.Groups[0].FeedURL, *e)
	e.Fragments.Words = 1610
	e.Content = ""
	doc, _ := digestDoc(t, d)
	if got := doc.Find(`article:has(a[href="https://blog.example.org/posts/hello"]) p.m`).Text(); !strings.HasSuffix(got, "7 min read") {
		t.Errorf("meta line %q does not show the stored count's reading time", got)
	}
}
