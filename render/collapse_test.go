package render

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
