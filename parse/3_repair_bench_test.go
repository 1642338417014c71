package parse

import (
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
)

func BenchmarkCheckXML(b *testing.B) {
	in := benchAtomBody()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if r := checkXML(in); r != 0 {
			b.Fatal(r)
		}
	}
}

// BenchmarkRead measures reading a well-formed Atom body of 10 entries,
// as BenchmarkRun2000Feeds' farm serves (e2e/), through every stage:
// its allocations are the collector's work on a new day.
func BenchmarkRead(b *testing.B) {
	in := benchAtomBody()
	base, _ := url.Parse("https://site.example/feed")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if p, err := Read(in, "application/atom+xml", base); err != nil || len(p.Feed.Entries) != 10 {
			b.Fatalf("%d entries, %v", len(p.Feed.Entries), err)
		}
	}
}

// benchAtomBody is an Atom feed of 10 entries of about 1.5 KB of HTML.
func benchAtomBody() []byte {
	para := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 6)
	var body strings.Builder
	body.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n" + `<feed xmlns="http://www.w3.org/2005/Atom"><title>Bench</title>`)
	for n := range 10 {
		content := fmt.Sprintf(`<p>%s<a href="/posts/%d">an earlier post</a> and <a href="https://other.example/x?y=%d">a friend</a>.</p><p><img src="img/%d.png" alt="a figure"> %s</p><script>alert(%d)</script><p><em>%s</em></p>`, para, n, n, n, para, n, para)
		fmt.Fprintf(&body, "<entry><id>urn:bench:%d</id><title>Entry %d</title><link href=\"https://site.example/posts/%d\"/><updated>2026-11-21T08:0%d:00Z</updated><content type=\"html\">%s</content></entry>\n", n, n, n, n, html.EscapeString(content))
	}
	body.WriteString("</feed>\n")
	return []byte(body.String())
}
