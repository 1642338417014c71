package config

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// BurntSushi/toml v1.6.0 records the position of every key while parsing,
// but its MetaData has no public accessor for it (positions only surface
// inside a ParseError). So that every error can point at a line, keyLines
// walks the source once more with a small scanner that understands just
// enough TOML to find keys: table headers, dotted and quoted keys, and values
// to skip over (strings of all four kinds, arrays and inline tables spanning
// lines, comments).
//
// It is only run on input the toml package has already accepted, and the
// positions it finds only ever decorate messages: a scanner mistake can cost
// a line number, never a detection. The fuzz test checks that it never
// panics and that its keys match MetaData.Keys() on valid documents.

// keyPos is one key as it appears in the document.
type keyPos struct {
	key     toml.Key // path without array indices, as MetaData.Keys() has it
	indexed string   // path with indices, e.g. users[1].feeds
	line    int      // 1-based
}

// keyScan is the result of scanning a document.
type keyScan struct {
	ordered []keyPos       // every key, header and inline-table key, in document order
	lines   map[string]int // indexed path -> line of its first definition; also array elements, e.g. users[1].feeds[2]
}

// line returns the line of an indexed path, or 0 when unknown.
func (ks *keyScan) line(indexed string) int {
	if ks == nil {
		return 0
	}
	return ks.lines[indexed]
}

type lineScanner struct {
	s      string
	i      int
	ln     int
	out    keyScan
	counts map[string]int // array-of-tables (indexed path) -> number of elements so far
	plain  toml.Key       // current table, no indices
	index  string         // current table, with indices
}

// keyLines scans a TOML document for the lines of its keys.
func keyLines(src string) *keyScan {
	sc := &lineScanner{
		s:      src,
		ln:     1,
		counts: map[string]int{},
		out:    keyScan{lines: map[string]int{}},
	}
	sc.top()
	return &sc.out
}

// joinIndexed appends one key part to an indexed path.
func joinIndexed(base, part string) string {
	q := toml.Key{part}.String()
	if base == "" {
		return q
	}
	return base + "." + q
}

func (sc *lineScanner) record(plain toml.Key, indexed string, line int) {
	k := make(toml.Key, len(plain))
	copy(k, plain)
	sc.out.ordered = append(sc.out.ordered, keyPos{key: k, indexed: indexed, line: line})
	sc.mark(indexed, line)
}

func (sc *lineScanner) mark(indexed string, line int) {
	if _, ok := sc.out.lines[indexed]; !ok {
		sc.out.lines[indexed] = line
	}
}

func (sc *lineScanner) eof() bool { return sc.i >= len(sc.s) }

func (sc *lineScanner) peek() byte {
	if sc.i < len(sc.s) {
		return sc.s[sc.i]
	}
	return 0
}

func (sc *lineScanner) has(prefix string) bool { return strings.HasPrefix(sc.s[sc.i:], prefix) }

// advance moves one byte forward, counting lines.
func (sc *lineScanner) advance() {
	if sc.i < len(sc.s) {
		if sc.s[sc.i] == '\n' {
			sc.ln++
		}
		sc.i++
	}
}

func (sc *lineScanner) skipBlank() {
	for !sc.eof() && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *lineScanner) skipLine() {
	for !sc.eof() && sc.s[sc.i] != '\n' {
		sc.i++
	}
}

// skipSpace skips blanks, newlines and comments (inside arrays and inline tables).
func (sc *lineScanner) skipSpace() {
	for !sc.eof() {
		switch sc.s[sc.i] {
		case ' ', '\t', '\r', '\n':
			sc.advance()
		case '#':
			sc.skipLine()
		default:
			return
		}
	}
}

func (sc *lineScanner) top() {
	for !sc.eof() {
		start := sc.i
		sc.skipBlank()
		switch c := sc.peek(); {
		case sc.eof():
			return
		case c == '\r' || c == '\n':
			sc.advance()
		case c == '#':
			sc.skipLine()
		case c == '[':
			sc.header()
		default:
			line := sc.ln
			parts, ok := sc.key()
			if !ok {
				sc.skipLine()
				break
			}
			sc.skipBlank()
			if sc.peek() != '=' {
				sc.skipLine()
				break
			}
			sc.i++
			sc.skipBlank()
			plain := append(append(toml.Key{}, sc.plain...), parts...)
			indexed := sc.index
			for _, p := range parts {
				indexed = joinIndexed(indexed, p)
			}
			sc.record(plain, indexed, line)
			sc.value(plain, indexed)
		}
		if sc.i == start { // no progress: never loop forever on odd input
			sc.advance()
		}
	}
}

// header reads "[a.b]" or "[[a.b]]".
func (sc *lineScanner) header() {
	line := sc.ln
	array := sc.has("[[")
	if array {
		sc.i += 2
	} else {
		sc.i++
	}
	parts, ok := sc.key()
	if !ok || len(parts) == 0 {
		sc.skipLine()
		return
	}
	sc.skipBlank()
	if array {
		if !sc.has("]]") {
			sc.skipLine()
			return
		}
		sc.i += 2
	} else {
		if sc.peek() != ']' {
			sc.skipLine()
			return
		}
		sc.i++
	}
	indexed := ""
	for j, p := range parts {
		indexed = joinIndexed(indexed, p)
		last := j == len(parts)-1
		if last && array {
			sc.counts[indexed]++
			indexed += "[" + strconv.Itoa(sc.counts[indexed]-1) + "]"
		} else if n, ok := sc.counts[indexed]; ok && !last {
			indexed += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	sc.plain = parts
	sc.index = indexed
	sc.record(parts, indexed, line)
}

// key reads a possibly dotted key; it stops before the "=" or "]".
func (sc *lineScanner) key() (toml.Key, bool) {
	var parts toml.Key
	for {
		sc.skipBlank()
		var part string
		switch c := sc.peek(); {
		case c == '"':
			s, ok := sc.basicString()
			if !ok {
				return nil, false
			}
			part = s
		case c == '\'':
			s, ok := sc.literalString()
			if !ok {
				return nil, false
			}
			part = s
		default:
			start := sc.i
			for !sc.eof() && isBare(sc.s[sc.i]) {
				sc.i++
			}
			if sc.i == start {
				return nil, false
			}
			part = sc.s[start:sc.i]
		}
		parts = append(parts, part)
		sc.skipBlank()
		if sc.peek() != '.' {
			return parts, true
		}
		sc.i++
	}
}

func isBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value skips one value; plain and indexed name where it is stored.
func (sc *lineScanner) value(plain toml.Key, indexed string) {
	switch {
	case sc.has(`"""`):
		sc.multiline(`"""`, true)
	case sc.has(`'''`):
		sc.multiline(`'''`, false)
	case sc.peek() == '"':
		sc.basicString()
	case sc.peek() == '\'':
		sc.literalString()
	case sc.peek() == '[':
		sc.array(plain, indexed)
	case sc.peek() == '{':
		sc.inlineTable(plain, indexed)
	default: // number, bool, date: up to a delimiter
		for !sc.eof() && !strings.ContainsRune(",]}#\r\n", rune(sc.s[sc.i])) {
			sc.i++
		}
	}
}

func (sc *lineScanner) array(plain toml.Key, indexed string) {
	sc.i++ // [
	n := 0
	for !sc.eof() {
		sc.skipSpace()
		switch sc.peek() {
		case ']':
			sc.i++
			return
		case ',':
			sc.i++
			continue
		}
		if sc.eof() {
			return
		}
		elem := indexed + "[" + strconv.Itoa(n) + "]"
		n++
		sc.mark(elem, sc.ln)
		start := sc.i
		sc.value(plain, elem)
		if sc.i == start {
			return
		}
	}
}

func (sc *lineScanner) inlineTable(plain toml.Key, indexed string) {
	sc.i++ // {
	for !sc.eof() {
		sc.skipSpace()
		switch sc.peek() {
		case '}':
			sc.i++
			return
		case ',':
			sc.i++
			continue
		}
		line := sc.ln
		parts, ok := sc.key()
		if !ok {
			return
		}
		sc.skipBlank()
		if sc.peek() != '=' {
			return
		}
		sc.i++
		sc.skipBlank()
		p := append(append(toml.Key{}, plain...), parts...)
		ix := indexed
		for _, part := range parts {
			ix = joinIndexed(ix, part)
		}
		sc.record(p, ix, line)
		start := sc.i
		sc.value(p, ix)
		if sc.i == start {
			return
		}
	}
}

// basicString reads a "..." string and returns its decoded value.
func (sc *lineScanner) basicString() (string, bool) {
	sc.i++ // "
	var b strings.Builder
	for !sc.eof() {
		c := sc.s[sc.i]
		switch c {
		case '"':
			sc.i++
			return b.String(), true
		case '\n':
			return b.String(), false
		case '\\':
			sc.i++
			sc.escape(&b)
		default:
			b.WriteByte(c)
			sc.i++
		}
	}
	return b.String(), false
}

var (
	simpleEscapes = map[byte]byte{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'e': 0x1b, '"': '"', '\\': '\\'}
	escapeWidths  = map[byte]int{'x': 2, 'u': 4, 'U': 8}
)

// escape decodes one escape sequence after its backslash.
func (sc *lineScanner) escape(b *strings.Builder) {
	if sc.eof() {
		return
	}
	c := sc.s[sc.i]
	sc.i++
	if r, ok := simpleEscapes[c]; ok {
		b.WriteByte(r)
		return
	}
	width := escapeWidths[c]
	if width == 0 || sc.i+width > len(sc.s) {
		b.WriteByte('\\')
		b.WriteByte(c)
		return
	}
	v, err := strconv.ParseUint(sc.s[sc.i:sc.i+width], 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		b.WriteByte('\\')
		b.WriteByte(c)
		return
	}
	sc.i += width
	b.WriteRune(rune(v))
}

// literalString reads a '...' string.
func (sc *lineScanner) literalString() (string, bool) {
	sc.i++ // '
	start := sc.i
	for !sc.eof() {
		switch sc.s[sc.i] {
		case '\'':
			s := sc.s[start:sc.i]
			sc.i++
			return s, true
		case '\n':
			return sc.s[start:sc.i], false
		}
		sc.i++
	}
	return sc.s[start:], false
}

// multiline skips a multi-line string (basic or literal, as delim says),
// counting its lines.
func (sc *lineScanner) multiline(delim string, escapes bool) {
	sc.i += len(delim)
	for !sc.eof() {
		if escapes && sc.s[sc.i] == '\\' {
			sc.advance()
			sc.advance()
			continue
		}
		if sc.has(delim) {
			sc.i += len(delim)
			// Up to two quotes may sit right before the closing delimiter.
			for extra := 0; extra < 2 && !sc.eof() && sc.s[sc.i] == delim[0]; extra++ {
				sc.i++
			}
			return
		}
		sc.advance()
	}
}
