package render

import (
	"bytes"
	"strings"
	"testing"

	"feeddigest/domain"
	"feeddigest/ingest"
)

// stored is d as a run reads it back from the state: every entry with the
// fragments made when it was stored, and without its raw texts.
func stored(d Digest) Digest {
	groups := make([]FeedGroup, len(d.Groups))
	for i, g := range d.Groups {
		g.Entries = append([]domain.Entry(nil), g.Entries...)
		for j, e := range g.Entries {
			e.Fragments = ingest.MakeFragments(g.FeedURL, e)
			e.Content, e.Summary = "", ""
			g.Entries[j] = e
		}
		groups[i] = g
	}
	d.Groups = groups
	return d
}

// Pages, the index, the Atom feed and the email made from stored
// fragments are the very bytes made from the texts: the golden files hold
// for both.
func TestGoldenFromStoredFragments(t *testing.T) {
	d := stored(goldenDigest(t))
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "digest", page)
	archive := []DigestRef{{Date: "2020-11-20", Entries: 1}, {Date: "2020-11-22", Entries: 3}, {Date: "2020-11-21", Entries: 0}}
	index, err := IndexPage("ada", nil, &d, archive)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "index", index)
	atom, err := AtomFeed("ada", nil, AtomSite{URL: "https://example.org/digest"}, []Digest{emptyDigest(t), d}, utc("2020-11-23T00:05:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "feed.xml", atom)

	fromTexts := buildEmail(t, goldenDigest(t), "https://example.org/digest/")
	fromFragments := buildEmail(t, d, "https://example.org/digest/")
	if fromTexts.HTML != fromFragments.HTML || fromTexts.Text != fromFragments.Text {
		t.Errorf("the email from stored fragments differs from the one made from the texts:\n%s\n---\n%s", fromFragments.HTML, fromTexts.HTML)
	}
}

// The index written from the digest's page, its body copied, is the
// index rendered whole.
func TestIndexFromWrittenPage(t *testing.T) {
	d := stored(goldenDigest(t))
	var page bytes.Buffer
	body, err := WriteDigestPage(&page, d)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "digest", page.Bytes())
	archive := []DigestRef{{Date: "2020-11-20", Entries: 1}, {Date: "2020-11-22", Entries: 3}, {Date: "2020-11-21", Entries: 0}}
	var index bytes.Buffer
	section := bytes.NewReader(page.Bytes()[body.Offset:])
	if err := WriteIndexPage(&index, "ada", body, section, archive); err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "index", index.Bytes())
	if err := WriteIndexPage(&index, "ada", body, bytes.NewReader(nil), archive); err == nil {
		t.Error("a page cut short gives no error")
	}
}

// An untitled entry's display title is its first words; its excerpt goes
// on from them, never repeating them, and its content is folded away
// rather than shown in the excerpt's place. When the two show all of the
// text (Whole), nothing is left to open: the page shows no "Read it all
// here" that would repeat the whole note.
func TestUntitledExcerptGoesOnFromTitle(t *testing.T) {
	cases := []struct {
		name, title, content string
		wantTitle, excerpt   string
		whole                bool
	}{
		{"a note longer than a title", "", "<p>Just a quick note about the weather today, which was grey and wet and long.</p>",
			"Just a quick note about the weather today, which was…", "…grey and wet and long.", true},
		{"a note the title holds", "", "<p>Good morning, everyone.</p>", "Good morning, everyone.", "", true},
		{"the next word after a block", "", "<h2>One two three four five six seven eight nine ten</h2><p>Eleven twelve.</p>",
			"One two three four five six seven eight nine ten…", "…Eleven twelve.", true},
		{"a long post", "", "<p>" + strings.Repeat("word ", 100) + "</p>",
			"word word word word word word word word word word…", "…" + strings.TrimSpace(strings.Repeat("word ", 40)) + "…", false}, // an excerpt is 40 words
		{"a titled note keeps its excerpt", "Weather", "<p>Grey and wet.</p>", "Weather", "Grey and wet.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := ingest.MakeFragments("https://example.org/feed", domain.Entry{Title: c.title, Content: c.content})
			if f.Title != c.wantTitle || f.Excerpt != c.excerpt || f.Whole != c.whole {
				t.Errorf("title %q excerpt %q whole %v, want %q %q %v", f.Title, f.Excerpt, f.Whole, c.wantTitle, c.excerpt, c.whole)
			}
			d := emptyDigest(t)
			d.Groups = []FeedGroup{{FeedURL: "https://example.org/feed", Entries: []domain.Entry{{Title: c.title, Content: c.content, Link: "https://example.org/1"}}}}
			page, err := DigestPage(d)
			if err != nil {
				t.Fatal(err)
			}
			if opens := strings.Contains(string(page), "<details>"); opens == c.whole && c.title == "" {
				t.Errorf("untitled, whole %v: the page has a Read it all: %v", c.whole, opens)
			}
		})
	}
}
