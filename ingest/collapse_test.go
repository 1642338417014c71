package ingest

import (
	"strings"
	"testing"
)

// collapseSpace must be exactly the Join of Fields it replaces: excerpts,
// titles and the Whole check are compared with stored ones.
func FuzzCollapseSpace(f *testing.F) {
	for _, s := range []string{
		"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "a\u0085b",
		"a\u2003b", "a\u3000 b", "\xffa b", "a \xc2", "é à", "  ", "a\vb\fc\rd", "word",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}

// treeTextIs must say what comparing with treeText says, for the whole
// text, an excerpt cut from it, and texts a little off.
func FuzzTreeTextIs(f *testing.F) {
	for _, s := range []string{
		"", "<p>one</p><p>two</p>", "a  b\n c", "<script>x</script>word", "<p>x\u00a0y</p>",
		"<table><tr><td>a</td><td>b</td></tr></table>", "<p>" + strings.Repeat("word ", 60) + "</p>",
		"é<br>à", "<pre>  a\n\tb  </pre>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_, tree := sanitized(raw, "https://example.org/", fragmentTop)
		if tree == nil {
			return
		}
		whole := treeText(tree)
		for _, text := range []string{whole, Cut(whole, excerptWords, excerptChars), whole + "x", strings.TrimSuffix(whole, "x"), "", whole + " "} {
			if got, want := treeTextIs(tree, text), whole == text; got != want {
				t.Errorf("treeTextIs(%q, %q) = %v, want %v", raw, text, got, want)
			}
		}
	})
}
