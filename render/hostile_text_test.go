package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/htmltest"
)

// dirtyDigest is a digest whose every feed-supplied text carries dirt
// (htmltest.Dirt): feed names, folders, titles, authors, excerpts and
// content (text and attributes), enclosures, notices and problems; its
// entries are htmltest.DirtyEntries.
func dirtyDigest(t *testing.T) Digest {
	d := sampleDigest(t)
	d.Groups = []FeedGroup{{
		FeedURL: "https://a.example/feed", FeedName: "Alpha" + htmltest.Dirt + " feed", SiteURL: "https://a.example/", Folder: "Fold" + htmltest.Dirt + "er",
		Entries: htmltest.DirtyEntries(d.BuiltAt.Add(-time.Hour)),
	}}
	d.Notices = []Notice{{Notice: domain.Notice{FeedURL: "https://a.example/feed", Kind: domain.NoticeMoved, NewURL: "https://b.example/feed", Detail: "de" + htmltest.Dirt + "tail"}, FeedName: "Alpha" + htmltest.Dirt}}
	d.Problems = []Problem{{Problem: domain.Problem{FeedURL: "https://c.example/feed", State: domain.ProblemFailing, Reason: "rea" + htmltest.Dirt + "son", Since: d.BuiltAt.Add(-48 * time.Hour)}, FeedName: "Charlie" + htmltest.Dirt}}
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
		htmltest.CheckNoDirt(t, "the page", page)
		for _, want := range []string{"Alpha feed", "Title one", "Author", "Body text", "Untitled summary words", "detail", "reason", "Folder", "<p>words parted apart</p>"} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("the page lost %q", want)
			}
		}
		index, err := IndexPage(d.User, nil, &d, []DigestRef{{Date: d.Date, Entries: 2, BuiltAt: d.BuiltAt}})
		if err != nil {
			t.Fatal(err)
		}
		htmltest.CheckNoDirt(t, "the index", index)
		atom, err := AtomFeed(d.User, nil, AtomSite{URL: "https://example.org/digest/"}, []Digest{d}, d.BuiltAt)
		if err != nil {
			t.Fatal(err)
		}
		htmltest.CheckNoDirt(t, "the Atom feed", atom)
		if !bytes.Contains(atom, []byte("Title one")) {
			t.Error("the Atom feed lost the title")
		}
		e := buildEmail(t, d, "https://example.org/digest/")
		htmltest.CheckNoDirt(t, "the HTML email", []byte(e.HTML))
		htmltest.CheckNoDirt(t, "the plain-text email", []byte(e.Text))
		if !strings.Contains(e.HTML, "Title one") || !strings.Contains(e.Text, "Title one") {
			t.Error("the email lost the title")
		}
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
	if got := ingest.EntryURL("https://a.example/feed", "//x:y@evil.example/p"); got != "https://evil.example/p" {
		t.Errorf("ingest.EntryURL = %q", got)
	}
	// An address is not a login: mailto: links stay as they are.
	if got := ingest.SanitizeHTML(`<a href="mailto:ada@example.org">m</a>`, ""); !strings.Contains(got, `href="mailto:ada@example.org"`) {
		t.Errorf("mailto link changed: %s", got)
	}
}

func TestHostileEntryInPageAndEmail(t *testing.T) {
	d := sampleDigest(t)
	d.Groups[0].Entries[0].Content = htmltest.Hostile
	d.Groups[0].Entries[0].Title = `<script>alert(0)</script>Storm <img src=x onerror=alert(0)>report`
	d.Groups[0].Entries[0].Author = `<b onmouseover="alert(0)">Mallory</b>`
	d.Groups[0].SiteURL = "javascript:alert(0)"
	d.Groups[0].Entries[1].Link = "javascript:alert(0)"
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.CheckSafe(t, string(page))
	if got := doc.Find("h3").First().Text(); got != "Storm report" {
		t.Errorf("display title = %q, want %q", got, "Storm report")
	}
	for _, want := range []string{"Before the storm.", "After the storm.", "Mallory"} {
		if !strings.Contains(doc.Text(), want) {
			t.Errorf("page lost benign text %q", want)
		}
	}
	html := emailHTML(t, d)
	htmltest.CheckSafe(t, html)
	if !strings.Contains(html, "Before the storm.") {
		t.Error("email lost the benign excerpt")
	}
}
