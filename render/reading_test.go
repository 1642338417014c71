package render

import (
	"strings"
	"testing"
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
		if got := readingTime(c.words); got != c.want {
			t.Errorf("readingTime(%d) = %q, want %q", c.words, got, c.want)
		}
	}
}

func TestCountWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"one two three", 3},
		{"one · two — three", 3},                  // separators are no words
		{"It's 2026, isn't it?", 4},               // punctuation belongs to its word
		{"今日は良い天気です", 5},                          // 9 characters, half a word each, rounded up
		{"東京 Tokyo", 2},                           // a Latin word beside two characters
		{"오늘은 날씨가 좋습니다", 3},                       // Korean has spaces
		{"مرحبا بالعالم، كيف حالك؟", 4},           // Arabic
		{strings.Repeat("מילה ", 199), 199},       // Hebrew
		{strings.Repeat("字", 400), 200},           // 400 characters are 200 words
		{strings.Repeat("word ", 199) + "字", 200}, // one character is half a word, rounded up
	} {
		if got := countWords(c.text); got != c.want {
			t.Errorf("countWords(%.40q) = %d, want %d", c.text, got, c.want)
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
		if got := MakeFragments(d.Groups[0].FeedURL, *e).Words; got != c.words {
			t.Errorf("%d words counted as %d", c.words, got)
		}
		doc, _ := digestDoc(t, d)
		meta := doc.Find(`article:has(a[href="https://blog.example.org/posts/hello"]) p.m`).First().Text()
		text, html := emailParts(t, d)
		mailMeta := parseHTML(t, html).Find(`h3:has(a[href="https://blog.example.org/posts/hello"]), h4:has(a[href="https://blog.example.org/posts/hello"])`).Next().Text()
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
	e.Fragments = MakeFragments(d.Groups[0].FeedURL, *e)
	e.Fragments.Words = 1610
	e.Content = ""
	doc, _ := digestDoc(t, d)
	if got := doc.Find(`article:has(a[href="https://blog.example.org/posts/hello"]) p.m`).Text(); !strings.HasSuffix(got, "7 min read") {
		t.Errorf("meta line %q does not show the stored count's reading time", got)
	}
}

// BenchmarkCountWords counts the words of an entry's text of about 1 KB,
// as each entry's fragments do when it is stored.
func BenchmarkCountWords(b *testing.B) {
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 18)
	for b.Loop() {
		countWords(text)
	}
}
