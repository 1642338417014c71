// Package opml reads and writes OPML subscription lists, the format feed
// readers use to move a list of feeds from one program to another.
//
// Parse accepts what real readers export (OPML 1.0 and 2.0, nested
// folders, any attribute spelling of xmlUrl, legacy charsets) and refuses
// hostile input with an error: sizes, nesting and counts are bounded, and
// encoding/xml never expands custom entities. Write produces OPML 2.0.
//
// Folders nest in OPML but not in a feed list: a feed's Category is the
// path of folders around it, joined with " / " ("Science / Space"), and
// Write turns such a path back into nested folders, so that a list read,
// written and read again has the same categories.
package opml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// Outline is one feed of a subscription list.
type Outline struct {
	Title    string // the title attribute, else text; may be ""
	XMLURL   string // the feed's URL; "" only in ParseAll's outlines that are not feeds
	HTMLURL  string // the site's URL (for an outline that is not a feed, its url attribute), may be ""
	Category string // the enclosing folders, outermost first, joined with FolderSeparator; "" at the top level
}

// FolderSeparator joins the names of nested folders in a Category.
const FolderSeparator = " / "

// Limits on input. A subscription list of thousands of feeds is a few
// hundred kilobytes; these only stop documents built to exhaust memory.
const (
	MaxSize     = 16 << 20 // bytes
	MaxDepth    = 64       // nested elements
	MaxOutlines = 100_000  // feeds
)

// maxSize is MaxSize; a test lowers it to stay fast.
var maxSize int64 = MaxSize

// Errors for input outside the limits or not OPML at all.
var (
	ErrTooLarge = errors.New("opml: document too large")
	ErrNotOPML  = errors.New("opml: not an OPML document")
)

// Parse reads an OPML document and returns its feeds in document order:
// every <outline> with an xmlUrl, at any depth of nested folders.
// Outlines without xmlUrl are folders; they give their children a
// Category and are not returned themselves.
func Parse(r io.Reader) ([]Outline, error) {
	all, err := ParseAll(r)
	if err != nil {
		return nil, err
	}
	var feeds []Outline
	for _, o := range all {
		if o.XMLURL != "" {
			feeds = append(feeds, o)
		}
	}
	return feeds, nil
}

// ParseAll is Parse keeping, in document order, the outlines that are
// neither a feed nor a folder: those without an xmlUrl and without
// outlines inside (their XMLURL is ""), such as links, notes and empty
// folders, so that an importer can say what it left out.
func ParseAll(r io.Reader) ([]Outline, error) {
	lr := &io.LimitedReader{R: r, N: maxSize + 1}
	d := xml.NewDecoder(lr)
	// Exporters still write ISO-8859-1 and windows-1252 files.
	d.CharsetReader = charset.NewReaderLabel
	p := &parser{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if lr.N <= 0 {
			return nil, fmt.Errorf("%w (more than %d bytes)", ErrTooLarge, maxSize)
		}
		if err != nil {
			return nil, fmt.Errorf("opml: %w", err)
		}
		if err := p.token(tok); err != nil {
			return nil, err
		}
	}
	return p.result()
}

// parser walks the tokens with an explicit stack, so no input can recurse
// deeply.
type parser struct {
	stack    []frame
	sawRoot  bool
	sawBody  bool
	outlines []Outline
}

type frame struct {
	name     string // local element name, lower case
	category string // category of outlines inside this element
	// An outline without xmlUrl is a folder if outlines come inside it,
	// else an outline that is not a feed, kept here until its end.
	notFeed  *Outline
	hasInner bool
}

func (p *parser) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		return p.start(t)
	case xml.EndElement:
		// encoding/xml has already checked that the tags match.
		f := p.stack[len(p.stack)-1]
		p.stack = p.stack[:len(p.stack)-1]
		if f.notFeed != nil && !f.hasInner {
			return p.add(*f.notFeed)
		}
	}
	return nil
}

func (p *parser) start(t xml.StartElement) error {
	name := strings.ToLower(t.Name.Local)
	if len(p.stack) >= MaxDepth {
		return fmt.Errorf("opml: elements nested more than %d deep", MaxDepth)
	}
	if len(p.stack) == 0 {
		if p.sawRoot || name != "opml" {
			return fmt.Errorf("%w (root element <%s>)", ErrNotOPML, t.Name.Local)
		}
		p.sawRoot = true
	}
	parent := frame{}
	if len(p.stack) > 0 {
		parent = p.stack[len(p.stack)-1]
	}
	f := frame{name: name, category: parent.category}
	if name == "body" && len(p.stack) == 1 {
		p.sawBody = true
	}
	if name == "outline" && p.inBody() {
		if len(p.stack) > 0 {
			p.stack[len(p.stack)-1].hasInner = true
		}
		if err := p.outline(t, &f); err != nil {
			return err
		}
	}
	p.stack = append(p.stack, f)
	return nil
}

// inBody says whether the element being started lies inside opml/body.
func (p *parser) inBody() bool {
	return len(p.stack) >= 2 && p.stack[1].name == "body"
}

// outline records a feed, or makes f a folder for the outlines inside.
func (p *parser) outline(t xml.StartElement, f *frame) error {
	a := attrs(t.Attr)
	label := a["title"]
	if label == "" {
		label = a["text"]
	}
	feed := a["xmlurl"]
	if feed == "" {
		link := a["url"]
		if link == "" {
			link = a["htmlurl"]
		}
		f.notFeed = &Outline{Title: label, HTMLURL: link, Category: f.category}
		if label != "" {
			if f.category != "" {
				f.category += FolderSeparator
			}
			f.category += label
		}
		return nil
	}
	if label == feed {
		// Exporters without a title repeat the URL; Write does the same
		// for an empty Title, so that reads back as "".
		label = ""
	}
	return p.add(Outline{Title: label, XMLURL: feed, HTMLURL: a["htmlurl"], Category: f.category})
}

func (p *parser) add(o Outline) error {
	if len(p.outlines) >= MaxOutlines {
		return fmt.Errorf("opml: more than %d outlines", MaxOutlines)
	}
	p.outlines = append(p.outlines, o)
	return nil
}

// attrs maps lower-cased attribute names to trimmed values: exporters
// spell xmlUrl as xmlURL, xmlurl and so on.
func attrs(list []xml.Attr) map[string]string {
	m := make(map[string]string, len(list))
	for _, a := range list {
		key := strings.ToLower(a.Name.Local)
		if _, dup := m[key]; !dup {
			m[key] = strings.TrimSpace(a.Value)
		}
	}
	return m
}

func (p *parser) result() ([]Outline, error) {
	if !p.sawRoot {
		return nil, fmt.Errorf("%w (no root element)", ErrNotOPML)
	}
	if !p.sawBody {
		return nil, fmt.Errorf("%w (no <body>)", ErrNotOPML)
	}
	return p.outlines, nil
}

// Write writes outlines as an OPML 2.0 document. title names the list;
// created becomes dateCreated (omitted when zero), passed in so that the
// output depends on nothing but the arguments. Outlines with a Category
// are grouped into one folder per category, placed where the category
// first appears; the others stay at the top level, in order.
func Write(w io.Writer, title string, created time.Time, outlines []Outline) error {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString("<opml version=\"2.0\">\n  <head>\n")
	b.WriteString("    <title>" + escape(title) + "</title>\n")
	if !created.IsZero() {
		// RFC 822 with a four-digit year, as OPML 2.0 asks.
		b.WriteString("    <dateCreated>" + created.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT") + "</dateCreated>\n")
	}
	b.WriteString("  </head>\n  <body>\n")
	if err := writeFolder(&b, 2, tree(outlines)); err != nil {
		return err
	}
	b.WriteString("  </body>\n</opml>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// folder is a folder of the list (the root has no name): feeds and
// folders, each folder where its first feed appears.
type folder struct {
	name  string
	items []item
}

// item is a feed or a folder.
type item struct {
	feed   *Outline
	folder *folder
}

func tree(outlines []Outline) *folder {
	root := &folder{}
	for i := range outlines {
		f := root
		for _, name := range folderPath(outlines[i].Category) {
			j := slices.IndexFunc(f.items, func(it item) bool { return it.folder != nil && it.folder.name == name })
			if j < 0 {
				j = len(f.items)
				f.items = append(f.items, item{folder: &folder{name: name}})
			}
			f = f.items[j].folder
		}
		f.items = append(f.items, item{feed: &outlines[i]})
	}
	return root
}

// folderPath splits a Category into nested folders, where every part is
// a name that reads back as written (not empty, no space at either end);
// otherwise the whole Category names one folder.
func folderPath(category string) []string {
	if category == "" {
		return nil
	}
	parts := strings.Split(category, FolderSeparator)
	for _, p := range parts {
		if p == "" || p != strings.TrimSpace(p) {
			return []string{category}
		}
	}
	return parts
}

func writeFolder(b *bytes.Buffer, depth int, f *folder) error {
	indent := strings.Repeat("  ", depth)
	for _, it := range f.items {
		if it.feed != nil {
			if err := writeOutline(b, indent, *it.feed); err != nil {
				return err
			}
			continue
		}
		name := escape(it.folder.name)
		b.WriteString(indent + `<outline text="` + name + `" title="` + name + "\">\n")
		if err := writeFolder(b, depth+1, it.folder); err != nil {
			return err
		}
		b.WriteString(indent + "</outline>\n")
	}
	return nil
}

func writeOutline(b *bytes.Buffer, indent string, o Outline) error {
	if strings.TrimSpace(o.XMLURL) == "" {
		return fmt.Errorf("opml: outline %q has no xmlUrl", o.Title)
	}
	// text is required by OPML 2.0; a reader shows the URL rather than
	// nothing.
	text := o.Title
	if text == "" {
		text = o.XMLURL
	}
	b.WriteString(indent + `<outline type="rss" text="` + escape(text) + `"`)
	if o.Title != "" {
		b.WriteString(` title="` + escape(o.Title) + `"`)
	}
	b.WriteString(` xmlUrl="` + escape(o.XMLURL) + `"`)
	if webLink(o.HTMLURL) {
		b.WriteString(` htmlUrl="` + escape(o.HTMLURL) + `"`)
	}
	b.WriteString("/>\n")
	return nil
}

// webLink says whether a site link is an absolute http(s) URL: a feed
// names its own site, and a reader importing the list may make a
// javascript: or data: link of anything else.
func webLink(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

// escape makes s safe in element text and in double-quoted attributes:
// xml.EscapeText escapes quotes and the whitespace that attribute
// normalisation would otherwise fold, and replaces characters XML cannot
// hold.
func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // writes to a strings.Builder never fail
	return b.String()
}
