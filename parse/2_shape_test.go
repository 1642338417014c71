package parse

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func nested(n int) string {
	return `<rss version="2.0"><channel><title>d</title><item><guid>1</guid><title>x</title><a xmlns="urn:x">` +
		strings.Repeat("<a>", n) + strings.Repeat("</a>", n) + `</a></item></channel></rss>`
}

func rssItems(n int, item func(i int) string) string {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>t</title>`)
	for i := range n {
		b.WriteString(item(i))
	}
	b.WriteString(`</channel></rss>`)
	return b.String()
}

func TestShapeBounds(t *testing.T) {
	// Levels above the nested <a>s: rss, channel, item, the outer <a>.
	const above = 4
	tests := []struct {
		name string
		body string
		want error
	}{
		{"nesting at the bound", nested(MaxDepth - above), nil},
		{"nesting past the bound", nested(MaxDepth - above + 1), ErrTooDeep},
		{"the reported body", nested(1_400_000), ErrTooDeep},
		{"Atom nesting", `<feed xmlns="http://www.w3.org/2005/Atom"><entry><x:a xmlns:x="urn:x">` +
			strings.Repeat("<x:a>", MaxDepth) + `</x:a></entry></feed>`, ErrTooDeep},
		{"nesting hidden by control characters", "<r\x01ss><channel><item>" + strings.Repeat("<a\x02>", MaxDepth), ErrTooDeep},
		{"nesting after a DOCTYPE holding a comment", `<!DOCTYPE rss [ <!-- < --> ]><rss><channel><item>` +
			strings.Repeat("<a>", MaxDepth), ErrTooDeep},
		{"nesting after a DOCTYPE with quoted brackets", `<!DOCTYPE rss [ <!ENTITY e "<>>"> ]><rss><channel><item>` +
			strings.Repeat("<a>", MaxDepth), ErrTooDeep},
		{"unclosed elements closed by their parent", rssItems(200, func(i int) string {
			return `<item><title>x</title><description>` + strings.Repeat("<br>", 100) + `</description></item>`
		}), nil},
		{"siblings", `<rss><channel><item><w xmlns="urn:x">` + strings.Repeat("<a/>", 1_600_000) + `</w></item></channel></rss>`, ErrTooManyNodes},
		{"attributes", `<rss><channel><item><w xmlns="urn:x" ` + strings.Repeat(`a="" `, MaxNodes) + `/></item></channel></rss>`, ErrTooManyNodes},
		{"entries", rssItems(100_000, func(i int) string { return fmt.Sprintf("<item><guid>%d</guid><title>x</title></item>", i) }), ErrTooManyNodes},
		{"entries under the bound", rssItems(20_000, func(i int) string { return fmt.Sprintf("<item><guid>%d</guid><title>x</title></item>", i) }), nil},
		{"namespaces in scope", `<rss ` + strings.Repeat(`xmlns:a="urn:x" `, MaxNamespaces+1) + `><channel/></rss>`, ErrTooManyNamespaces},
		{"namespaces declared one per entry", rssItems(2*MaxNamespaces, func(i int) string {
			return `<item><m:content xmlns:m="http://search.yahoo.com/mrss/"/></item>`
		}), nil},
		{"text in pieces", `<rss><channel><item><w xmlns="urn:x">` + strings.Repeat(strings.Repeat("y", 20_000)+"<b/>", 300) +
			`</w></item></channel></rss>`, ErrTooFragmented},
		{"CDATA in pieces", `<rss><channel><item><w xmlns="urn:x">` + strings.Repeat("<![CDATA["+strings.Repeat("y", 20_000)+"]]>", 300) +
			`</w></item></channel></rss>`, ErrTooFragmented},
		{"long text in one piece", `<rss><channel><item><description>` + strings.Repeat("y", 9_000_000) +
			`</description></item></channel></rss>`, nil},
		{"JSON nesting", `{"items":[{"x":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}]}`, ErrTooDeep},
		{"JSON brackets in strings", `{"items":[{"x":"` + strings.Repeat("[", 10*MaxDepth) + `"}]}`, nil},
		{"JSON values", `{"items":[` + strings.Repeat(`{},`, MaxNodes) + `{}]}`, ErrTooManyNodes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkShape([]byte(tt.body), true)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("checkShape = %v, want %v", err, tt.want)
			}
		})
	}
}

// An HTML page's nesting is the HTML parser's business (it refuses more
// than 512 levels): a page of unclosed paragraphs is a page, not an attack.
func TestShapeOfHTMLPagesIsOnlyCounted(t *testing.T) {
	page := "<!doctype html><html><body>" + strings.Repeat("<p>text<img src=x>", 1000) + "</body></html>"
	if err := checkShape([]byte(page), false); err != nil {
		t.Fatalf("page refused: %v", err)
	}
	if _, err := readFeedAt([]byte(page), "text/html", "https://example.org/"); !errors.Is(err, ErrNotFeed) {
		t.Errorf("readFeed = %v, want ErrNotFeed (an HTML page)", err)
	}
	huge := "<html><body>" + strings.Repeat("<i>", MaxNodes+1) + "</body></html>"
	if err := checkShape([]byte(huge), false); !errors.Is(err, ErrTooManyNodes) {
		t.Errorf("a page of %d elements: %v, want ErrTooManyNodes", MaxNodes+1, err)
	}
}

func TestParseRefusesTheNestedFeedQuickly(t *testing.T) {
	body := []byte(nested(1_400_000))
	start := time.Now()
	_, err := readFeedAt(body, "application/rss+xml", "https://example.org/feed")
	if !errors.Is(err, ErrTooDeep) {
		t.Fatalf("readFeed = %v, want ErrTooDeep", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	t.Logf("%v", err)
}

// Bounds apply to what gofeed's XML parsers will read, whatever the
// Content-Type says.
func TestParseBoundsFeedsWhateverTheirLabel(t *testing.T) {
	for _, ct := range []string{"text/html", "text/plain", "application/json", ""} {
		if _, err := readFeedAt([]byte(nested(200)), ct, ""); !errors.Is(err, ErrTooDeep) {
			t.Errorf("labelled %q: %v, want ErrTooDeep", ct, err)
		}
	}
}

// decoderDepth is the deepest nesting and the element count encoding/xml
// reads, as gofeed configures it (not strict, control characters
// filtered), up to its first error.
func decoderDepth(body []byte) (deepest, elements int) {
	d := xml.NewDecoder(bytes.NewReader(withoutControls(body)))
	d.Strict = false
	depth := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return deepest, elements
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			elements++
			deepest = max(deepest, depth)
		case xml.EndElement:
			depth--
		}
	}
}

// FuzzShapeScan: whatever the bytes, the scan never panics, and a body it
// lets through is no deeper and has no more elements than the decoder
// gofeed uses finds.
func FuzzShapeScan(f *testing.F) {
	for _, seed := range []string{
		nested(3), `<rss><channel><item><a><b></a></b></item></channel></rss>`,
		`<!DOCTYPE x [<!ENTITY a "<b>"> <!-- > -->]><feed><a x='>' y=z w><b/></a></feed>`,
		`<?xml version="1.0"?><rss><![CDATA[<a><a>]]><!-- <a> --><a:b xmlns:a="u">t</a:b></rss>`,
		"<r\x00ss><a\x01b><c>", `{"a":[[{"b":"]"}]]}`, "<a><b></c><d>",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		err := checkShape(body, true)
		checkShape(body, false)
		Nodes(body)
		if err != nil || isJSONBody(body) {
			return
		}
		var s markupScan
		s.body, s.nesting = withoutControls(body), true
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
		deepest, elements := decoderDepth(body)
		if s.deepest < deepest || s.nodes < elements {
			t.Fatalf("scan saw depth %d and %d nodes, the decoder depth %d and %d elements", s.deepest, s.nodes, deepest, elements)
		}
	})
}
