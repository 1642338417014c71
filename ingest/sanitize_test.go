package ingest

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/internal/htmltest"
)

func TestSanitizeHostile(t *testing.T) {
	out := SanitizeHTML(htmltest.Hostile, "https://blog.example.org/post")
	doc := htmltest.CheckSafe(t, out)
	text := doc.Text()
	for _, want := range []string{"Before the storm.", "After the storm.", "Click text", "js link", "entity link", "styled"} {
		if !strings.Contains(text, want) {
			t.Errorf("benign text %q lost; got %q", want, text)
		}
	}
	// The frames (iframe, object, embed) left links to what they showed,
	// and nothing else kept a link.
	frames := 0
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		if !strings.HasPrefix(a.Parent().Text(), "Embedded page: ") || !strings.HasPrefix(a.AttrOr("href", ""), "https://evil.example/") {
			t.Errorf("a dangerous link kept its href: %s", out)
		}
		frames++
	})
	if frames != 3 {
		t.Errorf("%d links where the 3 frames with an address were: %s", frames, out)
	}
	if doc.Find("iframe, object, embed").Length() != 0 {
		t.Errorf("embedded evil.example survived: %s", out)
	}
}

func TestSanitizeLinksGetRel(t *testing.T) {
	in := `<a href="https://a.example/" rel="nofollow">a</a><a href="mailto:x@example.org" rel="opener">m</a><a name="n">no href</a><a href="/rel">r</a>`
	doc := htmltest.Parse(t, SanitizeHTML(in, "https://blog.example.org/x"))
	links := doc.Find("a[href]")
	if links.Length() != 3 {
		t.Fatalf("%d links, want 3", links.Length())
	}
	links.Each(func(_ int, a *goquery.Selection) {
		if rel := a.AttrOr("rel", ""); rel != relSafe {
			t.Errorf("%s: rel=%q, want %q", a.AttrOr("href", ""), rel, relSafe)
		}
	})
}

func TestSanitizeResolvesRelativeURLs(t *testing.T) {
	in := `<a href="/about">a</a><a href="../up">b</a><a href="#top">c</a><a href="//cdn.example/x">d</a>` +
		`<img src="img/cat.png" alt="cat"><blockquote cite="/source">q</blockquote>`
	doc := htmltest.Parse(t, SanitizeHTML(in, "https://blog.example.org/posts/hello"))
	var hrefs []string
	doc.Find("a").Each(func(_ int, a *goquery.Selection) { hrefs = append(hrefs, a.AttrOr("href", "")) })
	want := []string{
		"https://blog.example.org/about",
		"https://blog.example.org/up",
		"https://blog.example.org/posts/hello#top",
		"https://cdn.example/x",
	}
	if strings.Join(hrefs, " ") != strings.Join(want, " ") {
		t.Errorf("hrefs = %q, want %q", hrefs, want)
	}
	if src := doc.Find("img").AttrOr("src", ""); src != "https://blog.example.org/posts/img/cat.png" {
		t.Errorf("img src = %q", src)
	}
	if cite := doc.Find("blockquote").AttrOr("cite", ""); cite != "https://blog.example.org/source" {
		t.Errorf("cite = %q", cite)
	}
}

func TestSanitizeWithoutBaseDropsRelativeURLs(t *testing.T) {
	doc := htmltest.Parse(t, SanitizeHTML(`<a href="/about">about</a><img src="cat.png"><a href="https://ok.example/">ok</a>`, ""))
	if n := doc.Find("a[href]").Length(); n != 1 {
		t.Errorf("%d links with href, want only the absolute one", n)
	}
	if doc.Find("img").Length() != 0 {
		t.Error("an image with an unresolvable src was kept")
	}
	if !strings.Contains(doc.Text(), "about") {
		t.Error("link text lost with its href")
	}
}

func TestEntryURL(t *testing.T) {
	cases := []struct{ feed, link, want string }{
		{"https://ex.org/blog/feed.xml", "/posts/1", "https://ex.org/posts/1"},
		{"https://ex.org/blog/feed.xml", "post-2.html", "https://ex.org/blog/post-2.html"},
		{"https://ex.org/feed", "https://other.org/a", "https://other.org/a"},
		{"https://ex.org/feed", "javascript:alert(1)", ""},
		{"https://ex.org/feed", "", ""},
		{"", "/relative", ""},
		// Shown without tracking parameters, the rest as the feed gives it.
		{"https://ex.org/feed", "/p?id=7&utm_source=rss&utm_medium=feed&fbclid=x#more", "https://ex.org/p?id=7#more"},
	}
	for _, c := range cases {
		if got := EntryURL(c.feed, c.link); got != c.want {
			t.Errorf("EntryURL(%q, %q) = %q, want %q", c.feed, c.link, got, c.want)
		}
	}
}

func TestSanitizeDropsTrackingPixels(t *testing.T) {
	in := `<p>Text</p>` +
		`<img src="https://t.example/a.gif" width="1" height="1">` +
		`<img src="https://t.example/b.gif" width="1px" height="1px">` +
		`<img src="https://t.example/c.gif" width="0" height="0">` +
		`<img src="https://t.example/d.gif" style="width:1px;height:1px">` +
		`<img src="https://t.example/e.gif" width="1" style="height: 1px !important">` +
		`<img src="https://ok.example/wide.png" width="1" height="400">` +
		`<img src="https://ok.example/photo.jpg" width="640" height="480">` +
		`<img src="https://ok.example/nosize.jpg">`
	out := SanitizeHTML(in, "")
	if strings.Contains(out, "t.example") {
		t.Errorf("a tracking pixel survived: %s", out)
	}
	for _, keep := range []string{"wide.png", "photo.jpg", "nosize.jpg", "Text"} {
		if !strings.Contains(out, keep) {
			t.Errorf("%s was dropped: %s", keep, out)
		}
	}
}

func TestSanitizeKeepsOrdinaryMarkup(t *testing.T) {
	in := `<h2 id="archive">Title</h2><p><em>e</em> <strong>s</strong> <code>c</code></p><ul><li>one</li></ul><pre>x := 1</pre><blockquote>q</blockquote><table><tr><td>cell</td></tr></table>`
	doc := htmltest.Parse(t, SanitizeHTML(in, ""))
	if doc.Find("[id]").Length() != 0 {
		t.Error("content ids kept; they could clash with the page's anchors")
	}
	for _, sel := range []string{"h2", "em", "strong", "code", "ul li", "pre", "blockquote", "td"} {
		if doc.Find(sel).Length() == 0 {
			t.Errorf("%s was removed", sel)
		}
	}
	if SanitizeHTML("   ", "") != "" {
		t.Error("blank input should give empty output")
	}
}

func TestSanitizeDemotesHeadings(t *testing.T) {
	in := `<h2>a</h2><h3>b</h3><h5>c</h5><h1>d</h1>`
	if out := SanitizeHTML(in, ""); out != in {
		t.Errorf("SanitizeHTML changed the headings: %s", out)
	}
	doc := htmltest.Parse(t, sanitize(in, "", 4))
	var got []string
	doc.Find("h1, h2, h3, h4, h5, h6").Each(func(_ int, h *goquery.Selection) {
		got = append(got, h.Nodes[0].Data+":"+h.Text())
	})
	if want := "h5:a h6:b h6:c h4:d"; strings.Join(got, " ") != want {
		t.Errorf("headings %v, want %s", got, want)
	}
}

// FuzzSanitize checks the promises of SanitizeHTML on any input: nothing
// that runs, only http(s)/mailto URLs without user information, rel on
// every link, no image map, no control or noncharacter.
func FuzzSanitize(f *testing.F) {
	for _, seed := range []string{
		htmltest.Hostile,
		`<a href="/x">x</a>`,
		`<img src=x onerror=alert(1)>`,
		`<a href="jav&#x61;script:alert(1)">x</a>`,
		`<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>`,
		`<a href="https://ex.org/" rel="opener" target="_blank">x</a>`,
		`<p>plain &amp; simple</p>`,
		`<table><a href="https://ex.org/">foster</a><tr><td>x</td></tr></table>`,
		`<noscript><a href="javascript:alert(1)">x</a></noscript>`,
		`<a href="https://ex.org/"><a href="javascript:x">nested</a></a>`,
		`<img src="p.png" usemap="#m"><map name="m"><area href="https://evil.example/" coords="0,0,9,9"><p>in</p></map>`,
		`<a href="https://paypal.com@evil.example/">pay</a><img src="//u:p@evil.example/i.png">`,
		"<p title=\"\x01\uFFFE\">x\x1b&#1;&#xFFFF;\xff</p><a href=\"mailto:a\uFFFE@b.example\">m</a>",
	} {
		f.Add(seed, "https://blog.example.org/post")
	}
	f.Fuzz(func(t *testing.T, raw, base string) {
		out := SanitizeHTML(raw, base)
		if strings.Contains(strings.ToLower(out), "<script") {
			t.Fatalf("<script in output: %q", out)
		}
		htmltest.CheckNoDirt(t, "SanitizeHTML", []byte(out))
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		doc.Find("*").Each(func(_ int, s *goquery.Selection) {
			checkNode(t, s)
		})
	})
}

// checkNode asserts the per-element invariants of sanitised output.
func checkNode(t *testing.T, s *goquery.Selection) {
	n := s.Nodes[0]
	switch n.Data {
	case "script", "style", "iframe", "form", "object", "embed", "svg", "math", "base", "meta", "link", "map", "area":
		t.Fatalf("<%s> in output", n.Data)
	}
	for _, a := range n.Attr {
		key := strings.ToLower(a.Key)
		if strings.HasPrefix(key, "on") || key == "style" || key == "srcdoc" || key == "usemap" {
			t.Fatalf("<%s %s=%q> in output", n.Data, a.Key, a.Val)
		}
		if key == "href" || key == "src" || key == "cite" {
			checkURL(t, n.Data, a.Val)
			checkNoUserinfo(t, n.Data, a.Val)
		}
	}
	if n.Data == "a" && s.AttrOr("href", "") != "" {
		if rel := s.AttrOr("rel", ""); rel != relSafe {
			t.Fatalf("<a href=%q rel=%q>", s.AttrOr("href", ""), rel)
		}
	}
}

func checkURL(t *testing.T, el, v string) {
	u, err := url.Parse(v)
	if err != nil {
		t.Fatalf("<%s> unparseable URL %q", el, v)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto":
	default:
		t.Fatalf("<%s> URL %q has scheme %q", el, v, u.Scheme)
	}
}

// hrefs lists the link targets of sanitised HTML.
func hrefs(clean string) []string {
	if !strings.Contains(clean, "href") {
		return nil
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(clean))
	if err != nil {
		return nil
	}
	var out []string
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		out = append(out, a.AttrOr("href", ""))
	})
	return out
}

// checkNoUserinfo fails a fuzz run whose output links carry user
// information.
func checkNoUserinfo(t *testing.T, el, v string) {
	if u, err := url.Parse(v); err == nil && u.User != nil {
		t.Fatalf("<%s> URL %q keeps user information", el, v)
	}
}
