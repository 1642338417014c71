package parse

import (
	"bytes"
	"strings"
)

// What a body looks like, by its first bytes and its Content-Type: the
// stages ask before they act (the shape scan whether it is JSON, the
// repair whether it may be XML, the formats what the label names, Read
// whether it is an HTML page).

// utf8BOM is the byte-order mark a UTF-8 body may start with.
var utf8BOM = []byte("\xEF\xBB\xBF")

// isJSONBody says a body starts as JSON does, after any byte-order mark
// and whitespace.
func isJSONBody(body []byte) bool {
	b := bytes.TrimLeft(bytes.TrimPrefix(body, utf8BOM), " \t\r\n")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// mayBeXML rules out what the XML repair has no business with: JSON and
// HTML pages (which stage 6 searches for their feeds).
func mayBeXML(body []byte) bool {
	rest := bytes.TrimLeft(bytes.TrimPrefix(body, utf8BOM), " \t\r\n")
	return len(rest) > 0 && rest[0] != '{' && rest[0] != '[' && !sniffHTML(body)
}

// isHTML says whether a body is an HTML page rather than a feed: by its
// Content-Type, or by its first markup, because servers send pages as
// text/plain, application/octet-stream or nothing at all.
func isHTML(body []byte, contentType string) bool {
	switch mediaType(contentType) {
	case "text/html", "application/xhtml+xml":
		return true
	}
	return sniffHTML(body)
}

// mediaType is the lower-case type/subtype of a Content-Type, parameters
// dropped; lenient, since a bad parameter does not change the type.
func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// htmlStarts are the elements an HTML page opens with (after a doctype,
// an XML prolog and comments); no feed format starts with one of them.
var htmlStarts = []string{"!doctype html", "html", "head", "body", "meta", "title", "link",
	"script", "style", "div", "p", "h1", "table", "a"}

// sniffHTML looks at the first kilobyte only: enough for any page's first
// element, and it keeps a huge body from costing time here.
func sniffHTML(body []byte) bool {
	b := bytes.TrimPrefix(body[:min(len(body), 1024)], utf8BOM)
	for {
		b = bytes.TrimLeft(b, " \t\r\n\f")
		var end []byte
		switch {
		case hasPrefixFold(b, "<?"):
			end = []byte("?>")
		case bytes.HasPrefix(b, []byte("<!--")):
			end = []byte("-->")
		}
		if end == nil {
			break
		}
		i := bytes.Index(b, end)
		if i < 0 {
			return false
		}
		b = b[i+len(end):]
	}
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	b = b[1:]
	for _, tag := range htmlStarts {
		if !hasPrefixFold(b, tag) {
			continue
		}
		// The name must end here: "<a" is not "<atom:feed", "<p" not "<pre".
		if rest := b[len(tag):]; len(rest) == 0 || bytes.IndexByte([]byte(" \t\r\n\f>/"), rest[0]) >= 0 {
			return true
		}
	}
	return false
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}
