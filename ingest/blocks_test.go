package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/domain"
)

// An excerpt keeps the boundaries of the blocks it is read from: a
// heading, a caption, a list item or a paragraph that ends without a
// full stop is parted from the next with " · ", one that ends a
// sentence or clause by a space.
func TestExcerptKeepsBlockBoundaries(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"caption and heading", "", "The sea rose 4 cm in August 2026. Photo: A. Lindqvist · The measurement · Every autumn the team returns to the same rocks."},
		{"sentences need nothing", "<p>One.</p><p>Two!</p><p>Three?</p>", "One. Two! Three?"},
		{"list items", "<ul><li>apples</li><li>pears</li><li>plums</li></ul>", "apples · pears · plums"},
		{"a comma ends a clause", "<ul><li>apples,</li><li>pears</li></ul>", "apples, pears"},
		{"closing quote after a stop", "<p>“Stop.”</p><p>She left</p>", "“Stop.” She left"},
		{"closing bracket without one", "<h2>Results (2026)</h2><p>Every year</p>", "Results (2026) · Every year"},
		{"line breaks", "<p>12 Main Street<br>Springfield</p>", "12 Main Street · Springfield"},
		{"inline elements join", "<p>one <b>two</b> <i>three</i></p>", "one two three"},
		{"empty blocks part nothing", "<p>one</p><p> </p><div></div><p>two.</p>", "one · two."},
		{"Arabic full stop", "<p>مرحبا۔</p><p>عالم</p>", "مرحبا۔ عالم"},
		{"Japanese full stop", "<p>今日は。</p><p>明日</p>", "今日は。 明日"},
	}
	article, err := os.ReadFile(filepath.Join("testdata", "blocks", "caption.html"))
	if err != nil {
		t.Fatal(err)
	}
	cases[0].content = string(article)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := MakeFragments("https://example.org/feed", domain.Entry{Title: "T", Content: c.content})
			if f.Excerpt != c.want {
				t.Errorf("excerpt %q, want %q", f.Excerpt, c.want)
			}
			if !f.Whole {
				t.Error("the excerpt is no longer the whole text")
			}
			// The fast path (no tree) reads blocks as the tree does.
			if got := PlainText(c.content); got != c.want {
				t.Errorf("PlainText %q, want %q", got, c.want)
			}
		})
	}
}

// A long post's excerpt, cut mid-text, never ends on a separator.
func TestExcerptCutAtASeparator(t *testing.T) {
	content := "<ul>" + strings.Repeat("<li>item</li>", 60) + "</ul>"
	got := Excerpt(domain.Entry{Content: content})
	if !strings.HasSuffix(got, "item…") {
		t.Errorf("excerpt %q ends badly", got)
	}
}
