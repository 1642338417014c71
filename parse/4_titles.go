package parse

import (
	"bytes"
	"html"
	"strings"

	"github.com/mmcdole/gofeed/atom"
)

// Titles reach render as HTML (as RSS titles and Atom html and xhtml
// titles are), whose visible text is the title. An Atom title of type text
// (the default) is text, though: gofeed returns it decoded, so "&lt;script&gt;
// tags, explained" came out as "<script> tags, explained", whose visible
// text as HTML is nothing at all, and the title was lost. Such titles are
// escaped back into HTML here, when read as HTML they would not say the
// same ("Tom & Jerry" reads the same either way and is left as it is, for
// the places that show titles as they are). gofeed does not say which type
// a title had, so the types are read from the body (atomTitleTypes).

// escapeTextTitles escapes the feed's and the entries' text titles.
func escapeTextTitles(body []byte, raw *atom.Feed) {
	feedText, entriesText := atomTitleTypes(body)
	if feedText {
		raw.Title = textAsHTML(raw.Title)
	}
	if len(entriesText) != len(raw.Entries) {
		return // the scan and the parser disagree: leave the titles as parsed
	}
	for i, e := range raw.Entries {
		if e != nil && entriesText[i] {
			e.Title = textAsHTML(e.Title)
		}
	}
}

// textAsHTML is text as HTML saying the same: escaped when it holds markup
// or a character reference.
func textAsHTML(text string) string {
	if strings.Contains(text, "<") || html.UnescapeString(text) != text {
		return html.EscapeString(text)
	}
	return text
}

// atomTitleTypes says, for the feed's title and each entry's, whether it
// is text (rather than html or xhtml). A title is the last <title> child of
// the root or of an <entry>, with the same namespace prefix as its parent
// (a media:title is another element).
func atomTitleTypes(body []byte) (feedText bool, entriesText []bool) {
	s := markupScan{body: withoutControls(body), nesting: true}
	s.onStart = func(name, attrs []byte) {
		switch {
		case s.depth == 1 && sameElement(name, s.open[0].name, "entry"):
			entriesText = append(entriesText, false)
		case s.depth == 1 && sameElement(name, s.open[0].name, "title"):
			feedText = isTextConstruct(attrs)
		case s.depth == 2 && len(entriesText) > 0 && sameElement(s.open[1].name, s.open[0].name, "entry") &&
			sameElement(name, s.open[1].name, "title"):
			entriesText[len(entriesText)-1] = isTextConstruct(attrs)
		}
	}
	s.run()
	return feedText, entriesText
}

// sameElement says name is local in the namespace prefix of parent.
func sameElement(name, parent []byte, local string) bool {
	prefix := func(n []byte) []byte {
		if i := bytes.LastIndexByte(n, ':'); i >= 0 {
			return n[:i]
		}
		return nil
	}
	return string(localName(name)) == local && bytes.Equal(prefix(name), prefix(parent))
}

// isTextConstruct reads the type (and Atom 0.3 mode) of a text construct
// as gofeed does, except that "text/html" counts as html.
func isTextConstruct(attrs []byte) bool {
	typ := strings.ToLower(strings.TrimSpace(attrValue(attrs, "type")))
	mode := attrValue(attrs, "mode")
	return typ == "text" || typ == "text/plain" || (typ == "" && mode == "")
}

// attrValue is the value of the attribute named name in the rest of a
// start tag, "" when absent.
func attrValue(attrs []byte, name string) string {
	for i := 0; i < len(attrs); {
		c := attrs[i]
		if !isNameStart(c) {
			i++
			continue
		}
		start := i
		for i < len(attrs) && isNameByte(attrs[i]) {
			i++
		}
		attr := attrs[start:i]
		for i < len(attrs) && (attrs[i] == ' ' || attrs[i] == '\t' || attrs[i] == '\n' || attrs[i] == '\r') {
			i++
		}
		if i >= len(attrs) || attrs[i] != '=' {
			continue
		}
		i++
		for i < len(attrs) && (attrs[i] == ' ' || attrs[i] == '\t' || attrs[i] == '\n' || attrs[i] == '\r') {
			i++
		}
		var value []byte
		if i < len(attrs) && (attrs[i] == '"' || attrs[i] == '\'') {
			end := bytes.IndexByte(attrs[i+1:], attrs[i])
			if end < 0 {
				return ""
			}
			value, i = attrs[i+1:i+1+end], i+end+2
		} else {
			vs := i
			for i < len(attrs) && isNameByte(attrs[i]) {
				i++
			}
			value = attrs[vs:i]
		}
		if string(attr) == name {
			return string(value)
		}
	}
	return ""
}
