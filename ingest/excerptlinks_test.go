package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"feeddigest/domain"
)

func TestLinkExcerpt(t *testing.T) {
	const own = "https://blog.example.org/post"
	tests := []struct {
		name, html, excerpt, want string
		links                     []string
	}{
		{"a link in the excerpt", `<p>Recipe from <a href="https://friend.example/r">a friend</a>.</p>`,
			"Recipe from a friend.", "Recipe from a friend [1].", []string{"https://friend.example/r"}},
		{"two links, the same twice", `<p><a href="https://a.example/">A</a> and <a href="https://b.example/">B</a> and <a href="https://a.example/">A again</a></p>`,
			"A and B and A again", "A [1] and B [2] and A again", []string{"https://a.example/", "https://b.example/"}},
		{"a link past the cut", `<p>One two three.</p><p>Four <a href="https://late.example/">five</a></p>`,
			"One two three.…", "One two three.…", nil},
		{"a link across the cut", `<p>One two <a href="https://across.example/">three four five</a></p>`,
			"One two three…", "One two three [1]…", []string{"https://across.example/"}},
		{"the entry's own link", `<p>Read <a href="` + own + `">the post</a>.</p>`,
			"Read the post.", "Read the post.", nil},
		{"not http", `<p><a href="mailto:me@example.org">Mail me</a> or <a href="javascript:x">not</a></p>`,
			"Mail me or not", "Mail me or not", nil},
		{"text that does not match the excerpt", `<p><a href="https://x.example/">Elsewhere</a></p>`,
			"Something else entirely", "Something else entirely", nil},
		{"a link without text", `<p><a href="https://img.example/"><img src="x.png"></a>Caption</p>`,
			"Caption", "Caption", nil},
		{"no links", `<p>Plain.</p>`, "Plain.", "Plain.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LinkExcerpt(tt.html, tt.excerpt, "", own)
			if got.Text != tt.want {
				t.Errorf("text %q, want %q", got.Text, tt.want)
			}
			var urls []string
			for i, l := range got.Links {
				if l.N != i+1 {
					t.Errorf("link %d numbered %d", i, l.N)
				}
				urls = append(urls, l.URL)
			}
			if strings.Join(urls, " ") != strings.Join(tt.links, " ") {
				t.Errorf("links %q, want %q", urls, tt.links)
			}
		})
	}
}

// Whatever the content, the marked excerpt is the excerpt with marks
// added: every word is kept, in order, and every mark names a link.
func FuzzLinkExcerpt(f *testing.F) {
	f.Add(`<p>Recipe from <a href="https://friend.example/r">a friend</a>.</p>`, 40)
	f.Add(`<a href="https://a.example/"><a href="https://b.example/">x</a> y</a> <script>z</script>`, 3)
	f.Add("<p>\x00<a href='https://a.example/'>&nbsp;\u200b</a> \t text</p>", 5)
	f.Fuzz(func(t *testing.T, content string, words int) {
		if words < 1 || words > 50 || !utf8.ValidString(content) {
			return
		}
		excerpt, title := Cut(PlainText(content), words, excerptChars), ""
		if words%2 == 0 { // as an untitled entry's: going on from its title
			title = displayTitle("", PlainText(content))
			excerpt = afterTitle(PlainText(content), title)
		}
		got := LinkExcerpt(content, excerpt, title, "")
		unmarked := got.Text
		for _, l := range got.Links {
			mark := " [" + strconv.Itoa(l.N) + "]"
			if !strings.Contains(unmarked, mark) {
				t.Fatalf("link %d is not marked in %q", l.N, got.Text)
			}
			unmarked = strings.Replace(unmarked, mark, "", 1)
		}
		if unmarked != excerpt {
			t.Fatalf("marked %q does not come from %q", got.Text, excerpt)
		}
		// What an email keeps of the HTML marks the same links.
		kept := LinkExcerpt(ExcerptHTML(domain.Fragments{HTML: content, Excerpt: excerpt, Title: title}), excerpt, title, "")
		if kept.Text != got.Text || len(kept.Links) != len(got.Links) {
			t.Fatalf("from ExcerptHTML: %q %v, from the HTML: %q %v", kept.Text, kept.Links, got.Text, got.Links)
		}
	})
}

// Space before the words costs its length, not its length squared: a
// post of many empty elements is read in linear time.
func TestLinkExcerptManyEmptyElements(t *testing.T) {
	content := "<p>" + strings.Repeat("<b> </b>", 200_000) + `<a href="https://x.example/">word</a></p>`
	got := LinkExcerpt(content, "word", "", "")
	if got.Text != "word [1]" {
		t.Errorf("text %q", got.Text)
	}
}

// ExcerptHTML keeps of a long post only what holds its excerpt's links.
func TestExcerptHTMLIsTheExcerptsPart(t *testing.T) {
	content := `<p>Recipe from <a href="https://friend.example/r">a friend</a>, and more.</p>` +
		strings.Repeat(`<p>Later <a href="https://later.example/">words</a> here.</p>`, 1000)
	f := domain.Fragments{HTML: content, Excerpt: Cut(PlainText(content), excerptWords, excerptChars)}
	got := ExcerptHTML(f)
	if len(got) > 1000 || !strings.Contains(got, `href="https://friend.example/r"`) {
		t.Errorf("ExcerptHTML kept %d bytes:\n%.500s", len(got), got)
	}
	if ExcerptHTML(domain.Fragments{HTML: "<p>No links.</p>", Excerpt: "No links."}) != "" {
		t.Error("HTML kept for an excerpt without links")
	}
}

// An untitled entry's excerpt, which goes on from its title, marks the
// links of its own words, numbered from one, and not those of the words
// its title shows; the email keeps the HTML that holds them.
func TestUntitledExcerptLinks(t *testing.T) {
	content := `<p>Read <a href="https://a.example/">the first</a> of my notes about soup and bread today, then <a href="https://b.example/">the second</a> one.</p>`
	f := MakeFragments("https://blog.example.org/feed", domain.Entry{Content: content})
	if f.Title != "Read the first of my notes about soup and bread today,…" && f.Title != "Read the first of my notes about soup and bread…" {
		t.Fatalf("title %q", f.Title)
	}
	want := LinkedExcerpt{Text: f.Excerpt[:len(f.Excerpt)-len(" one.")] + " [1] one.", Links: []ExcerptLink{{1, "https://b.example/"}}}
	for _, html := range []string{f.HTML, ExcerptHTML(f)} {
		got := LinkExcerpt(html, f.Excerpt, f.Title, "")
		if got.Text != want.Text || fmt.Sprint(got.Links) != fmt.Sprint(want.Links) {
			t.Errorf("got %q %v, want %q %v", got.Text, got.Links, want.Text, want.Links)
		}
	}
}
