package parse

import (
	"bytes"
	"fmt"
	"slices"
)

// What reaches a parser is bounded before it gets there. gofeed reads
// nested extension elements recursively, building a map-laden value per
// element, copying every namespace binding in scope for every element and
// joining an element's text a piece at a time: a 10 MB body of nested
// elements took 2 GB and a 21 MB one overflowed the stack, killing the
// whole run. A body is therefore scanned first, byte by byte, allocating
// nothing, and refused when its shape is out of bounds. The bounds are far
// beyond real feeds (a podcast feed of 3,000 episodes has about 100,000
// elements and attributes and declares 10 to 20 namespaces; real feeds
// nest 5 to 10 deep, 30 in XHTML content) and they cap what one feed costs
// whatever max_body says: at the bounds a parse takes at most a few
// hundred megabytes and a few seconds.
const (
	// MaxDepth is the deepest element nesting given to the XML feed parsers
	// (an HTML page's nesting is bounded by the HTML parser, at 512), and
	// the deepest JSON nesting.
	MaxDepth = 128
	// MaxNodes bounds the elements, attributes, comments, CDATA sections
	// and processing instructions of a markup body, and the objects,
	// arrays and values of a JSON body.
	MaxNodes = 250_000
	// MaxNamespaces bounds the namespace declarations in scope at once.
	MaxNamespaces = 64
	// MaxTextCopy bounds the bytes gofeed copies joining the text pieces
	// of elements (an element's text is copied again for every piece).
	MaxTextCopy = 512 << 20
)

// checkShape refuses a body whose shape could make a parser run away.
// xmlFeed says the body goes to gofeed's XML parsers, whose nesting and
// width are bounded here; other markup (an HTML page) is only counted.
func checkShape(body []byte, xmlFeed bool) error {
	if isJSONBody(body) {
		return scanJSON(body)
	}
	s := markupScan{body: withoutControls(body), nesting: xmlFeed}
	return s.run()
}

// withoutControls drops the bytes gofeed filters out before its XML
// decoder sees them (below 0x20 but tab, LF and CR), so that the scan sees
// the markup the parser will: "<r\x01ss>" is an <rss> to gofeed. A body
// without them, nearly every body, is not copied.
func withoutControls(body []byte) []byte {
	i := slices.IndexFunc(body, isFilteredControl)
	if i < 0 {
		return body
	}
	out := make([]byte, i, len(body))
	copy(out, body[:i])
	for _, c := range body[i:] {
		if !isFilteredControl(c) {
			out = append(out, c)
		}
	}
	return out
}

func isFilteredControl(c byte) bool { return c < 0x20 && c != '\t' && c != '\n' && c != '\r' }

// markupScan walks XML (or HTML) markup the way encoding/xml reads it
// when not strict, as gofeed does: an end tag closes the open elements up
// to the one it names. Names are slices of the body, nothing is copied.
type markupScan struct {
	body     []byte
	i        int
	nesting  bool // bound what the XML parsers cost (an XML feed), else count only
	nodes    int
	depth    int
	deepest  int
	open     [MaxDepth]openElement
	inScope  int   // namespace declarations of the open elements
	textCopy int64 // bytes copied joining text pieces, as gofeed does

	// onStart, when set, sees each start tag: its name and the rest of the
	// tag, the open elements (its ancestors) in open[:depth].
	onStart func(name, attrs []byte)
}

type openElement struct {
	name       []byte
	namespaces int   // declared on this element
	text       int64 // length of its text so far
}

func (s *markupScan) run() error {
	for {
		lt := bytes.IndexByte(s.body[s.i:], '<')
		if lt < 0 {
			return s.text(len(s.body) - s.i)
		}
		if err := s.text(lt); err != nil {
			return err
		}
		s.i += lt + 1
		if s.i >= len(s.body) {
			return nil
		}
		var err error
		switch c := s.body[s.i]; {
		case c == '/':
			s.endTag()
		case c == '?':
			err = s.other("?>")
		case c == '!':
			err = s.bang()
		case isNameStart(c):
			err = s.startTag()
		}
		if err != nil {
			return err
		}
	}
}

func (s *markupScan) node() error {
	s.nodes++
	if s.nodes > MaxNodes {
		return fmt.Errorf("%w: more than %d elements and attributes (at byte %d)", ErrTooManyNodes, MaxNodes, s.i)
	}
	return nil
}

// text adds a piece of n bytes to the innermost element's text: gofeed
// copies the text so far and the piece into a new string.
func (s *markupScan) text(n int) error {
	if n == 0 || !s.nesting || s.depth == 0 {
		return nil
	}
	e := &s.open[s.depth-1]
	e.text += int64(n)
	s.textCopy += e.text
	if s.textCopy > MaxTextCopy {
		return fmt.Errorf("%w: joining the text pieces of <%s> and others would copy more than %d MB (at byte %d)",
			ErrTooFragmented, e.name, MaxTextCopy>>20, s.i)
	}
	return nil
}

func (s *markupScan) startTag() error {
	name := s.name()
	if err := s.node(); err != nil {
		return err
	}
	attrsAt := s.i
	selfClosing, namespaces, err := s.attributes()
	if err != nil {
		return err
	}
	if !s.nesting {
		return nil
	}
	if s.onStart != nil {
		s.onStart(name, s.body[attrsAt:s.i])
	}
	if s.inScope+namespaces > MaxNamespaces {
		return fmt.Errorf("%w: more than %d in scope (at byte %d)", ErrTooManyNamespaces, MaxNamespaces, s.i)
	}
	if s.depth == MaxDepth {
		return fmt.Errorf("%w: more than %d levels of elements (at byte %d)", ErrTooDeep, MaxDepth, s.i)
	}
	s.deepest = max(s.deepest, s.depth+1)
	if selfClosing {
		return nil
	}
	s.open[s.depth] = openElement{name: name, namespaces: namespaces}
	s.inScope += namespaces
	s.depth++
	return nil
}

// attributes reads to the end of a start tag, counting attributes; an
// attribute without a value, or with an unquoted one, is read as the
// lenient decoder reads it.
func (s *markupScan) attributes() (selfClosing bool, namespaces int, err error) {
	b, value := s.body, false
	for s.i < len(b) {
		switch c := b[s.i]; {
		case c == '>':
			s.i++
			return false, namespaces, nil
		case c == '/' && s.i+1 < len(b) && b[s.i+1] == '>':
			s.i += 2
			return true, namespaces, nil
		case c == '"' || c == '\'':
			s.skipQuoted(c)
			value = false
		case c == '=':
			s.i++
			value = true
		case isNameStart(c) && value: // unquoted
			s.name()
			value = false
		case isNameStart(c):
			if name := s.name(); bytes.Equal(name, []byte("xmlns")) || bytes.HasPrefix(name, []byte("xmlns:")) {
				namespaces++
			}
			if err := s.node(); err != nil {
				return false, namespaces, err
			}
		default:
			s.i++
		}
	}
	return false, namespaces, nil
}

func (s *markupScan) skipQuoted(quote byte) {
	end := bytes.IndexByte(s.body[s.i+1:], quote)
	if end < 0 {
		s.i = len(s.body)
		return
	}
	s.i += end + 2
}

// endTag closes the open elements up to the one it names; naming none
// closes them all (the decoder stops there with an error anyway).
func (s *markupScan) endTag() {
	s.i++
	name := s.name()
	if end := bytes.IndexByte(s.body[s.i:], '>'); end >= 0 {
		s.i += end + 1
	} else {
		s.i = len(s.body)
	}
	for s.depth > 0 {
		s.depth--
		e := s.open[s.depth]
		s.inScope -= e.namespaces
		if bytes.Equal(localName(e.name), localName(name)) {
			return
		}
	}
}

// bang reads a comment, a CDATA section or a declaration.
func (s *markupScan) bang() error {
	rest := s.body[s.i:]
	switch {
	case bytes.HasPrefix(rest, []byte("!--")):
		s.i += 3
		return s.other("-->")
	case bytes.HasPrefix(rest, []byte("![CDATA[")):
		s.i += 8
		return s.cdata()
	}
	if err := s.node(); err != nil {
		return err
	}
	s.skipDeclaration()
	return nil
}

// other counts a node that ends at the first end and skips it.
func (s *markupScan) other(end string) error {
	if err := s.node(); err != nil {
		return err
	}
	if j := bytes.Index(s.body[s.i:], []byte(end)); j >= 0 {
		s.i += j + len(end)
	} else {
		s.i = len(s.body)
	}
	return nil
}

// cdata reads a CDATA section: a node, and a piece of its element's text.
func (s *markupScan) cdata() error {
	if err := s.node(); err != nil {
		return err
	}
	n := bytes.Index(s.body[s.i:], []byte("]]>"))
	if n < 0 {
		n = len(s.body) - s.i
	}
	if err := s.text(n); err != nil {
		return err
	}
	s.i = min(s.i+n+3, len(s.body))
	return nil
}

// skipDeclaration skips <!DOCTYPE ...> as encoding/xml reads it: angle
// brackets nest, except quoted ones and those of comments, and the byte
// after "<!" is taken as it is.
func (s *markupScan) skipDeclaration() {
	b, level, quote := s.body, 0, byte(0)
	for s.i += 2; s.i < len(b); s.i++ {
		switch c := b[s.i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '>' && level == 0:
			s.i++
			return
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			level--
		case c == '<' && bytes.HasPrefix(b[s.i+1:], []byte("!--")):
			end := bytes.Index(b[s.i+4:], []byte("-->"))
			if end < 0 {
				s.i = len(b)
				return
			}
			s.i += 4 + end + 2
		case c == '<':
			level++
		}
	}
	s.i = len(b)
}

func (s *markupScan) name() []byte {
	start := s.i
	for s.i < len(s.body) && isNameByte(s.body[s.i]) {
		s.i++
	}
	return s.body[start:s.i]
}

func localName(name []byte) []byte {
	if i := bytes.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func isNameStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == ':' || c >= 0x80
}

func isNameByte(c byte) bool {
	return isNameStart(c) || '0' <= c && c <= '9' || c == '.' || c == '-'
}

// scanJSON bounds the nesting of a JSON body and counts its objects,
// arrays and values.
func scanJSON(body []byte) error {
	_, err := jsonShape(body)
	return err
}

// jsonShape counts a JSON body's nodes, stopping at the first bound passed.
func jsonShape(body []byte) (nodes int, err error) {
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			i = endOfJSONString(body, i)
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return nodes, fmt.Errorf("%w: more than %d levels of JSON (at byte %d)", ErrTooDeep, MaxDepth, i)
			}
			nodes++
		case '}', ']':
			depth--
		case ',':
			nodes++
		default:
			continue
		}
		if nodes > MaxNodes {
			return nodes, fmt.Errorf("%w: more than %d JSON values (at byte %d)", ErrTooManyNodes, MaxNodes, i)
		}
	}
	return nodes, nil
}

// endOfJSONString is the index of the quote closing the string opened at i.
func endOfJSONString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

// Nodes counts a body's nodes (see MaxNodes), up to just past MaxNodes:
// what reading it costs in memory, for a caller that bounds what it reads
// at once.
func Nodes(body []byte) int {
	if isJSONBody(body) {
		n, _ := jsonShape(body)
		return n
	}
	s := markupScan{body: body}
	s.run()
	return s.nodes
}
