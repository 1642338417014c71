package render

import (
	"html/template"
	"strconv"
	"strings"
)

// The rows of the status page's feed table are written by appendStatusRow
// rather than by a template: at 20,000 feeds, html/template's reflective
// call for every value it escapes cost 40 µs a row, a second of CPU and
// most of the end of a shared pass. The output is the template's, byte for
// byte: render/testdata/status-rows.tmpl keeps the template, and a fuzz
// test (FuzzStatusRow) holds the two equal. Measured again (issue 23,
// BenchmarkStatusPage, 20,000 feeds, a loaded 2-core machine): 0.64-0.78 s
// and 0.5 million allocations a page with this writer, 2.2-3.2 s and 3.1
// million with the template writing the rows.

// appendStatusRow appends the table row of r.
func appendStatusRow(b []byte, r statusRow) []byte {
	b = append(b, "<tr>\n<th scope=\"row\">"...)
	b = appendLinkedURL(b, r.URL)
	if r.EffectiveURL != "" {
		b = append(b, "<br><span class=\"m\">now "...)
		b = appendLinkedURL(b, r.EffectiveURL)
		b = append(b, "</span>"...)
	}
	b = append(b, "</th>\n<td data-label=\"State\">"...)
	b = appendEscaped(b, string(r.State))
	b = append(b, "</td>\n<td data-label=\"Title\">"...)
	b = appendEscaped(b, r.Title)
	b = append(b, "</td>\n<td data-label=\"Subscribers\">"...)
	for i, u := range r.Subscribers {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendEscaped(b, u)
	}
	b = append(b, "</td>\n<td data-label=\"Last poll\">"...)
	b = appendWhen(b, r.LastPoll)
	b = append(b, "</td>\n<td data-label=\"Last status\">"...)
	b = appendEscaped(b, r.LastStatus)
	if r.Server != "" {
		b = append(b, "<br><span class=\"m\">"...)
		b = appendEscaped(b, r.Server)
		b = append(b, "</span>"...)
	}
	b = append(b, "</td>\n<td data-label=\"Last error\" class=\"x\">"...)
	b = appendEscaped(b, r.LastError)
	b = append(b, "</td>\n<td data-label=\"Next poll\">"...)
	b = appendWhen(b, r.NextPoll)
	if r.Reason != "" {
		b = append(b, "<br><span class=\"m\">"...)
		b = appendEscaped(b, r.Reason)
		b = append(b, "</span>"...)
	}
	b = append(b, "</td>\n<td data-label=\"Errors\">"...)
	b = strconv.AppendInt(b, int64(r.ErrorCount), 10)
	b = append(b, "</td>\n<td data-label=\"Entries\">"...)
	b = strconv.AppendInt(b, int64(r.Entries), 10)
	return append(b, "</td>\n</tr>\n"...)
}

// appendLinkedURL is the template "url": a link when the URL is one a
// page may link, else its text.
func appendLinkedURL(b []byte, url string) []byte {
	if safeLink(url) == "" {
		return appendURLText(b, url)
	}
	b = append(b, "<a href=\""...)
	b = appendEscaped(b, normalizedURL(url))
	b = append(b, "\" rel=\"noopener noreferrer\">"...)
	b = appendURLText(b, url)
	return append(b, "</a>"...)
}

// urlText is the template "urlText": a URL as the status table shows
// it (see appendURLText).
func urlText(url string) template.HTML { return template.HTML(appendURLText(nil, url)) }

// urlRun is the longest run of a URL's characters shown without a place
// to break the line: a column of the status table is about that wide.
const urlRun = 16

// appendURLText appends url as text, escaped, with a <wbr> where a line
// may break: after each "/" (not inside "//"), before "?", "&" and "#",
// and every urlRun characters of a run without such a place, a hyphen
// (after which browsers break anyway) or a dot: a token, a hash. So an
// address breaks between its parts, not inside a word of its host or
// path (the stylesheet breaks a word only when a column is narrower
// still), and the columns still fit a screen of 1200 px.
func appendURLText(b []byte, url string) []byte {
	start, run := 0, 0
	for i, r := range url {
		part := r == '?' || r == '&' || r == '#' || i > 0 && url[i-1] == '/' && r != '/'
		long := run >= urlRun && !strings.ContainsRune("/-.?&#", r)
		if i > start && (part || long) {
			b = appendEscaped(b, url[start:i])
			b = append(b, "<wbr>"...)
			start, run = i, 0
		}
		run++
		if r == '-' || r == '.' {
			run = 0 // a word ends: browsers break after a hyphen
		}
	}
	return appendEscaped(b, url[start:])
}

// appendWhen is the template "when".
func appendWhen(b []byte, t timeView) []byte {
	if t.ISO == "" {
		return appendEscaped(b, t.Label)
	}
	b = append(b, "<time datetime=\""...)
	b = appendEscaped(b, t.ISO)
	b = append(b, "\">"...)
	b = appendEscaped(b, t.Label)
	return append(b, "</time>"...)
}

// appendEscaped escapes s as html/template escapes a string in text and
// in a quoted attribute.
func appendEscaped(b []byte, s string) []byte {
	written := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b = append(b, s[written:i]...)
		b = append(b, repl...)
		written = i + 1
	}
	return append(b, s[written:]...)
}

// normalizedURL is url as html/template normalizes a URL in an attribute:
// every byte that is neither reserved nor unreserved in RFC 3986, and
// quotes and parentheses, percent-encoded; valid escapes kept.
func normalizedURL(url string) string {
	var b []byte
	written := 0
	for i := 0; i < len(url); i++ {
		c := url[i]
		if urlKept(url, i) {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(url)+16)
		}
		b = append(b, url[written:i]...)
		b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
		written = i + 1
	}
	if b == nil {
		return url
	}
	return string(append(b, url[written:]...))
}

const hexDigits = "0123456789abcdef"

// urlKept says whether the byte at i of url stays as it is.
func urlKept(url string, i int) bool {
	c := url[i]
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '&', '*', '+', ',', '/', ':', ';', '=', '?', '@', '[', ']', '-', '.', '_', '~':
		return true
	case '%':
		return i+2 < len(url) && isHexDigit(url[i+1]) && isHexDigit(url[i+2])
	}
	return false
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func appendStatusRows(b []byte, rows []statusRow) []byte {
	for _, r := range rows {
		b = appendStatusRow(b, r)
	}
	return b
}
