package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"feeddigest/domain"
)

// stored is d as a run reads it back from the state: every entry with the
// fragments made when it was stored, and without its raw texts.
func stored(d Digest) Digest {
	groups := make([]FeedGroup, len(d.Groups))
	for i, g := range d.Groups {
		g.Entries = append([]domain.Entry(nil), g.Entries...)
		for j, e := range g.Entries {
			e.Fragments = MakeFragments(g.FeedURL, e)
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
	index, err := IndexPage("ada", &d, archive)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "index", index)
	atom, err := AtomFeed("ada", AtomSite{URL: "https://example.org/digest"}, []Digest{emptyDigest(t), d}, utc("2020-11-23T00:05:00Z"))
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

// A stored fragment's headings start at h4; under a folder heading they
// are moved one level down, as sanitising for that level would.
func TestStoredHeadingsUnderAFolder(t *testing.T) {
	for _, raw := range []string{
		`<h1>a</h1><h2 class="x">b</h2><h3>c</h3><h4>d</h4><h5>e</h5><h6>f</h6>`,
		`<h3>only</h3><p>x &lt;h4&gt; y</p>`,
		`<h5>deep</h5><h6>deeper</h6>`,
		`<p>no headings</p>`,
	} {
		want := sanitize(raw, "https://a.example/post", entryContentHeading(true))
		got := contentAt(sanitize(raw, "https://a.example/post", fragmentTop), entryContentHeading(true))
		if got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", raw, got, want)
		}
		if top := contentAt(sanitize(raw, "https://a.example/post", fragmentTop), entryContentHeading(false)); top != sanitize(raw, "https://a.example/post", 4) {
			t.Errorf("%s outside folders: %s", raw, top)
		}
	}
}

// Fragments made under other rules are not shown: the entry is shown
// from its texts, as the rules of this program make it.
func TestFragmentsOfOtherRulesAreMadeAgain(t *testing.T) {
	e := domain.Entry{Title: "Now", Link: "https://a.example/1", Content: "<p>Fresh <script>x</script>text</p>"}
	e.Fragments = domain.Fragments{Rules: FragmentRules + 1, Title: "Then", HTML: "<p>old</p>"}
	got := fragmentsOf("https://a.example/feed", e)
	if got.Title != "Now" || got.HTML != "<p>Fresh text</p>" || got.Rules != FragmentRules {
		t.Errorf("fragments of other rules used: %+v", got)
	}
	e.Fragments = MakeFragments("https://a.example/feed", e)
	e.Fragments.Title = "Stored"
	if got := fragmentsOf("https://a.example/feed", e); got.Title != "Stored" {
		t.Errorf("stored fragments of these rules not used: %+v", got)
	}
}

func TestMakeFragments(t *testing.T) {
	e := domain.Entry{Title: "Links", Link: "/posts/1", Content: `<p>Read <a href="/other">this</a> and <a href="https://b.example/x">that</a>.</p><img src="p.png" width="1" height="1">`}
	f := MakeFragments("https://a.example/feed.xml", e)
	wantHTML := `<p>Read <a href="https://a.example/other" rel="noopener noreferrer">this</a> and <a href="https://b.example/x" rel="noopener noreferrer">that</a>.</p>`
	if f.HTML != wantHTML {
		t.Errorf("HTML %s, want %s", f.HTML, wantHTML)
	}
	if fmt.Sprint(f.Links) != "[https://a.example/other https://b.example/x]" {
		t.Errorf("links %v", f.Links)
	}
	if f.Title != "Links" || f.Excerpt != "Read this and that." || !f.Whole {
		t.Errorf("title %q, excerpt %q, whole %v", f.Title, f.Excerpt, f.Whole)
	}
	if !bytes.Contains([]byte(f.HTML), []byte(relSafe)) {
		t.Error("no rel")
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

// MakeFragments reads the links and the text from the sanitised tree
// rather than parsing its HTML again: the same as parsing it again.
func FuzzMakeFragments(f *testing.F) {
	for _, s := range []string{
		`<p>Read <a href="/x">this</a></p>`,
		`<pre>
code</pre><p>after <b>bold <i>both</b> italic</i></p>`,
		`<table><tr><td>a<a href="https://b.example/">b</a></td></tr></table>tail`,
		`<ul><li>one<li>two</ul><p>x<p>y`,
		`<a href="https://a.example/1"><a href="https://a.example/2">nested</a></a>`,
		`plain text &amp; entities &eacute;`,
		`<p>Short.</p>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		e := domain.Entry{Title: "T", Link: "https://a.example/post", Content: raw}
		got := MakeFragments("https://a.example/feed", e)
		e.Title = ""
		// (When an untitled entry is Whole, TestUntitledExcerptGoesOnFromTitle.)
		if untitled := MakeFragments("https://a.example/feed", e); untitled.Excerpt != "" && !strings.HasPrefix(untitled.Excerpt, ellipsis) {
			t.Errorf("untitled: excerpt %q, want the words after the title %q", untitled.Excerpt, untitled.Title)
		}
		if want := sanitize(raw, "https://a.example/post", fragmentTop); got.HTML != want {
			t.Fatalf("HTML %q, want %q", got.HTML, want)
		}
		if want := hrefs(got.HTML); fmt.Sprint(got.Links) != fmt.Sprint(want) {
			t.Errorf("links %q, want %q (parsed again)", got.Links, want)
		}
		if want := got.Excerpt != "" && got.Excerpt == plainText(got.HTML); got.Whole != want {
			t.Errorf("whole %v, want %v: excerpt %q, text parsed again %q", got.Whole, want, got.Excerpt, plainText(got.HTML))
		}
	})
}

// BenchmarkMakeFragments makes the fragments of an entry like those of
// the 2000-feed run benchmark (BenchmarkRun2000Feeds): 1.5 KB of HTML
// with relative links, an image and a script.
func BenchmarkMakeFragments(b *testing.B) {
	para := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 6)
	e := domain.Entry{
		Title: "Entry 3 of feed 7", Link: "https://site7.example/posts/7/3",
		Content: `<p>` + para + `<a href="/posts/3">an earlier post</a> and <a href="https://other.example/x?y=7">a friend</a>.</p>` +
			`<p><img src="img/3.png" alt="a figure"> ` + para + `</p><script>alert(3)</script><p><em>` + para + `</em></p>`,
	}
	b.ReportAllocs()
	for b.Loop() {
		MakeFragments("https://site7.example/feed", e)
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
			"word word word word word word word word word word…", "…" + strings.TrimSpace(strings.Repeat("word ", excerptWords)) + "…", false},
		{"a titled note keeps its excerpt", "Weather", "<p>Grey and wet.</p>", "Weather", "Grey and wet.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := MakeFragments("https://example.org/feed", domain.Entry{Title: c.title, Content: c.content})
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
