package ingest

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"feeddigest/domain"
	"feeddigest/internal/htmltest"
)

// goquerySanitize is sanitize as it was written with goquery, one
// selector pass a step, which made the fragments of rules 1, with the
// steps of rules 2 added (image maps out, text cleaned): tidy's single
// walk must give the same bytes, or FragmentRules must change.
func goquerySanitize(raw, base string, top int) string {
	if strings.TrimSpace(raw) == "" {
		return ""
	}
	clean := contentPolicy().Sanitize(dropPixels(linkFrames(raw, base)))
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(clean))
	if err != nil {
		return ""
	}
	body := doc.Find("body")
	for _, n := range body.Find("*").AddBack().Nodes {
		for i := range n.Attr {
			n.Attr[i].Val, _ = cleanText(n.Attr[i].Val)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				c.Data, _ = cleanText(c.Data)
			}
		}
	}
	body.Find("map").Contents().Unwrap()
	body.Find("map, area").Remove()
	base1 := domain.AbsoluteHTTP(base)
	for _, attr := range urlAttrs {
		body.Find("[" + attr + "]").Each(func(_ int, el *goquery.Selection) {
			v, _ := el.Attr(attr)
			if abs := resolve(base1, v); abs != "" {
				el.SetAttr(attr, abs)
			} else {
				el.RemoveAttr(attr)
			}
		})
	}
	body.Find("img:not([src])").Remove()
	body.Find("img").RemoveAttr("usemap")
	body.Find("a[href]").SetAttr("rel", relSafe)
	body.Find("[id]").RemoveAttr("id")
	shiftHeadings(body, top)
	body.Find("img").SetAttr("loading", "lazy")
	out, err := body.Html()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

var tidySeeds = []string{
	htmltest.Hostile,
	`<a href="/x" id="a" title="t">x</a><area href="y" id="b" alt="z">`,
	`<img id="i" alt="a" src="/p.png" title="t"><img src="javascript:x" alt="gone">`,
	`<blockquote cite="../c" id="q"><p>q</p></blockquote>`,
	`<h2 id="x">two</h2><h4>four</h4><h6>six</h6><h1>one</h1>`,
	`<a href="https://ex.org/" rel="opener" id="x" target="_blank">x</a>`,
	`<table><a href="https://ex.org/">foster</a><tr><td>x<img src="y"></td></tr></table>`,
	`<a href="x" href="y" id="1" id="2">dup</a>`,
	`<img src="a.png" width="1" height="1"><img src="b.png" width="10" height="10" id="k">`,
	`<details><summary>s</summary><img src="d.png" loading="eager"></details>`,
	`<p>plain &amp; simple</p>`,
	`<img src="m.png" usemap="#m" alt="m" id="x"><map name="m"><p>in <b>map</b></p><area href="https://evil.example/" shape="rect" coords="0,0,999,999"><map name="n">inner</map></map>`,
	"<p title=\"a\x01b\uFFFE\">c\x02d&#1;e&#xFFFF;\u202e</p><pre>\x7f\u0085x\ty</pre>",
}

func TestTidyAsGoquery(t *testing.T) {
	for _, raw := range tidySeeds {
		for _, top := range []int{0, 2, fragmentTop} {
			for _, base := range []string{"https://blog.example.org/a/post", ""} {
				if got, want := sanitize(raw, base, top), goquerySanitize(raw, base, top); got != want {
					t.Errorf("sanitize(%q, %q, %d)\n got %q\nwant %q", raw, base, top, got, want)
				}
			}
		}
	}
}

func FuzzTidyAsGoquery(f *testing.F) {
	for _, s := range tidySeeds {
		f.Add(s, "https://blog.example.org/a/post", fragmentTop)
	}
	f.Fuzz(func(t *testing.T, raw, base string, top int) {
		top = max(0, min(top, 6))
		if got, want := sanitize(raw, base, top), goquerySanitize(raw, base, top); got != want {
			t.Fatalf("sanitize(%q, %q, %d)\n got %q\nwant %q", raw, base, top, got, want)
		}
	})
}
