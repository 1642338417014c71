package ingest

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"feeddigest/domain"
)

// Limits of the short texts. A display title stands in for a headline, so
// it stays a line long; an excerpt is a taste, not the post.
const (
	titleWords   = 10
	titleChars   = 80
	maxTitleLen  = 160
	excerptWords = 40
	excerptChars = 280
	Ellipsis     = "…"
)

// DisplayTitle is what an entry is called in a digest (as Artemis does):
// its title as plain text, else the first words of its text followed by
// "…", else "Untitled post".
func DisplayTitle(e domain.Entry) string {
	if t := PlainText(e.Title); t != "" {
		return Cut(t, maxTitleLen, maxTitleLen)
	}
	return displayTitle("", entryText(e))
}

// displayTitle is DisplayTitle of an entry titled title whose plain text
// is text.
func displayTitle(title, text string) string {
	if t := PlainText(title); t != "" {
		return Cut(t, maxTitleLen, maxTitleLen)
	}
	if text != "" {
		return Cut(text, titleWords, titleChars)
	}
	return Untitled
}

// Untitled is the display title of an entry with neither a title nor a
// text: stored in its fragments, it is a code as much as words, and
// render words it in the reader's language.
const Untitled = "Untitled post"

// ShortName is a feed's or an author's name as plain text, cut as an
// entry's title is: a feed may name itself with a whole article.
func ShortName(s string) string {
	return Cut(PlainText(s), maxTitleLen, maxTitleLen)
}

// Excerpt is a short plain-text taste of the entry's content (or summary),
// cut at a word boundary.
func Excerpt(e domain.Entry) string {
	return Cut(entryText(e), excerptWords, excerptChars)
}

// entryText is the plain text of the content, else of the summary.
func entryText(e domain.Entry) string {
	if t := PlainText(e.Content); t != "" {
		return t
	}
	return PlainText(e.Summary)
}

// skipText are elements whose text is not prose a reader would see.
var skipText = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"iframe": true, "object": true, "embed": true, "svg": true, "math": true,
	"title": true, "head": true, "textarea": true, "select": true,
}

// blockText are elements that separate words: without a space between
// them "<p>one</p><p>two</p>" would read "onetwo". Text in the next block
// follows after blockSeparator.
var blockText = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"blockquote": true, "pre": true, "table": true, "tr": true, "td": true,
	"th": true, "section": true, "article": true, "header": true,
	"footer": true, "figure": true, "figcaption": true, "dl": true,
	"dt": true, "dd": true, "hr": true, "aside": true, "details": true,
	"summary": true, "address": true, "main": true, "nav": true,
}

// PlainText is the visible text of an HTML fragment with whitespace
// collapsed. Plain text input comes back unchanged but for entities and
// the characters that have no place in a page (see cleanText), which are
// dropped after entities are read, as "&#1;" is one of them too.
func PlainText(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	text, ok := "", false
	if !strings.ContainsAny(s, "<&") {
		text, ok = collapseSpace(s), true
	}
	if !ok {
		text, ok = simpleText(s)
	}
	if !ok {
		text = treeTextOf(s)
	}
	if clean, changed := cleanText(text); changed {
		// A control between two spaces leaves two.
		return collapseSpace(clean)
	}
	return text
}

// treeTextOf is PlainText of any HTML, from the tree the parser builds.
func treeTextOf(s string) string {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return ""
	}
	body := findBody(doc)
	if body == nil {
		return ""
	}
	return treeText(body)
}

// blockSeparator is what stands between the text of one block and the
// next one's (a heading and its paragraph, a caption and the sentence
// after it, two list items), before being the text so far: a space after
// text that ends a sentence or a clause, else " · ". Without it an
// excerpt runs a heading into the sentence that follows ("Photo: A.
// Lindqvist The measurement Every autumn"); a full stop would be
// inventing the writer's punctuation, and a middle dot is read as the
// break it is, in every script.
func blockSeparator(before string) string {
	end := strings.TrimRightFunc(before, func(r rune) bool {
		return !visible(r) || unicode.In(r, unicode.Pe, unicode.Pf) || r == '"' || r == '\''
	})
	last, _ := utf8.DecodeLastRuneInString(end)
	if end == "" || strings.ContainsRune(clauseEnds, last) {
		return " "
	}
	return " · "
}

// clauseEnds are the marks after which a new block needs no separator:
// the ends of sentences and clauses in the scripts feeds are written in.
const clauseEnds = ".!?…:;,·。！？，؟،۔।"

// visible says whether r shows in text: neither white space nor a
// character cleanText drops.
func visible(r rune) bool {
	return !unicode.IsSpace(r) && !stripsHTML(r)
}

// hasVisible says whether s holds a rune that shows (see visible).
func hasVisible(s string) bool {
	return strings.IndexFunc(s, visible) >= 0
}

// simpleElements are the elements of ordinary feed HTML whose text the
// parser's tree keeps in the order of the tokens, and whose words it
// separates where the tokens are (no foster parenting as in tables, no
// raw text as in script, no foreign content as in svg).
var simpleElements = map[string]bool{
	"a": true, "abbr": true, "b": true, "bdi": true, "bdo": true, "cite": true, "code": true,
	"del": true, "dfn": true, "em": true, "i": true, "ins": true, "kbd": true, "mark": true,
	"q": true, "s": true, "samp": true, "small": true, "span": true, "strong": true, "sub": true,
	"sup": true, "time": true, "u": true, "var": true,
	"p": true, "div": true, "blockquote": true, "ul": true, "ol": true, "li": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "pre": true,
	"figure": true, "figcaption": true, "section": true, "article": true, "header": true,
	"footer": true, "aside": true, "dl": true, "dt": true, "dd": true, "address": true,
	"main": true, "nav": true, "details": true, "summary": true,
}

// simpleSkipped are elements whose text simpleText skips (skipText): the
// tokenizer reads their content as raw text, as the parser does.
var simpleSkipped = map[string]bool{"script": true, "style": true, "iframe": true, "noscript": true}

// simpleVoid are the void elements simpleText reads.
var simpleVoid = map[string]bool{"br": true, "hr": true, "img": true, "wbr": true}

// simpleText is PlainText of s read token by token, without building the
// tree, when s is simple enough for that to give the same text: only
// simpleElements, simpleSkipped and simpleVoid, every end tag closing the element open
// last, no NUL. ok is false for anything else, which needs the tree.
func simpleText(s string) (text string, ok bool) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", false
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var open []string
	skipping := 0
	pending := false // a block ended or began since the last text
	var b strings.Builder
	b.Grow(len(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return "", false
			}
			return collapseSpace(b.String()), true
		case html.TextToken:
			if skipping == 0 {
				text := string(z.Text())
				if pending && hasVisible(text) {
					b.WriteString(blockSeparator(b.String()))
					pending = false
				}
				b.WriteString(text)
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			switch {
			case simpleVoid[string(name)]:
			case simpleElements[string(name)]:
				open = append(open, string(name))
			case simpleSkipped[string(name)]:
				open = append(open, string(name))
				skipping++
			default:
				return "", false
			}
			if blockText[string(name)] {
				b.WriteByte(' ')
				pending = true
			}
		case html.SelfClosingTagToken:
			name, _ := z.TagName()
			if !simpleVoid[string(name)] {
				return "", false
			}
			if blockText[string(name)] {
				b.WriteByte(' ')
				pending = true
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(open) == 0 || open[len(open)-1] != string(name) {
				return "", false
			}
			open = open[:len(open)-1]
			if simpleSkipped[string(name)] {
				skipping--
			}
			if blockText[string(name)] {
				b.WriteByte(' ')
				pending = true
			}
		case html.CommentToken:
		default: // a doctype
			return "", false
		}
	}
}

// textWriter holds the text below a node (see write), up to limit
// non-space ASCII bytes when limit is not negative.
type textWriter struct {
	strings.Builder
	limit, solid int
	pending      bool // a block ended or began since the last text
}

// write appends the text below n, with spaces around block elements, and
// says false as soon as w's limit is passed.
func (w *textWriter) write(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		if w.pending && hasVisible(n.Data) {
			w.WriteString(blockSeparator(w.String()))
			w.pending = false
		}
		w.WriteString(n.Data)
		if w.limit < 0 {
			return true
		}
		for i := 0; i < len(n.Data); i++ {
			if c := n.Data[i]; c < utf8.RuneSelf && !isASCIISpace(c) {
				w.solid++
			}
		}
		return w.solid <= w.limit
	case html.ElementNode:
		if skipText[n.Data] {
			return true
		}
	}
	block := n.Type == html.ElementNode && blockText[n.Data]
	if block {
		w.WriteByte(' ')
		w.pending = true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !w.write(c) {
			return false
		}
	}
	if block {
		w.WriteByte(' ')
		w.pending = true
	}
	return true
}

// isASCIISpace is unicode.IsSpace of an ASCII byte.
func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// Cut shortens whitespace-collapsed text to at most maxWords words and
// about maxChars characters, at a word boundary, marking the cut with "…".
func Cut(text string, maxWords, maxChars int) string {
	if utf8.RuneCountInString(text) <= maxChars && !moreWords(text, maxWords) {
		return text
	}
	// Word by word up to the cut, not splitting a whole post into words.
	var b strings.Builder
	n, i := 0, 0
	for w := range strings.FieldsSeq(text) {
		wn := utf8.RuneCountInString(w)
		if i == maxWords || (i > 0 && n+1+wn > maxChars) {
			break
		}
		if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += wn
		i++
	}
	out := b.String()
	if n > maxChars { // one word longer than the limit, e.g. a URL
		out = string([]rune(out)[:maxChars])
	}
	return strings.TrimRight(out, " ,;:-–—·") + Ellipsis
}

// moreWords says whether text has more than max words.
func moreWords(text string, max int) bool {
	n := 0
	for range strings.FieldsSeq(text) {
		if n++; n > max {
			return true
		}
	}
	return false
}

// StripControl removes from s the characters that change how the text
// around them reads rather than being read: control characters (C0, DEL
// and C1: a terminal escape sequence starts with one, a backspace can hide
// text) but newlines and tabs, the bidirectional embeddings, overrides and
// isolates (U+202A to U+202E, U+2066 to U+2069: a right-to-left override
// in a title shows the rest of its line reversed, and a mail client's
// plain text has no element to contain it as a page has), and
// noncharacters (see isNoncharacter). Invalid UTF-8 becomes U+FFFD. For
// plain text that feeds supply and people read in a terminal or a mail
// client.
//
// The marks U+200E, U+200F and U+061C stay: each is one invisible letter
// of a direction, which right-to-left text needs to place its numbers and
// punctuation right and which cannot turn the letters of another
// direction around.
func StripControl(s string) string {
	if !needsStrip(s, stripsPlain) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if stripsPlain(r) {
			return -1
		}
		return r
	}, s)
}

// OneLine is plain text from a feed or a server made safe for a terminal
// or a sentence: StripControl's, on one line (see domain.OneLine).
func OneLine(s string) string {
	return domain.OneLine(StripControl(s))
}

// stripsPlain says whether StripControl drops r.
func stripsPlain(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r), isNoncharacter(r):
		return true
	}
	return isBidiControl(r)
}

// isBidiControl says whether r opens or closes a run of text in another
// direction: the embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and the
// isolates (LRI, RLI, FSI, PDI).
func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// isNoncharacter says whether r is one of the 66 code points Unicode keeps
// out of text for good (U+FDD0 to U+FDEF, and the last two of every plane,
// U+FFFE and U+FFFF among them); HTML calls them a parse error and XML
// 1.0 refuses U+FFFE and U+FFFF.
func isNoncharacter(r rune) bool {
	return (r >= 0xfdd0 && r <= 0xfdef) || (r&0xfffe == 0xfffe && r <= unicode.MaxRune)
}

// stripsHTML says whether cleanText drops r: C0 controls but the white
// space HTML knows (tab, newline, form feed, carriage return), DEL, C1
// controls and noncharacters.
func stripsHTML(r rune) bool {
	switch r {
	case '\t', '\n', '\f', '\r':
		return false
	}
	return unicode.IsControl(r) || isNoncharacter(r)
}

// cleanText is s without the characters that are not text in a page, a
// feed or an HTML email (see stripsHTML; the two of them that part words,
// a vertical tab and U+0085, become spaces), and with invalid UTF-8 as
// U+FFFD; changed says whether that is not s. Feed-supplied text passes
// through it on its way into any of them: PlainText, and the text and
// attributes of sanitised content.
func cleanText(s string) (out string, changed bool) {
	if !needsStrip(s, stripsHTML) {
		return s, false
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\v' || r == '\u0085':
			// Controls, but white space to strings.Fields: a space, so
			// that the words they part stay apart in content as they do
			// in PlainText.
			return ' '
		case stripsHTML(r):
			return -1
		}
		return r
	}, s), true
}

// needsStrip says whether s holds a rune that strip drops, or invalid
// UTF-8. Most text holds none, and is read once without being copied.
func needsStrip(s string, strip func(rune) bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				if strip(rune(c)) {
					return true
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || strip(r) {
			return true
		}
		i += size
	}
	return false
}

// collapseSpace is strings.Join(strings.Fields(s), " ") (the same
// whitespace, unicode.IsSpace's) without the slice of words: it runs on
// every entry's text, twice. Text already collapsed comes back as it is.
func collapseSpace(s string) string {
	if collapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for w := range strings.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// collapsed says whether s has no whitespace but single spaces between
// words.
func collapsed(s string) bool {
	prevSpace := true // no space first
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case c < utf8.RuneSelf:
			if isASCIISpace(c) {
				return false
			}
			prevSpace = false
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return false
			}
			i += size - 1
			prevSpace = false
		}
	}
	return !prevSpace || s == ""
}
