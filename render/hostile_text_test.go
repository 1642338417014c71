package render

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"feeddigest/domain"
)

// dirt is what a feed can put in any text: C0 controls (a backspace, an
// escape, a bell), DEL, a C1 control, noncharacters (U+FFFE, U+FFFF,
// U+FDD0, the last of plane 16) raw and as character references.
// (Invalid UTF-8 becomes U+FFFD, as it does everywhere.)
const dirt = "\x01\x08\x1b\x07\x7f\u009b\ufffe\uffff\ufdd0\U0010ffff&#1;&#x1b;&#xFFFE;&#xffff;&#xFDD0;"

// checkNoDirt fails the test when out (a page, a feed, an email part)
// holds a character that cleanText drops, or invalid UTF-8.
func checkNoDirt(t *testing.T, what string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s is not valid UTF-8", what)
	}
	for i, r := range string(out) {
		if stripsHTML(r) {
			t.Errorf("%s carries %U at %d: %q", what, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
}

// dirtyDigest is a digest whose every feed-supplied text carries dirt:
// feed names, folders, titles, authors, excerpts and content (text and
// attributes), enclosures, notices and problems.
func dirtyDigest(t *testing.T) Digest {
	d := sampleDigest(t)
	d.Groups = []FeedGroup{{
		FeedURL: "https://a.example/feed", FeedName: "Alpha" + dirt + " feed", SiteURL: "https://a.example/", Folder: "Fold" + dirt + "er",
		Entries: []domain.Entry{
			{Title: "Title" + dirt + " one", Author: "Au" + dirt + "thor", Link: "https://a.example/1", Published: d.BuiltAt.Add(-time.Hour),
				Content: "<p title=\"t" + dirt + "\">Body" + dirt + " text</p><pre>pre" + dirt + "</pre><img src=\"https://a.example/i.png\" alt=\"alt" + dirt + "\">" +
					"<a href=\"mailto:ad\ufffe\ufdd0a@example.org\">Mail</a>",
				Enclosures: []domain.Enclosure{{URL: "https://a.example/file" + "%01" + ".bin"}}},
			{Link: "https://a.example/2", Summary: "Untitled" + dirt + " summary words", Published: d.BuiltAt.Add(-time.Hour)},
			{Title: "Invalid \xff UTF-8", Link: "https://a.example/3", Content: "<p>bad \xfe\xff</p>", Published: d.BuiltAt.Add(-time.Hour)},
			{Title: "Parted", Link: "https://a.example/4", Content: "<p>words\vparted\u0085apart</p>", Published: d.BuiltAt.Add(-time.Hour)},
		},
	}}
	d.Notices = []Notice{{Notice: domain.Notice{FeedURL: "https://a.example/feed", Kind: domain.NoticeMoved, NewURL: "https://b.example/feed", Detail: "de" + dirt + "tail"}, FeedName: "Alpha" + dirt}}
	d.Problems = []Problem{{Problem: domain.Problem{FeedURL: "https://c.example/feed", State: domain.ProblemFailing, Reason: "rea" + dirt + "son", Since: d.BuiltAt.Add(-48 * time.Hour)}, FeedName: "Charlie" + dirt}}
	return d
}

// TestPagesCarryNoControls: no control or noncharacter from a feed reaches
// a digest's page, the index, the Atom feed or either email part, whether
// the entries are shown from their texts or from stored fragments; the
// text around them stays.
func TestPagesCarryNoControls(t *testing.T) {
	for _, d := range []Digest{dirtyDigest(t), stored(dirtyDigest(t))} {
		page, err := DigestPage(d)
		if err != nil {
			t.Fatal(err)
		}
		checkNoDirt(t, "the page", page)
		for _, want := range []string{"Alpha feed", "Title one", "Author", "Body text", "Untitled summary words", "detail", "reason", "Folder", "<p>words parted apart</p>"} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("the page lost %q", want)
			}
		}
		index, err := IndexPage(d.User, &d, []DigestRef{{Date: d.Date, Entries: 2, BuiltAt: d.BuiltAt}})
		if err != nil {
			t.Fatal(err)
		}
		checkNoDirt(t, "the index", index)
		atom, err := AtomFeed(d.User, AtomSite{URL: "https://example.org/digest/"}, []Digest{d}, d.BuiltAt)
		if err != nil {
			t.Fatal(err)
		}
		checkNoDirt(t, "the Atom feed", atom)
		if !bytes.Contains(atom, []byte("Title one")) {
			t.Error("the Atom feed lost the title")
		}
		e := buildEmail(t, d, "https://example.org/digest/")
		checkNoDirt(t, "the HTML email", []byte(e.HTML))
		checkNoDirt(t, "the plain-text email", []byte(e.Text))
		if !strings.Contains(e.HTML, "Title one") || !strings.Contains(e.Text, "Title one") {
			t.Error("the email lost the title")
		}
	}
}

func TestMakeFragmentsCarryNoControls(t *testing.T) {
	d := dirtyDigest(t)
	for _, e := range d.Groups[0].Entries {
		f := MakeFragments(d.Groups[0].FeedURL, e)
		for what, s := range map[string]string{"title": f.Title, "excerpt": f.Excerpt, "HTML": f.HTML} {
			checkNoDirt(t, "the fragment's "+what, []byte(s))
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
	for _, s := range []string{dirt, "a \x01 b", "<p>x&#1;</p>\u202e<b>y</b>", "\u2067t\u2069 \u200f", "plain", "", " \x00 ", "&#xFDEF;&#x10FFFF;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := plainText(s)
		checkNoDirt(t, "plainText", []byte(p))
		if collapseSpace(p) != p {
			t.Errorf("plainText(%q) = %q, not collapsed", s, p)
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
	doc := parseHTML(t, SanitizeHTML(in, "https://blog.example.org/post"))
	for _, sel := range []string{"map", "area", "[usemap]", `a[href="https://evil.example/"]`} {
		if doc.Find(sel).Length() != 0 {
			t.Errorf("%s kept: %s", sel, SanitizeHTML(in, "https://blog.example.org/post"))
		}
	}
	if doc.Find("img").Length() != 2 || !strings.Contains(doc.Text(), "Caption in the map") {
		t.Errorf("images or the map's text lost: %s", SanitizeHTML(in, "https://blog.example.org/post"))
	}
}

// TestLinksLoseUserinfo: a link that names another site before an "@"
// goes to the host after it, and shows only that: an entry's link, links
// and images in its content, a relative link resolved against such a
// link, a feed's site and an enclosure.
func TestLinksLoseUserinfo(t *testing.T) {
	d := sampleDigest(t)
	d.Groups = []FeedGroup{{
		FeedURL: "https://a.example/feed", FeedName: "Alpha", SiteURL: "https://www.paypal.com:x@evil.example/home",
		Entries: []domain.Entry{{Title: "Spoof", Link: "https://paypal.com@evil.example/login?x=1", Published: d.BuiltAt.Add(-time.Hour),
			Content:    `<p><a href="https://user:pass@evil.example/a">a</a> <a href="rel">rel</a> <img src="http://bank.example@evil.example/i.png" alt="i"> <q cite="https://u@evil.example/q">q</q></p>`,
			Enclosures: []domain.Enclosure{{URL: "https://paypal.com@evil.example/ep.mp3", Type: "audio/mpeg"}}}},
	}}
	for _, d := range []Digest{d, stored(d)} {
		page, err := DigestPage(d)
		if err != nil {
			t.Fatal(err)
		}
		e := buildEmail(t, d, "")
		for what, out := range map[string]string{"page": string(page), "HTML email": e.HTML, "plain-text email": e.Text} {
			for _, gone := range []string{"paypal.com", "user:pass", "bank.example", "u@evil", "x@evil"} {
				if strings.Contains(out, gone) {
					t.Errorf("the %s keeps %q", what, gone)
				}
			}
		}
		for _, want := range []string{`href="https://evil.example/login?x=1"`, `href="https://evil.example/a"`, `href="https://evil.example/rel"`,
			`src="http://evil.example/i.png"`, `href="https://evil.example/home"`, `href="https://evil.example/ep.mp3"`, `cite="https://evil.example/q"`} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("the page has no %s", want)
			}
		}
	}
	if got := EntryURL("https://a.example/feed", "//x:y@evil.example/p"); got != "https://evil.example/p" {
		t.Errorf("EntryURL = %q", got)
	}
	// An address is not a login: mailto: links stay as they are.
	if got := SanitizeHTML(`<a href="mailto:ada@example.org">m</a>`, ""); !strings.Contains(got, `href="mailto:ada@example.org"`) {
		t.Errorf("mailto link changed: %s", got)
	}
}

// checkNoUserinfo fails a fuzz run whose output links carry user
// information.
func checkNoUserinfo(t *testing.T, el, v string) {
	if u, err := url.Parse(v); err == nil && u.User != nil {
		t.Fatalf("<%s> URL %q keeps user information", el, v)
	}
}
