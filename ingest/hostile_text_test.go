package ingest

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"feeddigest/internal/htmltest"
)

// TestMakeFragmentsCarryNoControls: no control or noncharacter from a
// feed reaches an entry's stored fragments (render's TestPagesCarryNoControls
// follows the same entries onto the pages).
func TestMakeFragmentsCarryNoControls(t *testing.T) {
	for _, e := range htmltest.DirtyEntries(time.Date(2020, 11, 21, 14, 5, 0, 0, time.UTC)) {
		f := MakeFragments("https://a.example/feed", e)
		for what, s := range map[string]string{"title": f.Title, "excerpt": f.Excerpt, "HTML": f.HTML} {
			htmltest.CheckNoDirt(t, "the fragment's "+what, []byte(s))
		}
		// Content and excerpt part words alike: a short text is whole.
		if e.Title == "Parted" && (f.Excerpt != "words parted apart" || !f.Whole) {
			t.Errorf("excerpt %q, whole %v, of %q", f.Excerpt, f.Whole, f.HTML)
		}
	}
}

// FuzzPlainText: whatever a feed writes, its plain text (a title, an
// excerpt, a name) holds no character cleanText drops, is valid UTF-8 and
// has its white space collapsed; StripControl leaves no control,
// bidirectional override or noncharacter, and is done in one go.
func FuzzPlainText(f *testing.F) {
	for _, s := range []string{htmltest.Dirt, "a \x01 b", "<p>x&#1;</p>\u202e<b>y</b>", "\u2067t\u2069 \u200f", "plain", "", " \x00 ", "&#xFDEF;&#x10FFFF;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := PlainText(s)
		htmltest.CheckNoDirt(t, "PlainText", []byte(p))
		if collapseSpace(p) != p {
			t.Errorf("PlainText(%q) = %q, not collapsed", s, p)
		}
		c := StripControl(s)
		if !utf8.ValidString(c) {
			t.Errorf("StripControl(%q) is not valid UTF-8", s)
		}
		for _, r := range c {
			if stripsPlain(r) {
				t.Fatalf("StripControl(%q) keeps %U", s, r)
			}
		}
		if StripControl(c) != c {
			t.Errorf("StripControl(%q) = %q, which it changes again", s, c)
		}
	})
}

// TestSanitizeRemovesImageMaps: an image map over an entry's image (or
// another entry's: map names are the page's) is taken out; the image and
// the map's other content stay.
func TestSanitizeRemovesImageMaps(t *testing.T) {
	in := `<img src="/photo.jpg" alt="Photo" usemap="#m"><map name="m"><area shape="rect" coords="0,0,10000,10000" href="https://evil.example/" alt="x"><p>Caption in the map</p></map>` +
		`<img src="/other.jpg" alt="Other" usemap="#shared">`
	doc := htmltest.Parse(t, SanitizeHTML(in, "https://blog.example.org/post"))
	for _, sel := range []string{"map", "area", "[usemap]", `a[href="https://evil.example/"]`} {
		if doc.Find(sel).Length() != 0 {
			t.Errorf("%s kept: %s", sel, SanitizeHTML(in, "https://blog.example.org/post"))
		}
	}
	if doc.Find("img").Length() != 2 || !strings.Contains(doc.Text(), "Caption in the map") {
		t.Errorf("images or the map's text lost: %s", SanitizeHTML(in, "https://blog.example.org/post"))
	}
}
