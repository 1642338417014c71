package ingest

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/html"

	"feeddigest/domain"
)

// LinkedExcerpt is an excerpt for the plain-text email: each link whose
// text the excerpt shows is marked after that text with its number
// ("a friend [1]"), and listed by number below the excerpt, since plain
// text has no anchors and the URL would otherwise be lost.
type LinkedExcerpt struct {
	Text  string
	Links []ExcerptLink
}

// ExcerptLink is a link an excerpt marks with [N].
type ExcerptLink struct {
	N   int
	URL string
}

// LinkExcerpt marks in excerpt (cut from the text of content, the
// entry's sanitised HTML, and going on from its title when the entry is
// untitled: see afterTitle) the links whose text it shows. A link to the
// entry itself (own) is left out: its URL is under the title already.
// Text that cannot be matched to the excerpt gets no marks: never a
// number at the wrong word.
func LinkExcerpt(content, excerpt, title, own string) LinkedExcerpt {
	if strings.TrimSuffix(excerpt, Ellipsis) == "" || !strings.Contains(content, "<a") {
		return LinkedExcerpt{Text: excerpt}
	}
	doc, err := html.Parse(strings.NewReader(content))
	if err != nil || findBody(doc) == nil {
		return LinkedExcerpt{Text: excerpt}
	}
	root := findBody(doc)
	body, lead, ok := excerptBody(root, excerpt, title)
	if !ok {
		return LinkedExcerpt{Text: excerpt}
	}
	l := excerptLinker{body: body, own: own}
	l.walk(root)
	if lead == 0 {
		return l.result(excerpt)
	}
	// The title's words were read to find the excerpt's, and their
	// links are the title's.
	l.dropBefore(lead)
	whole := l.result(body + excerpt[len(Ellipsis)+len(body)-lead:])
	whole.Text = Ellipsis + whole.Text[lead:]
	return whole
}

// excerptBody is the text the linker looks for in the tree below root:
// excerpt without its closing "…", and, when excerpt goes on from an
// untitled entry's title (it opens with "…" and the tree's text with
// the title's words), those words first; lead is their length. ok is
// false when the excerpt does not go on from the tree's text.
func excerptBody(root *html.Node, excerpt, title string) (body string, lead int, ok bool) {
	body = strings.TrimSuffix(excerpt, Ellipsis)
	rest, goesOn := strings.CutPrefix(body, Ellipsis)
	if !goesOn {
		return body, 0, true
	}
	text := treeText(root)
	shown := strings.TrimSuffix(title, Ellipsis)
	if shown == "" || !strings.HasPrefix(text, shown) {
		return body, 0, true // an excerpt of a titled entry that opens with "…"
	}
	lead = restStart(text, title)
	if !strings.HasPrefix(text[lead:], rest) {
		return "", 0, false
	}
	return text[:lead] + rest, lead, true
}

// dropBefore forgets the links marked within the first n bytes of the
// body.
func (l *excerptLinker) dropBefore(n int) {
	links, at := l.links[:0], l.at[:0]
	for i, a := range l.at {
		if a > n {
			links, at = append(links, l.links[i]), append(at, a)
		}
	}
	l.links, l.at = links, at
}

type excerptLinker struct {
	body, own string
	text      collapser // the text read so far
	links     []string
	at        []int      // where each link's mark goes in body
	stop      *html.Node // where the walk stopped, past the excerpt; nil: it read all
}

// Where the text read so far stands against the excerpt.
const (
	within  = iota // the excerpt begins with it
	reached        // it is the excerpt, or runs past the cut
	differs        // the two part: no mark can be placed with certainty
)

// seen is the length of the text read so far, as the excerpt writes it,
// and where it stands.
func (l *excerptLinker) seen() (int, int) {
	s := l.text.String()
	switch {
	case len(s) < len(l.body) && strings.HasPrefix(l.body, s):
		return len(s), within
	case strings.HasPrefix(s, l.body):
		return len(s), reached
	}
	return len(s), differs
}

// walk reads n as textWriter.write does, noting where each link's text
// ends; false once the excerpt is passed.
func (l *excerptLinker) walk(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		l.text.write(n.Data)
		return l.goOn(n)
	case html.ElementNode:
		if skipText[n.Data] {
			return true
		}
		if href := linkTarget(n); href != "" {
			l.link(n, href)
			return l.goOn(n)
		}
	}
	block := n.Type == html.ElementNode && blockText[n.Data]
	if block {
		l.text.block()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !l.walk(c) {
			return false
		}
	}
	if block {
		l.text.block()
	}
	return true
}

// goOn says whether the walk goes on after n: while the text read is
// within the excerpt. Else it notes n as where it stopped.
func (l *excerptLinker) goOn(n *html.Node) bool {
	if _, where := l.seen(); where == within {
		return true
	}
	l.stop = n
	return false
}

// link reads the a element n, whose text starts inside the excerpt, and
// marks href after its text, or at the cut when the text runs past it.
func (l *excerptLinker) link(n *html.Node, href string) {
	start, _ := l.seen()
	w := textWriter{limit: -1}
	w.write(n)
	l.text.write(w.String())
	if w.pending { // a block inside the link ended it
		l.text.block()
	}
	end, where := l.seen()
	if where != differs && end > start && href != l.own {
		l.add(href, min(end, len(l.body)))
	}
}

// ExcerptHTML is the start of f's HTML that holds its excerpt, the rest
// cut off, or "" when the excerpt shows no link: all that the plain-text
// email needs of the HTML (see LinkExcerpt), where a digest's email
// drops the HTML itself to stay small.
func ExcerptHTML(f domain.Fragments) string {
	if strings.TrimSuffix(f.Excerpt, Ellipsis) == "" || !strings.Contains(f.HTML, "<a") {
		return ""
	}
	doc, err := html.Parse(strings.NewReader(f.HTML))
	if err != nil || findBody(doc) == nil {
		return ""
	}
	root := findBody(doc)
	body, lead, ok := excerptBody(root, f.Excerpt, f.Title)
	if !ok {
		return ""
	}
	l := excerptLinker{body: body}
	l.walk(root)
	l.dropBefore(lead)
	if len(l.links) == 0 {
		return ""
	}
	for n := l.stop; n != nil && n != root; n = n.Parent {
		for n.NextSibling != nil {
			n.Parent.RemoveChild(n.NextSibling)
		}
	}
	var b strings.Builder
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			return ""
		}
	}
	return b.String()
}

// add notes href, once: a second link to the same URL shares its number.
func (l *excerptLinker) add(href string, at int) {
	for _, h := range l.links {
		if h == href {
			return
		}
	}
	l.links = append(l.links, href)
	l.at = append(l.at, at)
}

func (l *excerptLinker) result(excerpt string) LinkedExcerpt {
	if len(l.links) == 0 {
		return LinkedExcerpt{Text: excerpt}
	}
	var b strings.Builder
	prev := 0
	for i, at := range l.at {
		b.WriteString(l.body[prev:at])
		fmt.Fprintf(&b, " [%d]", i+1)
		prev = at
	}
	b.WriteString(excerpt[prev:])
	links := make([]ExcerptLink, len(l.links))
	for i, u := range l.links {
		links[i] = ExcerptLink{N: i + 1, URL: u}
	}
	return LinkedExcerpt{Text: b.String(), Links: links}
}

// linkTarget is the http(s) URL an a element points to, "" for any other.
func linkTarget(n *html.Node) string {
	if n.Data != "a" {
		return ""
	}
	i := attrIndex(n, "href")
	if i < 0 {
		return ""
	}
	u, err := url.Parse(n.Attr[i].Val)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return n.Attr[i].Val
}

// collapser holds text written in pieces with whitespace collapsed as
// collapseSpace does and no trailing space, and blocks parted as
// textWriter parts them: each piece costs its own length, however many
// pieces of nothing but space come first.
type collapser struct {
	strings.Builder
	space   bool // a space is owed before the next word
	pending bool // a block ended or began: blockSeparator is owed
}

// block notes the start or the end of a block.
func (c *collapser) block() {
	c.pending = true
}

func (c *collapser) write(s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			c.space = c.Len() > 0
			continue
		}
		if c.pending && visible(r) {
			if c.Len() > 0 {
				c.WriteString(blockSeparator(c.String()))
				c.space = false
			}
			c.pending = false
		}
		if c.space {
			c.WriteByte(' ')
			c.space = false
		}
		c.WriteRune(r)
	}
}
