package ingest

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"feeddigest/domain"
)

// frameElements are the embedded players and pages the content policy
// removes (no script runs in a digest), with the attribute that names
// what they show.
var frameElements = map[atom.Atom]string{
	atom.Iframe: "src",
	atom.Embed:  "src",
	atom.Object: "data",
	atom.Video:  "src",
}

// linkFrames replaces each embedded frame of raw (iframe, embed, object,
// video) with a paragraph linking what it showed ("Video:
// youtube.com/watch?v=..."), so that sanitising, which removes the
// frame, leaves the reader a way to it. Only an http(s) address, made
// absolute against base, becomes a link; a frame without one goes
// without a trace, as before. It runs before the sanitiser, which checks
// the links it writes as any other: the sanitiser stays the one door.
func linkFrames(raw, base string) string {
	if !mayHoldFrame(raw) {
		return raw
	}
	doc, err := html.Parse(strings.NewReader(raw))
	if err != nil {
		return raw
	}
	body := findBody(doc)
	if body == nil || !replaceFrames(body, domain.AbsoluteHTTP(base)) {
		return raw
	}
	var b strings.Builder
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			return raw
		}
	}
	return b.String()
}

// mayHoldFrame says whether raw names one of frameElements: most
// content names none and is not parsed here.
func mayHoldFrame(raw string) bool {
	for _, tag := range []string{"<iframe", "<embed", "<object", "<video"} {
		if containsFold(raw, tag) {
			return true
		}
	}
	return false
}

// containsFold says whether s contains substr, ASCII in lower case, in
// any case: strings.Contains(strings.ToLower(s), substr) without a
// lower-case copy of every entry's content.
func containsFold(s, substr string) bool {
	first, rest := substr[0], substr[1:]
	caseless := first < 'a' || first > 'z' // '<': found from tag to tag
	for i := 0; i+len(substr) <= len(s); i++ {
		if caseless {
			j := strings.IndexByte(s[i:], first)
			if j < 0 {
				return false
			}
			i += j
		} else if lowerASCII(s[i]) != first {
			continue
		}
		if hasPrefixFold(s[i+1:], rest) {
			return true
		}
	}
	return false
}

// hasPrefixFold says whether s starts with prefix, ASCII in lower case,
// in any case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		if lowerASCII(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// replaceFrames replaces the frames below n with their links (see
// frameLink), and says whether it found any.
func replaceFrames(n *html.Node, base *url.URL) bool {
	found := false
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if attr, ok := frameElements[c.DataAtom]; ok && c.Type == html.ElementNode {
			found = true
			if link := frameLink(c, attr, base, n.DataAtom == atom.P); link != nil {
				n.InsertBefore(link, c)
			}
			n.RemoveChild(c)
		} else if replaceFrames(c, base) {
			found = true
		}
		c = next
	}
	return found
}

// The words before a frame's link, in English: stored in the fragments,
// they are codes as much as words, and render words them in the
// reader's language (render's embedWords).
const (
	EmbeddedPage  = "Embedded page: "
	EmbeddedVideo = "Video: "
)

// frameLink is the paragraph that stands for the frame n (a span inside
// a paragraph): "Video: " or "Embedded page: " and a link to the page it
// showed, or nil when it names no http(s) address. A video's address may
// be in a <source>.
func frameLink(n *html.Node, attr string, base *url.URL, inParagraph bool) *html.Node {
	target := ""
	if i := attrIndex(n, attr); i >= 0 {
		target = frameTarget(base, n.Attr[i].Val)
	}
	for c := n.FirstChild; target == "" && c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Source {
			if i := attrIndex(c, "src"); i >= 0 {
				target = frameTarget(base, c.Attr[i].Val)
			}
		}
	}
	if target == "" {
		return nil
	}
	watch := videoPage(target)
	kind := EmbeddedPage
	if watch != "" || n.DataAtom == atom.Video {
		kind = EmbeddedVideo
	}
	if watch != "" {
		target = watch
	}
	a := &html.Node{Type: html.ElementNode, Data: "a", DataAtom: atom.A, Attr: []html.Attribute{{Key: "href", Val: target}}}
	a.AppendChild(&html.Node{Type: html.TextNode, Data: frameLabel(target)})
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	if inParagraph {
		p.Data, p.DataAtom, kind = "span", atom.Span, " "+kind
	}
	p.AppendChild(&html.Node{Type: html.TextNode, Data: kind})
	p.AppendChild(a)
	return p
}

// frameTarget is ref made absolute against base when it is an http(s)
// address with a host, else "". A scheme-relative address
// ("//www.youtube.com/embed/x"), as embed codes give, is read as
// https when there is no base.
func frameTarget(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if base == nil && strings.HasPrefix(ref, "//") {
		ref = "https:" + ref
	}
	abs := resolve(base, ref)
	if !strings.HasPrefix(abs, "http:") && !strings.HasPrefix(abs, "https:") {
		return ""
	}
	return abs
}

// videoPage is the page of a video whose player target is (YouTube's
// and Vimeo's embed addresses), where a reader can watch it with its
// title and description; "" for any other address.
func videoPage(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	id, ok := "", false
	switch SiteHost(u) {
	case "youtube.com", "youtube-nocookie.com":
		if id, ok = strings.CutPrefix(u.Path, "/embed/"); ok && validVideoID(id) {
			return "https://www.youtube.com/watch?v=" + id
		}
	case "player.vimeo.com":
		if id, ok = strings.CutPrefix(u.Path, "/video/"); ok && validVideoID(id) {
			return "https://vimeo.com/" + id
		}
	}
	return ""
}

// validVideoID says whether id is a video's id as YouTube and Vimeo
// write them: letters, digits, "-" and "_".
func validVideoID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// maxFrameLabel bounds the words a frame's link shows of its address.
const maxFrameLabel = 60

// frameLabel is how a frame's link reads: its address without the
// scheme and "www.", cut to maxFrameLabel characters.
func frameLabel(target string) string {
	label := target
	for _, prefix := range []string{"https://", "http://", "www."} {
		label = strings.TrimPrefix(label, prefix)
	}
	return Cut(label, 1, maxFrameLabel)
}

// SiteHost is u's host as a reader names the site: lower case, no port,
// no "www.".
func SiteHost(u *url.URL) string {
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}
