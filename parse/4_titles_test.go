package parse

import (
	"strings"
	"testing"

	"feeddigest/domain"
	"feeddigest/ingest"
)

// Titles are HTML for render, whose visible text is the title: an Atom
// text title that looks like markup keeps its text, an html or xhtml one
// its markup.
func TestAtomTitlesKeepTheirText(t *testing.T) {
	tests := []struct{ title, want, shown string }{
		{`<title>&lt;script&gt; tags, explained</title>`, "&lt;script&gt; tags, explained", "<script> tags, explained"},
		{`<title type="text">&lt;title&gt; and &lt;head&gt;</title>`, "&lt;title&gt; and &lt;head&gt;", "<title> and <head>"},
		{`<title><![CDATA[<b>not bold</b>]]></title>`, "&lt;b&gt;not bold&lt;/b&gt;", "<b>not bold</b>"},
		{`<title>AT&amp;amp;T</title>`, "AT&amp;amp;T", "AT&amp;T"},
		{`<title>Tom &amp; Jerry</title>`, "Tom & Jerry", "Tom & Jerry"},
		{`<title>Plain</title>`, "Plain", "Plain"},
		{`<title type="html">&lt;b&gt;Bold&lt;/b&gt; text</title>`, "<b>Bold</b> text", "Bold text"},
		{`<title type="html"><![CDATA[<em>Em</em> first]]></title>`, "<em>Em</em> first", "Em first"},
		{`<title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><b>Bold</b> text</div></title>`, "<b>Bold</b> text", "Bold text"},
		{`<title type="text/html">&lt;i&gt;I&lt;/i&gt;</title>`, "<i>I</i>", "I"},
	}
	for _, tt := range tests {
		t.Run(tt.title, func(t *testing.T) {
			body := `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">` + tt.title +
				`<entry><id>x</id><title type="html">first &lt;i&gt;entry&lt;/i&gt;</title></entry>` +
				`<entry><id>1</id><media:title type="html">&lt;b&gt;other&lt;/b&gt;</media:title>` + tt.title +
				`<source><title type="html">&lt;b&gt;source&lt;/b&gt;</title></source></entry></feed>`
			f, err := readFeedAt([]byte(body), "application/atom+xml", "https://example.org/")
			if err != nil {
				t.Fatal(err)
			}
			if f.Title != tt.want || f.Entries[1].Title != tt.want {
				t.Errorf("feed title %q, entry title %q; want %q", f.Title, f.Entries[1].Title, tt.want)
			}
			if shown := ingest.DisplayTitle(domain.Entry{Title: f.Entries[1].Title}); shown != tt.shown {
				t.Errorf("shown as %q, want %q", shown, tt.shown)
			}
			if f.Entries[0].Title != "first <i>entry</i>" {
				t.Errorf("the other entry's title became %q", f.Entries[0].Title)
			}
		})
	}
}

// An Atom feed written with a prefix reads the same.
func TestAtomTitlesWithAPrefix(t *testing.T) {
	body := `<a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:title>&lt;x&gt; feed</a:title>` +
		`<a:entry><a:id>1</a:id><a:title>&lt;y&gt; entry</a:title></a:entry></a:feed>`
	f, err := readFeedAt([]byte(body), "application/atom+xml", "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "&lt;x&gt; feed" || len(f.Entries) != 1 || f.Entries[0].Title != "&lt;y&gt; entry" {
		t.Errorf("feed %q, entries %+v", f.Title, f.Entries)
	}
}

func TestAttrValue(t *testing.T) {
	for attrs, want := range map[string]string{
		` type="html">`: "html", ` a="x" type='xhtml' b>`: "xhtml", ` type=text/>`: "text",
		` xml:type="no">`: "", ` type = "spaced" >`: "spaced", ` typed="no">`: "", `>`: "",
	} {
		if got := attrValue([]byte(attrs), "type"); got != want {
			t.Errorf("%q: %q, want %q", attrs, got, want)
		}
	}
	if strings.Contains(textAsHTML("a & b"), "&amp;") {
		t.Error("a bare ampersand was escaped")
	}
}
