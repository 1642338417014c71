package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"feeddigest/domain"
)

// A stored fragment's headings start at h4; under a folder heading they
// are moved one level down, as sanitising for that level would (render
// starts an entry's content at h4, h5 under a folder: entryContentHeading).
func TestStoredHeadingsUnderAFolder(t *testing.T) {
	for _, raw := range []string{
		`<h1>a</h1><h2 class="x">b</h2><h3>c</h3><h4>d</h4><h5>e</h5><h6>f</h6>`,
		`<h3>only</h3><p>x &lt;h4&gt; y</p>`,
		`<h5>deep</h5><h6>deeper</h6>`,
		`<p>no headings</p>`,
	} {
		want := sanitize(raw, "https://a.example/post", 5)
		got := ContentAt(sanitize(raw, "https://a.example/post", fragmentTop), 5)
		if got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", raw, got, want)
		}
		if top := ContentAt(sanitize(raw, "https://a.example/post", fragmentTop), 4); top != sanitize(raw, "https://a.example/post", 4) {
			t.Errorf("%s outside folders: %s", raw, top)
		}
	}
}

// Fragments made under other rules are not shown: the entry is shown
// from its texts, as the rules of this program make it.
func TestFragmentsOfOtherRulesAreMadeAgain(t *testing.T) {
	e := domain.Entry{Title: "Now", Link: "https://a.example/1", Content: "<p>Fresh <script>x</script>text</p>"}
	e.Fragments = domain.Fragments{Rules: FragmentRules + 1, Title: "Then", HTML: "<p>old</p>"}
	got := FragmentsOf("https://a.example/feed", e)
	if got.Title != "Now" || got.HTML != "<p>Fresh text</p>" || got.Rules != FragmentRules {
		t.Errorf("fragments of other rules used: %+v", got)
	}
	e.Fragments = MakeFragments("https://a.example/feed", e)
	e.Fragments.Title = "Stored"
	if got := FragmentsOf("https://a.example/feed", e); got.Title != "Stored" {
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
		if untitled := MakeFragments("https://a.example/feed", e); untitled.Excerpt != "" && !strings.HasPrefix(untitled.Excerpt, Ellipsis) {
			t.Errorf("untitled: excerpt %q, want the words after the title %q", untitled.Excerpt, untitled.Title)
		}
		if want := sanitize(raw, "https://a.example/post", fragmentTop); got.HTML != want {
			t.Fatalf("HTML %q, want %q", got.HTML, want)
		}
		if want := hrefs(got.HTML); fmt.Sprint(got.Links) != fmt.Sprint(want) {
			t.Errorf("links %q, want %q (parsed again)", got.Links, want)
		}
		if want := got.Excerpt != "" && got.Excerpt == PlainText(got.HTML); got.Whole != want {
			t.Errorf("whole %v, want %v: excerpt %q, text parsed again %q", got.Whole, want, got.Excerpt, PlainText(got.HTML))
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
