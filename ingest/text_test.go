package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"feeddigest/domain"
)

func TestDisplayTitle(t *testing.T) {
	cases := []struct {
		name string
		e    domain.Entry
		want string
	}{
		{"title", domain.Entry{Title: "Hello world", Content: "<p>Body</p>"}, "Hello world"},
		{"html in title", domain.Entry{Title: "Hello <em>big</em>\n  <b>world</b>"}, "Hello big world"},
		{"entities in title", domain.Entry{Title: "Tom &amp; Jerry"}, "Tom & Jerry"},
		{"script in title", domain.Entry{Title: "<script>alert(1)</script>Safe"}, "Safe"},
		{"no title, short text", domain.Entry{Content: "<p>Short note.</p>"}, "Short note."},
		{
			"no title, first words",
			domain.Entry{Content: "<p>One two three four five six seven eight nine ten eleven twelve.</p>"},
			"One two three four five six seven eight nine ten…",
		},
		{"blank title uses summary", domain.Entry{Title: "  <br> ", Summary: "From the summary"}, "From the summary"},
		{"blocks do not glue words", domain.Entry{Content: "<p>one</p><p>two</p>"}, "one · two"},
		{"nothing at all", domain.Entry{}, "Untitled post"},
	}
	for _, c := range cases {
		if got := DisplayTitle(c.e); got != c.want {
			t.Errorf("%s: DisplayTitle = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestDisplayTitleCapsHugeTitles(t *testing.T) {
	got := DisplayTitle(domain.Entry{Title: strings.Repeat("word ", 100)})
	if utf8.RuneCountInString(got) > maxTitleLen+1 || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("long title not cut: %d runes %q", utf8.RuneCountInString(got), got)
	}
}

func TestExcerpt(t *testing.T) {
	long := "<p>" + strings.Repeat("lorem ipsum ", 60) + "</p>"
	got := Excerpt(domain.Entry{Content: long})
	if !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("long excerpt without ellipsis: %q", got)
	}
	words := strings.Fields(strings.TrimSuffix(got, Ellipsis))
	if len(words) > excerptWords || utf8.RuneCountInString(got) > excerptChars+1 {
		t.Errorf("excerpt too long: %d words, %d runes", len(words), utf8.RuneCountInString(got))
	}
	for _, w := range words {
		if w != "lorem" && w != "ipsum" {
			t.Errorf("excerpt cut inside a word: %q", w)
		}
	}
	if got := Excerpt(domain.Entry{Content: "<p>Short &amp; <b>sweet</b>.</p><script>x()</script>"}); got != "Short & sweet." {
		t.Errorf("short excerpt = %q", got)
	}
	if got := Excerpt(domain.Entry{Summary: "Only a summary."}); got != "Only a summary." {
		t.Errorf("summary excerpt = %q", got)
	}
	if got := Excerpt(domain.Entry{}); got != "" {
		t.Errorf("empty entry excerpt = %q", got)
	}
}

func TestExcerptCutsLongWordsByCharacters(t *testing.T) {
	got := Excerpt(domain.Entry{Content: strings.Repeat("é", 400) + " tail"})
	if n := utf8.RuneCountInString(got); n != excerptChars+1 || !utf8.ValidString(got) {
		t.Errorf("excerpt of one huge word: %d runes, valid=%v", n, utf8.ValidString(got))
	}
	short := Excerpt(domain.Entry{Content: strings.Repeat("abcdefghi ", 30)})
	if utf8.RuneCountInString(short) > excerptChars+1 {
		t.Errorf("excerpt over %d chars: %d", excerptChars, utf8.RuneCountInString(short))
	}
}

var simpleTextSeeds = []string{
	`<p>one</p><p>two <b>three</b></p>`,
	`<p>a<p>b`,
	`<ul><li>one<li>two</ul>`,
	`<p>a<div>b</div></p>c`,
	`<b>x<p>y</b>z</p>`,
	`a<br>b<br/>c<hr>d<img src=x alt=y>e`,
	`<pre>
x</pre>y`,
	`<h1><h2>x</h2></h1>y`,
	`<a href=x><a href=y>z</a></a>w`,
	`<p>&amp; &eacute; &#x41;&nbsp;x</p>`,
	`<!-- c --><p>a</p>`,
	`<table><tr><td>a</td></tr>b</table>`,
	`<script>x</script>y`,
	"<p>a\x00b</p>",
	`<script>x</script>y<p>z<style>p{}</style>w</p>`,
	`<noscript><p>n</p></noscript>x<iframe src=y>if</iframe>z`,
	`<p>a<script>b`,
	`<p/>x<div/>y`,
	`<li>a<li>b</li>c</li>`,
	`<h2>Results (2026)</h2><p>Every autumn.</p><figure><img src=x><figcaption>Photo: A. Lindqvist</figcaption></figure>Next`,
	`<p>Done.”</p><p>Then</p><ul><li>one,<li>two</ul>`,
	"<p>a</p>\x01<p>b</p>\v<br>c",
}

// simpleText reads the words the parser's tree holds.
func TestSimpleTextAsTree(t *testing.T) {
	for _, s := range simpleTextSeeds {
		if got, ok := simpleText(s); ok && got != treeTextOf(s) {
			t.Errorf("simpleText(%q) = %q, the tree reads %q", s, got, treeTextOf(s))
		}
	}
	for _, s := range []string{`<p>one</p><p>two <b>three</b></p>`, `<p>x</p><script>alert(1)</script>`} {
		if _, ok := simpleText(s); !ok {
			t.Errorf("%q needs the tree", s)
		}
	}
}

func FuzzSimpleTextAsTree(f *testing.F) {
	for _, s := range simpleTextSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := simpleText(s); ok && got != treeTextOf(s) {
			t.Fatalf("simpleText(%q) = %q, the tree reads %q", s, got, treeTextOf(s))
		}
	})
}

func TestCutAtTheLimits(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"a b c", "a b c"},             // as many words as allowed
		{"a b c d", "a b c…"},          // one word more
		{"abcdefghij", "abcdefghij"},   // as many characters as allowed
		{"ab cd efghi j", "ab cd…"},    // the next word would pass them
		{"abcdefghijk", "abcdefghij…"}, // one word longer than them
		{"ab, cd, efghi", "ab, cd…"},   // no punctuation before the mark
	} {
		if got := Cut(c.text, 3, 10); got != c.want {
			t.Errorf("Cut(%q, 3, 10) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestStripControl(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb\nc\x1b[0m\x00\x07\x08\x7f\u0085\u009bd é 日本 \u202e": "a\tb\nc[0md é 日本 ",
		// The overrides, embeddings and isolates go; the marks stay.
		"\u202atxt\u202b\u202c\u202d\u202e \u2066\u2067\u2068\u2069!": "txt !",
		"\u05e9\u05dc\u05d5\u05dd \u200f(1)\u200e \u061c":             "\u05e9\u05dc\u05d5\u05dd \u200f(1)\u200e \u061c",
		// Noncharacters go; invalid UTF-8 reads as U+FFFD.
		"x\ufffe\uffff\ufdd0\ufdef\U0001fffe\U0010ffffy\ufffd\xff": "xy\ufffd\ufffd",
		"plain text stays": "plain text stays",
	} {
		if got := StripControl(in); got != want {
			t.Errorf("StripControl(%q) = %q, want %q", in, got, want)
		}
	}
}

// A name of one long word is cut by characters, as a title is (see
// TestLongFeedNamesAndAuthorsAreCut in render for the pages).
func TestShortNameCutsOneLongWord(t *testing.T) {
	if n := utf8.RuneCountInString(ShortName(strings.Repeat("x", 5000))); n > maxTitleLen+1 {
		t.Errorf("a one-word name cut to %d characters", n)
	}
}
