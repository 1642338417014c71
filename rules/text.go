package rules

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PlainText is the text of an HTML fragment (or of plain text), words
// separated by single spaces, without scripts and styles: what a rule on
// "text" reads, so that a pattern never matches markup ("class", "href").
func PlainText(fragment string) string {
	if !strings.ContainsAny(fragment, "<&") {
		return strings.Join(strings.Fields(fragment), " ")
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(fragment))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.StartTagToken:
			if hidden(z) {
				skip++
			}
			b.WriteByte(' ')
		case html.EndTagToken:
			if hidden(z) && skip > 0 {
				skip--
			}
			b.WriteByte(' ')
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		}
	}
}

// hidden says whether the tag just read holds no text a reader sees.
func hidden(z *html.Tokenizer) bool {
	name, _ := z.TagName()
	switch atom.Lookup(name) {
	case atom.Script, atom.Style, atom.Template:
		return true
	}
	return false
}
