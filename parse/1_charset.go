package parse

import (
	"bytes"
	"mime"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// prologEncoding finds the encoding declaration of an XML prolog written
// in ASCII bytes (so the document is in an ASCII-compatible encoding, or in
// UTF-8 already): group 1 is the label.
var prologEncoding = regexp.MustCompile(`^\x{FEFF}?\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]*)["']`)

// feedUTF8 returns a feed body as UTF-8, with any XML prolog saying so.
//
// gofeed honours only the prolog's encoding and takes everything else for
// UTF-8, so the HTTP charset would be lost; and a body decoded twice turns
// "Café" into "CafÃ©". Hence: a body that is valid UTF-8 is never converted
// (servers often label UTF-8 as ISO-8859-1, and Latin text in another
// encoding is almost never valid UTF-8 by accident), and one that is not
// is decoded with the HTTP charset, else the prolog's, else windows-1252
// (the web's default, a superset of Latin-1). Either way a prolog that
// names another encoding is rewritten to UTF-8, so the parser does not
// decode again.
func feedUTF8(body []byte, contentType string) []byte {
	if utf8.Valid(body) {
		return declareUTF8(body)
	}
	var declared string
	if m := prologEncoding.FindSubmatch(body); m != nil {
		declared = string(m[1])
	}
	enc := pickEncoding(httpCharset(contentType), declared)
	// A byte-order mark outranks every label.
	decoded, _, err := transform.Bytes(unicode.BOMOverride(enc.NewDecoder()), body)
	if err != nil {
		return body
	}
	return declareUTF8(decoded)
}

// declareUTF8 rewrites a prolog encoding declaration other than UTF-8.
func declareUTF8(body []byte) []byte {
	loc := prologEncoding.FindSubmatchIndex(body)
	if loc == nil || strings.EqualFold(string(body[loc[2]:loc[3]]), "utf-8") {
		return body
	}
	out := make([]byte, 0, len(body)+5)
	out = append(out, body[:loc[2]]...)
	out = append(out, "UTF-8"...)
	return append(out, body[loc[3]:]...)
}

// pickEncoding takes the first usable label: the HTTP charset outranks the
// prolog (RFC 7303). A label naming UTF-8 is not usable, because the body
// has just been found not to be UTF-8.
func pickEncoding(labels ...string) encoding.Encoding {
	for _, label := range labels {
		if label == "" {
			continue
		}
		if enc, name := charset.Lookup(label); enc != nil && name != "utf-8" {
			return enc
		}
	}
	return charmap.Windows1252
}

func httpCharset(contentType string) string {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(params["charset"])
}

// htmlUTF8 returns an HTML page as UTF-8. Here the page's own <meta
// charset> counts too (charset.DetermineEncoding reads BOM, Content-Type,
// then meta), but again a valid UTF-8 page is left alone.
func htmlUTF8(body []byte, contentType string) []byte {
	if utf8.Valid(body) {
		return body
	}
	enc, _, _ := charset.DetermineEncoding(body, contentType)
	decoded, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return bytes.ToValidUTF8(decoded, []byte("\uFFFD"))
}

// PageUTF8 returns a web page (a teaser's article page) as UTF-8, by the
// rules of an HTML feed page: BOM, the HTTP charset, then <meta charset>,
// and a valid UTF-8 page left alone.
func PageUTF8(body []byte, contentType string) []byte {
	return htmlUTF8(body, contentType)
}
