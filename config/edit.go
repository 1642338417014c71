package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"
)

// CheckFeedURL says whether s is acceptable in a user's feeds: the same
// rule Load applies, for callers that sort URLs before adding them.
func CheckFeedURL(s string) error {
	_, err := httpURL(s)
	return err
}

// AddFeeds adds urls to the feeds of the named user in the configuration
// file at path, and reports which it added and which the user already had
// (both in the order given). The file is edited, not re-encoded: only the
// user's feeds array changes (or, when the user has none, one feeds line is
// inserted after the user's name line), so comments, order and layout
// stay. The new text must load and give exactly the old feeds plus the
// added ones before it replaces the file, atomically and with the same
// permissions; on any error the file is left as it was.
func AddFeeds(path, user string, urls []string) (added, present []string, err error) {
	real, err := filepath.EvalSymlinks(path) // edit the file a symlink points to, keep the link
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data, path)
	if err != nil {
		return nil, nil, fmt.Errorf("fix the configuration before adding feeds: %w", err)
	}
	idx := slices.IndexFunc(cfg.Users, func(u User) bool { return u.Name == user })
	if idx < 0 {
		return nil, nil, fmt.Errorf("%s: no user named %q (users: %s)", path, user, userNames(cfg))
	}
	added, present, err = partition(cfg.Users[idx].Feeds, urls)
	if err != nil || len(added) == 0 {
		return nil, present, err
	}
	edited, err := insertFeeds(data, idx, added)
	if err == nil {
		err = verifyEdit(cfg, edited, path, idx, added)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: cannot add feeds to user %q: %w", path, user, err)
	}
	if err := replaceFile(real, data, edited, info.Mode().Perm()); err != nil {
		return nil, nil, err
	}
	return added, present, nil
}

func userNames(cfg *Config) string {
	names := make([]string, len(cfg.Users))
	for i, u := range cfg.Users {
		names[i] = u.Name
	}
	return strings.Join(names, ", ")
}

// partition splits urls into new ones and ones the user already has,
// dropping repeats; an URL the configuration would refuse is an error.
func partition(have, urls []string) (fresh, present []string, err error) {
	for _, u := range urls {
		u = strings.TrimSpace(u)
		if err := CheckFeedURL(u); err != nil {
			return nil, nil, fmt.Errorf("bad feed URL: %w", err)
		}
		switch {
		case slices.Contains(have, u):
			if !slices.Contains(present, u) {
				present = append(present, u)
			}
		case !slices.Contains(fresh, u):
			fresh = append(fresh, u)
		}
	}
	return fresh, present, nil
}

// errLayout means the user's table is written in a way this editor does not
// rewrite (e.g. an inline table); it refuses rather than guess.
var errLayout = errors.New(`its table is not written as [[users]] with "name = ..." and "feeds = [...]" lines; add them by hand`)

// verifyEdit proves the edited text: it must load, and every user must
// have the same feeds as before except the one that gains exactly added.
func verifyEdit(before *Config, edited []byte, path string, idx int, added []string) error {
	after, err := Parse(edited, path)
	if err != nil {
		return fmt.Errorf("the edited file would not load (%w)", err)
	}
	if len(after.Users) != len(before.Users) {
		return errLayout
	}
	for i, u := range before.Users {
		want := u.Feeds
		if i == idx {
			want = append(slices.Clone(want), added...)
		}
		if after.Users[i].Name != u.Name || !slices.Equal(after.Users[i].Feeds, want) {
			return errLayout
		}
	}
	return nil
}

// edit is one insertion or replacement in the source.
type edit struct {
	from, to int
	text     string
}

func apply(src string, edits []edit) []byte {
	slices.SortStableFunc(edits, func(a, b edit) int { return b.from - a.from })
	for _, e := range edits { // from the end, so earlier offsets hold
		src = src[:e.from] + e.text + src[e.to:]
	}
	return []byte(src)
}

// insertFeeds returns src with urls appended to users[idx].feeds.
func insertFeeds(data []byte, idx int, urls []string) ([]byte, error) {
	src := string(data)
	layout := newLayout(src)
	ks := keyLines(src)
	if line := ks.line(fmt.Sprintf("users[%d].feeds", idx)); line > 0 {
		edits, err := layout.extendArray(line, urls)
		if err != nil {
			return nil, err
		}
		return apply(src, edits), nil
	}
	line := ks.line(fmt.Sprintf("users[%d].name", idx))
	if line == 0 {
		return nil, errLayout
	}
	e, err := layout.addFeedsKey(line, urls)
	if err != nil {
		return nil, err
	}
	return apply(src, []edit{e}), nil
}

// layout knows how the document writes lines, to match it.
type layout struct {
	src string
	nl  string // "\r\n" when the file uses it
}

func newLayout(src string) *layout {
	l := &layout{src: src, nl: "\n"}
	if strings.Contains(src, "\r\n") {
		l.nl = "\r\n"
	}
	return l
}

// maxInline is the widest line an inline array is written on.
const maxInline = 100

// lineStart is the offset of 1-based line n.
func (l *layout) lineStart(n int) int {
	off := 0
	for ; n > 1; n-- {
		i := strings.IndexByte(l.src[off:], '\n')
		if i < 0 {
			return len(l.src)
		}
		off += i + 1
	}
	return off
}

// lineOf returns the start of the line holding offset and its indentation.
func (l *layout) lineOf(off int) (start int, indent string) {
	start = strings.LastIndexByte(l.src[:off], '\n') + 1
	end := start
	for end < len(l.src) && (l.src[end] == ' ' || l.src[end] == '\t') {
		end++
	}
	return start, l.src[start:end]
}

// keyAt scans "key =" at the start of line and leaves the scanner at the
// value; the key must be exactly name.
func (l *layout) keyAt(line int, name string) (*lineScanner, error) {
	sc := &lineScanner{s: l.src, i: l.lineStart(line), ln: line, counts: map[string]int{}, out: keyScan{lines: map[string]int{}}}
	sc.skipBlank()
	parts, ok := sc.key()
	if !ok || len(parts) != 1 || parts[0] != name {
		return nil, errLayout
	}
	sc.skipBlank()
	if sc.peek() != '=' {
		return nil, errLayout
	}
	sc.i++
	sc.skipBlank()
	return sc, nil
}

// array is where an array value and its elements sit in the source.
type array struct {
	open, close int      // offsets of "[" and "]"
	elems       [][2]int // start and end offset of each element
	comma       bool     // a comma follows the last element
}

func scanArray(sc *lineScanner) (array, error) {
	a := array{open: sc.i}
	if sc.peek() != '[' {
		return a, errLayout
	}
	sc.i++
	for {
		sc.skipSpace()
		switch {
		case sc.eof():
			return a, errLayout
		case sc.peek() == ']':
			a.close = sc.i
			return a, nil
		case sc.peek() == ',':
			a.comma = true
			sc.i++
			continue
		}
		start := sc.i
		sc.value(nil, "")
		if sc.i == start {
			return a, errLayout
		}
		a.elems = append(a.elems, [2]int{start, sc.i})
		a.comma = false
	}
}

// extendArray appends urls to the feeds array whose key is on line.
func (l *layout) extendArray(line int, urls []string) ([]edit, error) {
	sc, err := l.keyAt(line, "feeds")
	if err != nil {
		return nil, err
	}
	a, err := scanArray(sc)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(l.src[a.open:a.close], "\n") {
		// One line holds no comments: rewrite it, keeping the elements as written.
		items := make([]string, 0, len(a.elems)+len(urls))
		for _, e := range a.elems {
			items = append(items, l.src[e[0]:e[1]])
		}
		items = append(items, quoteAll(urls)...)
		start, indent := l.lineOf(a.open)
		return []edit{{a.open, a.close + 1, l.arrayText(items, indent, a.open-start)}}, nil
	}
	return l.extendBlock(a, urls), nil
}

// extendBlock adds one line per URL before the line of the closing "]",
// in the indentation of the existing elements, so that comments stay on
// their lines.
func (l *layout) extendBlock(a array, urls []string) []edit {
	closeStart, closeIndent := l.lineOf(a.close)
	indent := closeIndent + "  "
	if len(a.elems) > 0 {
		if start, ind := l.lineOf(a.elems[0][0]); start+len(ind) == a.elems[0][0] {
			indent = ind
		}
	}
	needComma := len(a.elems) > 0 && !a.comma
	var b strings.Builder
	if closeStart+len(closeIndent) == a.close {
		var edits []edit
		if needComma {
			end := a.elems[len(a.elems)-1][1]
			edits = append(edits, edit{end, end, ","})
		}
		for _, q := range quoteAll(urls) {
			b.WriteString(indent + q + "," + l.nl)
		}
		return append(edits, edit{closeStart, closeStart, b.String()})
	}
	// "]" shares its line with the last element: the new lines go between
	// them, and "]" moves to a line of its own, under its key.
	if needComma {
		b.WriteString(",")
	}
	for _, q := range quoteAll(urls) {
		b.WriteString(l.nl + indent + q + ",")
	}
	_, keyIndent := l.lineOf(a.open)
	b.WriteString(l.nl + keyIndent)
	return []edit{{a.close, a.close, b.String()}}
}

// addFeedsKey inserts a feeds line after the name line (line) of a user
// that has none.
func (l *layout) addFeedsKey(line int, urls []string) (edit, error) {
	sc, err := l.keyAt(line, "name")
	if err != nil {
		return edit{}, err
	}
	start := sc.i
	sc.value(nil, "")
	if sc.i == start {
		return edit{}, errLayout
	}
	sc.skipLine() // a trailing comment stays with the name
	_, indent := l.lineOf(l.lineStart(line))
	text := indent + "feeds = " + l.arrayText(quoteAll(urls), indent, len(indent)+len("feeds = ")) + l.nl
	at := sc.i
	if sc.eof() {
		text = l.nl + text
	} else {
		at = sc.i + 1 // after the newline
	}
	return edit{at, at, text}, nil
}

// arrayText writes items inline when that fits on the line (whose text
// before the "[" is col bytes wide), else one per line.
func (l *layout) arrayText(items []string, indent string, col int) string {
	inline := "[" + strings.Join(items, ", ") + "]"
	if col+len(inline) <= maxInline {
		return inline
	}
	var b strings.Builder
	b.WriteString("[" + l.nl)
	for _, it := range items {
		b.WriteString(indent + "  " + it + "," + l.nl)
	}
	b.WriteString(indent + "]")
	return b.String()
}

func quoteAll(urls []string) []string {
	q := make([]string, len(urls))
	for i, u := range urls {
		q[i] = quote(u)
	}
	return q
}

// quote writes s as a TOML basic string. strconv.Quote would not do: its
// \x escapes are not TOML 1.0.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// replaceFile writes data to path through a temporary file in the same
// folder, renamed over path only once the temporary file has loaded as a
// configuration and path still holds old (so that an edit made meanwhile
// by someone else is not overwritten).
func replaceFile(path string, old, data []byte, perm os.FileMode) error {
	tmp, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithStaticPermissions(perm))
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer tmp.Cleanup()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("config: write %s: %w", tmp.Name(), err)
	}
	if _, err := Load(tmp.Name()); err != nil {
		return fmt.Errorf("config: the edited file would not load: %w", err)
	}
	now, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if !bytes.Equal(now, old) {
		return fmt.Errorf("config: %s changed while it was being edited; try again", path)
	}
	if err := tmp.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir makes the rename durable (renameio syncs the file, not its
// folder); a failure only weakens that, so it is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
