package ingest

import (
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"feeddigest/domain"
	"feeddigest/internal/redact"
)

// relSafe is the rel value every content link carries: the reader's
// privacy (no Referer) and no window.opener for the linked page.
const relSafe = "noopener noreferrer"

// contentPolicy is built once, when a run first sanitises: a bluemonday
// policy is safe for concurrent use once configured, and building it is
// not free (about 200 KB and a millisecond, which a run with nothing to
// sanitise, most hourly ones, need not pay).
var contentPolicy = sync.OnceValue(newContentPolicy)

// newContentPolicy starts from UGCPolicy (no script, style, iframe, form,
// object, embed, svg or event handlers; only http, https and mailto URLs)
// and switches off its rel handling: it can only append nofollow or
// noreferrer, never produce exactly relSafe, so the post-pass sets rel.
func newContentPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(false)
	p.RequireNoReferrerOnLinks(false)
	p.AddTargetBlankToFullyQualifiedLinks(false)
	p.AllowURLSchemes("http", "https", "mailto")
	return p
}

// SanitizeHTML makes feed HTML safe to show inside our pages. base is the
// entry's absolute URL; relative href and src values are resolved against
// it (and dropped when there is no usable base, as they would otherwise
// point into our own site). Tracking pixels are removed, an embedded
// frame leaves a link to what it showed (linkFrames), and every link gets
// rel="noopener noreferrer".
//
// bluemonday is the security boundary; the goquery passes around it only
// remove things (pixels before, since bluemonday drops "1px" sizes and
// styles we need to see) or rewrite already-clean attributes after.
func SanitizeHTML(raw, base string) string {
	return sanitize(raw, base, 0)
}

// sanitize is SanitizeHTML that also renumbers the headings to start at
// h<top> (0: leave them), so content shown below one of our headings keeps
// the page's outline in order.
func sanitize(raw, base string, top int) string {
	out, _ := sanitized(raw, base, top)
	return out
}

// sanitized is sanitize, and the body of its result's tree for reading
// more from it without parsing the result again (nil when the result is
// empty).
func sanitized(raw, base string, top int) (string, *html.Node) {
	if strings.TrimSpace(raw) == "" {
		return "", nil
	}
	clean := contentPolicy().Sanitize(dropPixels(linkFrames(raw, base)))
	doc, err := html.Parse(strings.NewReader(clean))
	if err != nil {
		return "", nil
	}
	body := findBody(doc)
	if body == nil {
		return "", nil
	}
	heads := tidy(body, domain.AbsoluteHTTP(base), nil)
	shiftHeadingNodes(heads, top)
	var b strings.Builder
	b.Grow(len(clean) + len(clean)/8)
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			return "", nil
		}
	}
	return strings.TrimSpace(b.String()), body
}

// tidy makes the elements below n fit to show, in one walk of the
// sanitised tree, and returns the headings met (appended to heads): URL
// attributes made absolute or dropped (resolveURLs), images left without
// a source removed, image maps removed, rel set on links, ids dropped (they could clash with
// the page's own anchors, and in-page links were resolved to the entry's
// page, so they serve nothing here), images set to load lazily (inside
// a closed <details> they then load only when opened), and text and
// attribute values cleared of what is not text (cleanText). Each element gets
// these steps in this order, which decides the order of its attributes.
func tidy(n *html.Node, base *url.URL, heads []*html.Node) []*html.Node {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.TextNode {
			c.Data, _ = cleanText(c.Data)
		}
		if c.Type == html.ElementNode && c.Data == "map" {
			// Image maps go, which UGCPolicy lets through and bluemonday
			// cannot refuse once allowed: a map's areas are links over
			// parts of an image that do not look like links, a feed can
			// lay one over its whole image, and map names are the page's,
			// so one entry's map can take over another entry's image. The
			// <area> links and img's usemap go in tidyElement; the map's
			// own content (any flow content) stays in its place, and is
			// tidied next.
			first := c.FirstChild
			for k := c.FirstChild; k != nil; k = c.FirstChild {
				c.RemoveChild(k)
				n.InsertBefore(k, c)
			}
			n.RemoveChild(c)
			if first != nil {
				next = first
			}
			c = next
			continue
		}
		if c.Type == html.ElementNode {
			if tidyElement(c, base) {
				n.RemoveChild(c)
				c = next
				continue
			}
			if isHeading(c) {
				heads = append(heads, c)
			}
			heads = tidy(c, base, heads)
		}
		c = next
	}
	return heads
}

// tidyElement does tidy's steps to the element n and says whether it is
// to be removed.
func tidyElement(n *html.Node, base *url.URL) (remove bool) {
	for i := range n.Attr {
		n.Attr[i].Val, _ = cleanText(n.Attr[i].Val)
	}
	for _, attr := range urlAttrs {
		i := attrIndex(n, attr)
		if i < 0 {
			continue
		}
		if abs := resolve(base, n.Attr[i].Val); abs != "" {
			n.Attr[i].Val = abs
		} else {
			removeAttrAt(n, i)
		}
	}
	switch n.Data {
	case "img":
		if attrIndex(n, "src") < 0 {
			return true
		}
		if i := attrIndex(n, "usemap"); i >= 0 {
			removeAttrAt(n, i)
		}
	case "area":
		return true
	case "a":
		if attrIndex(n, "href") >= 0 {
			setAttr(n, "rel", relSafe)
		}
	}
	if i := attrIndex(n, "id"); i >= 0 {
		removeAttrAt(n, i)
	}
	if n.Data == "img" {
		setAttr(n, "loading", "lazy")
	}
	return false
}

// attrIndex is the index of n's first attribute named key, or -1.
func attrIndex(n *html.Node, key string) int {
	for i, a := range n.Attr {
		if a.Key == key {
			return i
		}
	}
	return -1
}

// setAttr sets n's first attribute named key, or adds it last.
func setAttr(n *html.Node, key, val string) {
	if i := attrIndex(n, key); i >= 0 {
		n.Attr[i].Val = val
		return
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

// removeAttrAt removes n's attribute i, moving the last one into its
// place (as goquery does, which made the stored fragments: the order of
// attributes stays what it was).
func removeAttrAt(n *html.Node, i int) {
	last := len(n.Attr) - 1
	n.Attr[i], n.Attr[last], n.Attr = n.Attr[last], html.Attribute{}, n.Attr[:last]
}

func isHeading(n *html.Node) bool {
	return len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
}

// findBody is the first body element of a parsed document, nil when it
// has none (a frameset).
func findBody(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "body" {
			return c
		}
		if b := findBody(c); b != nil {
			return b
		}
	}
	return nil
}

// shiftHeadings renumbers the headings under sel so the highest becomes
// h<top> and the others keep their distance to it, capped at h6.
func shiftHeadings(sel *goquery.Selection, top int) {
	if top == 0 {
		return
	}
	shiftHeadingNodes(sel.Find("h1, h2, h3, h4, h5, h6").Nodes, top)
}

// shiftHeadingNodes is shiftHeadings of the headings given.
func shiftHeadingNodes(heads []*html.Node, top int) {
	if top == 0 {
		return
	}
	highest := 6
	for _, n := range heads {
		highest = min(highest, int(n.Data[1]-'0'))
	}
	for _, n := range heads {
		n.Data = "h" + strconv.Itoa(min(6, top+int(n.Data[1]-'0')-highest))
		n.DataAtom = atom.Lookup([]byte(n.Data))
	}
}

// ShiftFragmentHeadings is shiftHeadings for trusted HTML that needs no
// sanitising, such as the intro rendered from the config's Markdown.
func ShiftFragmentHeadings(fragment string, top int) string {
	if !strings.Contains(strings.ToLower(fragment), "<h") {
		return fragment
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(fragment))
	if err != nil {
		return fragment
	}
	body := doc.Find("body")
	shiftHeadings(body, top)
	out, err := body.Html()
	if err != nil {
		return fragment
	}
	return out
}

// dropPixels removes 1x1 (or smaller) images, the usual read trackers.
// It runs before sanitising because bluemonday drops sizes written with
// units ("1px") and all styles, which would hide the pixel from us.
func dropPixels(raw string) string {
	// A pixel has both sizes given (isPixel): without the words there is
	// none, and nothing to parse.
	if !containsFold(raw, "<img") || !containsFold(raw, "width") || !containsFold(raw, "height") {
		return raw
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(raw))
	if err != nil {
		return raw
	}
	pixels := doc.Find("img").FilterFunction(func(_ int, img *goquery.Selection) bool {
		return isPixel(img)
	})
	if pixels.Length() == 0 {
		return raw
	}
	pixels.Remove()
	out, err := doc.Find("body").Html()
	if err != nil {
		return raw
	}
	return out
}

// isPixel reports whether both the width and the height of an image, from
// its attributes or its inline style, are at most one pixel.
func isPixel(img *goquery.Selection) bool {
	w, wok := pixelSize(img.AttrOr("width", ""))
	h, hok := pixelSize(img.AttrOr("height", ""))
	for _, decl := range strings.Split(img.AttrOr("style", ""), ";") {
		prop, val, _ := strings.Cut(decl, ":")
		val = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "!important"))
		switch strings.ToLower(strings.TrimSpace(prop)) {
		case "width":
			w, wok = pixelSize(val)
		case "height":
			h, hok = pixelSize(val)
		}
	}
	return wok && hok && w <= 1 && h <= 1
}

// pixelSize reads "1", "1px" or "0.5"; percentages and the like are not
// pixel sizes.
func pixelSize(s string) (float64, bool) {
	s = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "px")
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil && v >= 0
}

// urlAttrs are the URL-valued attributes the content policy lets through.
var urlAttrs = []string{"href", "src", "cite"}

// resolve returns ref made absolute against base, or "" when it cannot be
// made into an http, https or mailto URL. An http(s) URL loses its user
// information (see WithoutUserinfo).
func resolve(base *url.URL, ref string) string {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return ""
	}
	if !u.IsAbs() {
		if base == nil {
			return ""
		}
		u = base.ResolveReference(u)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return ""
		}
		WithoutUserinfo(u)
	case "mailto":
	default:
		return ""
	}
	return u.String()
}

// WithoutUserinfo drops the "user:password@" of a link we show. Browsers
// go to the host after the "@", so the part before it serves only to make
// a link read as another site: "https://paypal.com@evil.example/" leads to
// evil.example. Without it the link still goes where it went, and says so
// to whoever looks at it (a status bar, a plain-text email); a page that
// really wants a login asks for it. Credentials in a link in public
// content are no secret anyway.
func WithoutUserinfo(u *url.URL) {
	u.User = nil
}

// EntryURL is the entry's own absolute http(s) URL: its Link resolved
// against the feed's URL (feeds may give relative links), or "" when there
// is none usable.
func EntryURL(feedURL, link string) string {
	if strings.TrimSpace(link) == "" {
		return ""
	}
	// Never with the feed URL's credentials: the result is shown.
	abs := resolve(redact.Base(domain.AbsoluteHTTP(feedURL)), link)
	if domain.AbsoluteHTTP(abs) == nil {
		return ""
	}
	return domain.WithoutTracking(abs)
}
