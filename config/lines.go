package config

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// BurntSushi/toml v1.6.0 records where keys are, but keeps it private (and
// per key name, not per array element: users[0].name and users[1].name
// share one entry), so that messages can name lines and AddFeeds can edit
// in place, locate scans the document once more. It knows just enough TOML
// for that: headers, dotted and quoted keys, values to skip (four kinds of
// strings, arrays and inline tables over several lines, comments). It only
// ever sees documents the toml package accepted, and what it finds only
// decorates messages: a mistake costs a line number, never a detection.

// place is where a key, header or array element sits.
type place struct {
	line       int  // 1-based line of the key, header or element
	key        int  // byte offset of the key (of an element: the element)
	start, end int  // byte offsets of the value (of a header: the header)
	plain      bool // a "key = value" line of a table (not a header, element or inline key)
}

// located is one key of the document, in the order of MetaData.Keys().
type located struct {
	key  toml.Key // without array indices, as MetaData.Keys() has it
	segs []string // the same parts quoted, each with its array indices: users[1], feeds[0], url
}

type locator struct {
	src    string
	i, ln  int
	places map[string]place // by indexed path, e.g. users[1].feeds[0].url
	keys   []located
	counts map[string]int // indexed path of an array of tables -> its elements so far
}

// locate scans a TOML document for its keys and array elements.
func locate(src string) *locator {
	l := &locator{src: src, ln: 1, places: map[string]place{}, counts: map[string]int{}}
	var table toml.Key
	var segs []string
	for l.i < len(l.src) {
		start := l.i
		l.space()
		switch l.peek() {
		case 0:
		case '[':
			table, segs = l.header()
		default:
			l.keyValue(table, segs, true)
		}
		if l.i == start { // no progress: never loop on odd input
			l.advance()
		}
	}
	return l
}

// line returns the line of an indexed path, 0 when unknown.
func (l *locator) line(path string) int { return l.places[path].line }

// paths gives the indexed path of each of keys (MetaData.Keys()), or,
// where the scan disagrees with the toml package, the plain paths.
func (l *locator) paths(keys []toml.Key) [][]string {
	out := make([][]string, len(keys))
	agree := len(keys) == len(l.keys)
	for i := 0; agree && i < len(keys); i++ {
		agree = keys[i].String() == l.keys[i].key.String() && len(l.keys[i].segs) == len(keys[i])
	}
	for i, k := range keys {
		if agree {
			out[i] = l.keys[i].segs
			continue
		}
		for _, part := range k {
			out[i] = append(out[i], toml.Key{part}.String())
		}
	}
	return out
}

func (l *locator) peek() byte {
	if l.i < len(l.src) {
		return l.src[l.i]
	}
	return 0
}

func (l *locator) advance() {
	if l.peek() == '\n' {
		l.ln++
	}
	l.i = min(l.i+1, len(l.src))
}

func (l *locator) blank() {
	for l.peek() == ' ' || l.peek() == '\t' {
		l.i++
	}
}

// space skips blanks, line ends and comments.
func (l *locator) space() {
	for l.i < len(l.src) {
		switch l.peek() {
		case ' ', '\t', '\r', '\n':
			l.advance()
		case '#':
			for l.i < len(l.src) && l.peek() != '\n' {
				l.i++
			}
		default:
			return
		}
	}
}

// header reads "[a.b]" or "[[a.b]]" and returns the table it opens.
func (l *locator) header() (toml.Key, []string) {
	line, start := l.ln, l.i
	brackets := 1
	if strings.HasPrefix(l.src[l.i:], "[[") {
		brackets = 2
	}
	l.i += brackets
	parts, ok := l.key()
	if !ok {
		return nil, nil
	}
	l.i = min(l.i+brackets, len(l.src))
	var segs []string
	for j, part := range parts {
		seg := toml.Key{part}.String()
		path := strings.Join(append(segs, seg), ".")
		if j == len(parts)-1 && brackets == 2 {
			l.counts[path]++
		}
		if n := l.counts[path]; n > 0 {
			seg += fmt.Sprintf("[%d]", n-1)
		}
		segs = append(segs, seg)
	}
	l.keys = append(l.keys, located{parts, segs})
	l.places[strings.Join(segs, ".")] = place{line: line, key: start, start: start, end: l.i}
	return parts, segs
}

// keyValue reads "key = value" in a table; false when there is none.
func (l *locator) keyValue(table toml.Key, segs []string, plain bool) bool {
	line, start := l.ln, l.i
	parts, ok := l.key()
	if !ok || l.peek() != '=' {
		return false
	}
	l.i++
	l.blank()
	key := append(append(toml.Key{}, table...), parts...)
	ksegs := append([]string{}, segs...)
	for _, part := range parts {
		ksegs = append(ksegs, toml.Key{part}.String())
	}
	l.keys = append(l.keys, located{key, ksegs}) // before the keys inside its value
	valueStart := l.i
	l.value(key, ksegs)
	l.places[strings.Join(ksegs, ".")] = place{line, start, valueStart, l.valueEnd(valueStart), plain}
	return l.i > valueStart
}

// valueEnd is the end of a value that began at start, before any blanks.
func (l *locator) valueEnd(start int) int {
	end := l.i
	for end > start && (l.src[end-1] == ' ' || l.src[end-1] == '\t') {
		end--
	}
	return end
}

// key reads a possibly dotted key, up to the "=" or "]".
func (l *locator) key() (parts []string, ok bool) {
	for {
		l.blank()
		start := l.i
		if c := l.peek(); c == '"' || c == '\'' {
			l.str()
			parts = append(parts, unquote(l.src[start:l.i]))
		} else {
			for l.i < len(l.src) && isBare(l.src[l.i]) {
				l.i++
			}
			if l.i == start {
				return nil, false
			}
			parts = append(parts, l.src[start:l.i])
		}
		l.blank()
		if l.peek() != '.' {
			return parts, true
		}
		l.i++
	}
}

func isBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// unquote decodes a quoted key the way the toml package does.
func unquote(q string) string {
	if len(q) >= 2 && (q[0] == '\'' || !strings.Contains(q, `\`)) {
		return q[1 : len(q)-1]
	}
	var m map[string]string
	if _, err := toml.Decode("k = "+q, &m); err == nil {
		return m["k"]
	}
	return q
}

// value skips one value, recording the keys and elements inside it.
func (l *locator) value(key toml.Key, segs []string) {
	switch l.peek() {
	case '"', '\'':
		l.str()
	case '[':
		l.array(key, segs)
	case '{':
		l.inline(key, segs)
	default: // number, boolean or date, which may hold a space
		for l.i < len(l.src) && !strings.ContainsRune(",]}#\r\n", rune(l.src[l.i])) {
			l.i++
		}
	}
}

// str skips a string of any of the four kinds.
func (l *locator) str() {
	q := l.src[l.i]
	delim := l.src[l.i : l.i+1]
	if strings.HasPrefix(l.src[l.i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	l.i += len(delim)
	for l.i < len(l.src) {
		switch c := l.src[l.i]; {
		case c == '\\' && q == '"':
			l.advance()
			l.advance()
		case strings.HasPrefix(l.src[l.i:], delim):
			l.i += len(delim)
			for extra := 0; len(delim) == 3 && extra < 2 && l.peek() == q; extra++ {
				l.i++ // up to two quotes may close a multi-line string
			}
			return
		case c == '\n' && len(delim) == 1:
			return
		default:
			l.advance()
		}
	}
}

func (l *locator) array(key toml.Key, segs []string) {
	l.i++ // [
	for n := 0; ; n++ {
		l.space()
		for l.peek() == ',' {
			l.i++
			l.space()
		}
		switch l.peek() {
		case ']':
			l.i++
			return
		case 0:
			return
		}
		esegs := append([]string{}, segs...)
		esegs[len(esegs)-1] += fmt.Sprintf("[%d]", n)
		line, start := l.ln, l.i
		l.value(key, esegs)
		if l.i == start {
			return
		}
		l.places[strings.Join(esegs, ".")] = place{line, start, start, l.valueEnd(start), false}
	}
}

func (l *locator) inline(key toml.Key, segs []string) {
	l.i++ // {
	for {
		l.space()
		switch l.peek() {
		case '}':
			l.i++
			return
		case ',':
			l.i++
			continue
		}
		if !l.keyValue(key, segs, false) {
			return
		}
	}
}
