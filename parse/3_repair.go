package parse

import (
	"bytes"
	"html"
	"math"
	"net/url"
	"strings"
	"unicode/utf8"
)

// readRepaired reads an ill-formed XML body (see repairXML) in its
// repaired form: gofeed either stops at what is ill-formed or, worse,
// reads on and silently drops entries. Feed.Repaired then says what was
// mended. nil when the body is well-formed (the usual case: one pass, no
// copy), is not XML, or its repaired form gives no entry: the body is then
// read as it came, and its error stands.
func readRepaired(body []byte, contentType string, base *url.URL) *Feed {
	if !mayBeXML(body) {
		return nil
	}
	found := checkXML(body)
	if found == 0 {
		return nil
	}
	// The repair closes what was left open and adds no element, but what
	// gofeed reads is bounded whatever it did.
	fixed, _ := repairXML(body)
	if checkShape(fixed, true) != nil {
		return nil
	}
	feed, err := parseFeed(fixed, parseOrder(fixed, contentType), contentType, base)
	if err != nil || len(feed.Entries) == 0 {
		return nil
	}
	feed.Repaired = found.String()
	return feed
}

// repairs says what repairXML had to mend in a body.
type repairs uint16

const (
	fixedByteOrderMark repairs = 1 << iota
	fixedTextBeforeProlog
	fixedControlCharacters
	fixedInvalidUTF8
	fixedBareAmpersands
	fixedHTMLEntities
	fixedCharacterReferences
	fixedBareLessThan
	fixedAttributes
	fixedEndTags
	fixedTruncatedEnd
)

var repairNames = []string{
	"byte-order mark", "text before the XML prolog", "control characters", "invalid UTF-8",
	"bare ampersands", "HTML entities undeclared in XML", "invalid character references",
	"bare <", "malformed attributes", "mismatched end tags", "truncated end",
}

// String lists the repairs, comma-separated, in a fixed order.
func (r repairs) String() string {
	var names []string
	for i, name := range repairNames {
		if r&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// repairXML rewrites an ill-formed XML body as well-formed XML, the way
// browsers and feedparser read what real feeds carry: a byte-order mark,
// whitespace or a server's warning before the prolog, control characters,
// invalid UTF-8, bare ampersands and less-than signs, HTML entities that
// XML does not declare, unquoted or valueless attributes, end tags that do
// not match, HTML void elements left open, and a truncated end (open
// elements are closed; an unfinished item or entry is dropped, so that it
// is read whole at a later poll rather than cut for good).
//
// Comments, processing instructions (the prolog included) and DOCTYPE
// declarations are dropped: a feed parser has no use for them, and their
// own syntax errors are then none. Entities become numeric character
// references, so the result means the same in any encoding; feedUTF8 has
// made the body UTF-8 before.
//
// One pass, no backtracking: time is linear in the body, and the output
// is at most five times the input (an "&" becomes "&amp;") plus a few
// bytes. It may allocate per distinct element name and per entity.
func repairXML(body []byte) ([]byte, repairs) {
	if len(body) > maxRepairable {
		return body, 0
	}
	r := &xmlRepairer{in: body, out: make([]byte, 0, len(body)+len(body)/16+64), names: map[string]int{}}
	r.run()
	// Whitespace before the root means nothing; dropped, the output is the
	// same whatever preceded it (the prolog, a comment), and a second
	// repair changes nothing.
	return bytes.TrimLeft(r.out, " \t\r\n"), r.fixed
}

// checkXML says what repairXML would mend, without writing the repaired
// body: a well-formed feed, the usual case, costs one pass and no copy.
func checkXML(body []byte) repairs {
	if len(body) > maxRepairable {
		return 0
	}
	r := &xmlRepairer{in: body, names: map[string]int{}, dry: true}
	r.run()
	return r.fixed
}

func (r *xmlRepairer) run() {
	r.skipLeadingJunk()
	for r.i < len(r.in) {
		next := bytes.IndexByte(r.in[r.i:], '<')
		if next < 0 {
			r.text(r.i, len(r.in), 0)
			r.i = len(r.in)
			break
		}
		r.text(r.i, r.i+next, 0)
		r.i += next
		r.markup()
		if r.dry {
			// Nothing reads what came before: keep only a step's worth.
			r.out = r.out[:0]
		}
	}
	r.closeAll()
}

// maxRepairable keeps every offset into the output within an int32; it is
// far above any body size limit.
const maxRepairable = math.MaxInt32 / 8

type xmlRepairer struct {
	in    []byte
	i     int
	out   []byte
	stack []openTag
	names map[string]int // element name -> index in open; a key per distinct name
	open  []int          // open elements per name: a stray end tag is found in O(1)
	fixed repairs
	dry   bool // checkXML: out is scratch, not the result
}

// openTag is small and holds no pointer: a hostile body may open
// millions, and the garbage collector need not scan them.
type openTag struct {
	nameFrom, nameTo int32 // its name, in in
	at               int32 // where its start tag begins in out
	outsider         bool  // an item or entry, dropped whole when cut off
}

// skipLeadingJunk drops byte-order marks, whitespace and, when an XML
// declaration follows soon, whatever a server printed before it. One
// byte-order mark first is allowed (so is whitespace when no declaration
// follows): those are not repairs.
func (r *xmlRepairer) skipLeadingJunk() {
	r.i = len(r.in) - len(bytes.TrimPrefix(r.in, utf8BOM))
	var bom, space bool
	for {
		if bytes.HasPrefix(r.in[r.i:], utf8BOM) {
			r.i, bom = r.i+len(utf8BOM), true
		} else if r.i < len(r.in) && isXMLSpace(r.in[r.i]) {
			r.i, space = r.i+1, true
		} else {
			break
		}
	}
	head := r.in[r.i:min(len(r.in), r.i+4096)]
	decl := bytes.Index(head, []byte("<?xml"))
	if decl < 0 || decl+5 >= len(head) || !isXMLSpace(head[decl+5]) {
		if bom {
			r.fixed |= fixedByteOrderMark
		}
		return
	}
	if decl > 0 {
		if bytes.Contains(head[:decl], []byte("<rss")) || bytes.Contains(head[:decl], []byte("<feed")) ||
			bytes.Contains(head[:decl], []byte("<rdf")) {
			return // the feed itself, quoting a declaration later on
		}
		r.i += decl
		space = true
	}
	if bom {
		r.fixed |= fixedByteOrderMark
	}
	if space {
		r.fixed |= fixedTextBeforeProlog
	}
}

// markup handles what starts at the '<' at r.i.
func (r *xmlRepairer) markup() {
	rest := r.in[r.i:]
	switch {
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		r.cdata()
	case bytes.HasPrefix(rest, []byte("<!--")):
		r.skipPast("-->", 4)
	case bytes.HasPrefix(rest, []byte("<?")):
		r.skipPast("?>", 2)
	case bytes.HasPrefix(rest, []byte("<!")):
		r.skipDeclaration()
	case len(rest) > 2 && rest[1] == '/' && isASCIINameStart(rest[2]):
		r.endTag()
	case len(rest) > 1 && isASCIINameStart(rest[1]):
		r.startTag()
	case len(rest) == 1 || (len(rest) == 2 && rest[1] == '/'):
		// The body ends inside a tag's first bytes.
		r.fixed |= fixedTruncatedEnd
		r.i = len(r.in)
	default:
		r.out = append(r.out, "&lt;"...)
		r.fixed |= fixedBareLessThan
		r.i++
	}
}

// skipPast drops everything up to and including end; a body that ends
// first was cut off.
func (r *xmlRepairer) skipPast(end string, from int) {
	if k := bytes.Index(r.in[r.i+from:], []byte(end)); k >= 0 {
		r.i += from + k + len(end)
		return
	}
	r.fixed |= fixedTruncatedEnd
	r.i = len(r.in)
}

// skipDeclaration drops a <!DOCTYPE ...> or another <!...> declaration,
// whose internal subset in brackets may hold '>' of its own.
func (r *xmlRepairer) skipDeclaration() {
	var quote byte
	depth := 0
	for j := r.i + 2; j < len(r.in); j++ {
		c := r.in[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case c == '>' && depth == 0:
			r.i = j + 1
			return
		}
	}
	r.fixed |= fixedTruncatedEnd
	r.i = len(r.in)
}

func (r *xmlRepairer) cdata() {
	start := r.i + len("<![CDATA[")
	end := bytes.Index(r.in[start:], []byte("]]>"))
	r.out = append(r.out, "<![CDATA["...)
	if end < 0 {
		r.chars(start, len(r.in))
		r.out = append(r.out, "]]>"...)
		r.fixed |= fixedTruncatedEnd
		r.i = len(r.in)
		return
	}
	r.chars(start, start+end)
	r.out = append(r.out, "]]>"...)
	r.i = start + end + 3
}

// isVoidHTML says whether name is an HTML element without content, which
// feeds leave open in unescaped HTML; closed at once, it cannot swallow
// what follows. None is a feed element (link and meta are left out: RSS
// and Atom use link; so is source, an element of both).
func isVoidHTML(name []byte) bool {
	var lower [6]byte
	if len(name) > len(lower) {
		return false
	}
	for k, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[k] = c
	}
	switch string(lower[:len(name)]) {
	case "br", "hr", "img", "wbr", "area", "col", "embed", "track", "param":
		return true
	}
	return false
}

func (r *xmlRepairer) startTag() {
	tagAt := len(r.out)
	nameFrom, nameEnd := r.i+1, r.nameEnd(r.i+1)
	name := r.in[nameFrom:nameEnd]
	r.out = append(r.out, '<')
	r.out = append(r.out, name...)
	j := nameEnd
	for {
		for j < len(r.in) && isXMLSpace(r.in[j]) {
			j++
		}
		if j >= len(r.in) {
			r.cutOff(tagAt)
			return
		}
		switch c := r.in[j]; {
		case c == '>':
			r.i = j + 1
			r.endStartTag(nameFrom, nameEnd, tagAt, false)
			return
		case c == '/' && j+1 < len(r.in) && r.in[j+1] == '>':
			r.i = j + 2
			r.endStartTag(nameFrom, nameEnd, tagAt, true)
			return
		case c == '<':
			// A tag never closed: end it here and read on.
			r.fixed |= fixedAttributes
			r.i = j
			r.endStartTag(nameFrom, nameEnd, tagAt, false)
			return
		case isASCIINameStart(c):
			var ok bool
			if j, ok = r.attribute(j); !ok {
				r.cutOff(tagAt)
				return
			}
		default:
			_, size := utf8.DecodeRune(r.in[j:])
			j += size
			r.fixed |= fixedAttributes
		}
	}
}

func (r *xmlRepairer) endStartTag(nameFrom, nameTo, tagAt int, empty bool) {
	if empty {
		r.out = append(r.out, "/>"...)
		return
	}
	if name := r.in[nameFrom:nameTo]; isVoidHTML(name) {
		r.out = append(r.out, "/>"...)
		// <br></br> is well-formed: its end tag goes with it.
		rest := r.in[r.i:]
		if len(rest) > len(name)+2 && rest[0] == '<' && rest[1] == '/' && bytes.Equal(rest[2:2+len(name)], name) {
			if end := bytes.TrimLeft(rest[2+len(name):], " \t\r\n"); len(end) > 0 && end[0] == '>' {
				r.i = len(r.in) - len(end) + 1
				return
			}
		}
		r.fixed |= fixedEndTags
		return
	}
	r.out = append(r.out, '>')
	r.push(nameFrom, nameTo, tagAt)
}

// attribute copies the attribute whose name starts at j, quoted and
// escaped, and returns where it ends; ok is false when the body ends in it.
func (r *xmlRepairer) attribute(j int) (end int, ok bool) {
	nameEnd := r.nameEnd(j)
	name := r.in[j:nameEnd]
	k := nameEnd
	for k < len(r.in) && isXMLSpace(r.in[k]) {
		k++
	}
	r.out = append(r.out, ' ')
	r.out = append(r.out, name...)
	r.out = append(r.out, `="`...)
	defer func() { r.out = append(r.out, '"') }()
	if k >= len(r.in) {
		return k, false
	}
	if r.in[k] != '=' {
		// <option selected>: HTML's way of saying selected="selected".
		r.fixed |= fixedAttributes
		r.text(j, nameEnd, '"')
		return nameEnd, true
	}
	k++
	for k < len(r.in) && isXMLSpace(r.in[k]) {
		k++
	}
	if k >= len(r.in) {
		return k, false
	}
	if q := r.in[k]; q == '"' || q == '\'' {
		closing := bytes.IndexByte(r.in[k+1:], q)
		if closing < 0 {
			return len(r.in), false
		}
		r.text(k+1, k+1+closing, '"')
		return k + 2 + closing, true
	}
	valueEnd := k
	for valueEnd < len(r.in) && !isXMLSpace(r.in[valueEnd]) && r.in[valueEnd] != '>' {
		valueEnd++
	}
	r.fixed |= fixedAttributes
	r.text(k, valueEnd, '"')
	return valueEnd, true
}

// push opens the element whose name is in[from:to] and whose start tag
// begins at out[at].
func (r *xmlRepairer) push(from, to, at int) {
	name := r.in[from:to]
	r.stack = append(r.stack, openTag{nameFrom: int32(from), nameTo: int32(to), at: int32(at), outsider: isEntryElement(name)})
	k, ok := r.names[string(name)] // a lookup by string(bytes) does not allocate
	if !ok {
		k = len(r.open)
		r.names[string(name)] = k
		r.open = append(r.open, 0)
	}
	r.open[k]++
}

// openCount is how many elements named name are open.
func (r *xmlRepairer) openCount(name []byte) int {
	if k, ok := r.names[string(name)]; ok {
		return r.open[k]
	}
	return 0
}

// pop closes the innermost open element and returns its name.
func (r *xmlRepairer) pop() []byte {
	top := r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	name := r.in[top.nameFrom:top.nameTo]
	r.open[r.names[string(name)]]--
	return name
}

func (r *xmlRepairer) writeEndTag(name []byte) {
	r.out = append(r.out, "</"...)
	r.out = append(r.out, name...)
	r.out = append(r.out, '>')
}

// endTag closes the element it names, and those left open inside it; an
// end tag of no open element is dropped.
func (r *xmlRepairer) endTag() {
	nameEnd := r.nameEnd(r.i + 2)
	name := r.in[r.i+2 : nameEnd]
	closing := bytes.IndexByte(r.in[nameEnd:], '>')
	if closing < 0 {
		r.fixed |= fixedTruncatedEnd
		r.i = len(r.in)
		return
	}
	r.i = nameEnd + closing + 1
	if closing > 0 && len(bytes.TrimLeft(r.in[nameEnd:nameEnd+closing], " \t\r\n")) > 0 {
		r.fixed |= fixedEndTags // </a junk>
	}
	if r.openCount(name) == 0 {
		r.fixed |= fixedEndTags
		return
	}
	for {
		top := r.pop()
		r.writeEndTag(top)
		if bytes.Equal(top, name) {
			return
		}
		r.fixed |= fixedEndTags
	}
}

// cutOff ends the repair where the body ends inside a start tag, which is
// dropped from tagAt on.
func (r *xmlRepairer) cutOff(tagAt int) {
	r.out = r.out[:tagAt]
	r.fixed |= fixedTruncatedEnd
	r.i = len(r.in)
}

// closeAll closes what the body left open, after dropping the innermost
// unfinished item or entry.
func (r *xmlRepairer) closeAll() {
	if len(r.stack) == 0 {
		return
	}
	r.fixed |= fixedTruncatedEnd
	for k := len(r.stack) - 1; k >= 0; k-- {
		if r.stack[k].outsider {
			if !r.dry {
				r.out = r.out[:r.stack[k].at]
			}
			r.stack = r.stack[:k]
			break
		}
	}
	for len(r.stack) > 0 {
		r.writeEndTag(r.pop())
	}
}

func isEntryElement(name []byte) bool {
	if k := bytes.LastIndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	return string(name) == "item" || string(name) == "entry"
}

// text copies in[from:to] as character data (quote 0) or as an attribute
// value quoted with quote: entities resolved or escaped, and bad
// characters dropped.
func (r *xmlRepairer) text(from, to int, quote byte) {
	for j := from; j < to; {
		// Most of a feed is plain ASCII that is copied as it is: a run of
		// it at once, not a byte at a time through the cases below.
		if k := plainRun(r.in[j:to]); k > 0 {
			r.out = append(r.out, r.in[j:j+k]...)
			j += k
			continue
		}
		switch c := r.in[j]; c {
		case '&':
			j = r.entity(j, to)
		case '<':
			r.out = append(r.out, "&lt;"...)
			r.fixed |= fixedBareLessThan
			j++
		case '>':
			// "]]>" is not allowed in text.
			if quote == 0 && bytes.HasSuffix(r.out, []byte("]]")) {
				r.out = append(r.out, "&gt;"...)
			} else {
				r.out = append(r.out, '>')
			}
			j++
		case '"':
			if quote == '"' {
				r.out = append(r.out, "&quot;"...)
			} else {
				r.out = append(r.out, c)
			}
			j++
		default:
			j = r.char(j, to)
		}
	}
}

// plainBytes are the bytes that text copies as they are, whatever
// precedes them and whatever the quote: ASCII that XML allows and that
// is no markup ('&', '<', '>', '"').
var plainBytes = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range "\t\n\r" {
		t[c] = true
	}
	for _, c := range `&<>"` {
		t[c] = false
	}
	return t
}()

// plainRun is how many bytes b starts with that are plainBytes.
func plainRun(b []byte) int {
	for i, c := range b {
		if !plainBytes[c] {
			return i
		}
	}
	return len(b)
}

// chars copies in[from:to] dropping what XML does not allow.
func (r *xmlRepairer) chars(from, to int) {
	for j := from; j < to; {
		j = r.char(j, to)
	}
}

// char copies the character at j if XML allows it, and returns where the
// next one starts.
func (r *xmlRepairer) char(j, to int) int {
	c := r.in[j]
	if c < utf8.RuneSelf {
		if c >= 0x20 || c == '\t' || c == '\n' || c == '\r' {
			r.out = append(r.out, c)
		} else {
			r.fixed |= fixedControlCharacters
		}
		return j + 1
	}
	ch, size := utf8.DecodeRune(r.in[j:to])
	switch {
	case ch == utf8.RuneError && size == 1:
		r.out = utf8.AppendRune(r.out, utf8.RuneError)
		r.fixed |= fixedInvalidUTF8
	case ch == 0xFFFE || ch == 0xFFFF:
		r.fixed |= fixedControlCharacters
	default:
		r.out = append(r.out, r.in[j:j+size]...)
	}
	return j + size
}

// maxEntityName is longer than any HTML entity name
// (CounterClockwiseContourIntegral has 31 letters).
const maxEntityName = 32

// entity handles the '&' at j, in text ending at to, and returns where
// reading goes on.
func (r *xmlRepairer) entity(j, to int) int {
	end := bytes.IndexByte(r.in[j:min(to, j+maxEntityName+3)], ';')
	if end < 0 {
		return r.bareAmpersand(j)
	}
	ref := r.in[j+1 : j+end] // between '&' and ';'
	if len(ref) > 1 && ref[0] == '#' {
		return r.charRef(j, ref, j+end+1)
	}
	if len(ref) == 0 || !isAlnum(ref) {
		return r.bareAmpersand(j)
	}
	switch string(ref) {
	case "amp", "lt", "gt", "quot", "apos":
		r.out = append(r.out, r.in[j:j+end+1]...)
		return j + end + 1
	}
	decoded := html.UnescapeString(string(r.in[j : j+end+1]))
	if decoded == string(r.in[j:j+end+1]) || (strings.HasSuffix(decoded, ";") && string(ref) != "semi") {
		// Not an HTML entity either ("&notit;" only begins with "&not"):
		// text.
		return r.bareAmpersand(j)
	}
	for _, ch := range decoded {
		r.writeCharRef(ch)
	}
	r.fixed |= fixedHTMLEntities
	return j + end + 1
}

func (r *xmlRepairer) bareAmpersand(j int) int {
	r.out = append(r.out, "&amp;"...)
	r.fixed |= fixedBareAmpersands
	return j + 1
}

// charRef checks a numeric character reference (ref is "#123" or "#x7B")
// ending before next.
func (r *xmlRepairer) charRef(j int, ref []byte, next int) int {
	digits, base := ref[1:], 10
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	if len(digits) == 0 || len(digits) > 8 {
		return r.bareAmpersand(j)
	}
	var n int64 // eight hex digits do not fit a rune
	for _, d := range digits {
		v := hexValue(d)
		if v < 0 || v >= base {
			return r.bareAmpersand(j)
		}
		n = n*int64(base) + int64(v)
	}
	switch {
	case n <= utf8.MaxRune && isXMLChar(rune(n)) && ref[1] != 'X':
		r.out = append(r.out, r.in[j:next]...)
		return next
	case n <= utf8.MaxRune && isXMLChar(rune(n)):
		r.writeCharRef(rune(n)) // "&#X41;": XML knows a lower-case x only
	case n < 0x20:
		// A control character, spelt out: dropped like one.
	default:
		r.writeCharRef(utf8.RuneError)
	}
	r.fixed |= fixedCharacterReferences
	return next
}

func (r *xmlRepairer) writeCharRef(ch rune) {
	if !isXMLChar(ch) {
		ch = utf8.RuneError
	}
	r.out = append(r.out, "&#"...)
	r.out = appendInt(r.out, int(ch))
	r.out = append(r.out, ';')
}

func appendInt(b []byte, n int) []byte {
	var digits [8]byte
	k := len(digits)
	for {
		k--
		digits[k] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, digits[k:]...)
}

func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// isXMLChar is XML 1.0's Char production (encoding/xml's check too).
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Names are kept to ASCII: a feed's element names are, and encoding/xml's
// tables for the rest need not agree with any of ours.
func isASCIINameStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

func isASCIINameByte(c byte) bool {
	return isASCIINameStart(c) || '0' <= c && c <= '9' || c == '-' || c == '.' || c == ':'
}

// nameEnd is where the name at j ends: at most one colon, as namespaces
// (and encoding/xml) allow.
func (r *xmlRepairer) nameEnd(j int) int {
	colon := false
	for ; j < len(r.in) && isASCIINameByte(r.in[j]); j++ {
		if r.in[j] == ':' {
			if colon {
				break
			}
			colon = true
		}
	}
	return j
}

func isAlnum(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
