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

	"feeddigest/domain"
)

// CheckFeedURL says whether s is acceptable in a user's feeds: the same
// rule Load applies, for callers that sort URLs before adding them.
func CheckFeedURL(s string) error {
	_, err := httpURL(s)
	return err
}

// AddFeeds adds urls to the feeds of the named user, as AddSubscriptions
// does, and reports the URLs it added and those the user already had.
func AddFeeds(path, user string, urls []string) (added, present []string, err error) {
	subs := make([]Subscription, len(urls))
	for i, u := range urls {
		subs[i] = Subscription{URL: u}
	}
	a, p, err := AddSubscriptions(path, user, subs)
	for _, s := range a {
		added = append(added, s.URL)
	}
	for _, s := range p {
		present = append(present, s.URL)
	}
	return added, present, err
}

// AddSubscriptions adds subs to the feeds of the named user in the
// configuration file at path, and reports which it added (as written to
// the file) and which the user already had (as the file has them), both in
// the order given. URLs are compared and written in their normal form
// (domain.NormalizeFeedURL), so "HTTP://Example.org:80/f" is the feed
// "http://example.org/f" the user may already have; of two items with the
// same URL the first counts. A subscription with a title or a folder is
// written as an inline table, { url = "...", title = "...", folder = "..." },
// others as a plain URL; titles and folders are cleaned to one line.
//
// The file is edited, not re-encoded: only the user's feeds array changes
// (or, when the user has none, one feeds line is inserted after the user's
// name line), so comments, order and layout stay. The new text must load
// and give exactly the old feeds plus the added ones before it replaces the
// file, atomically and with the same permissions; on any error the file is
// left as it was.
func AddSubscriptions(path, user string, subs []Subscription) (added, present []Subscription, err error) {
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
	added, present, err = partition(cfg.Users[idx].Feeds, subs)
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

// partition splits subs into new ones (normalised and cleaned) and ones
// the user already has, dropping repeats; a URL the configuration would
// refuse is an error.
func partition(have, subs []Subscription) (fresh, present []Subscription, err error) {
	known := map[string]Subscription{}
	for _, h := range have {
		if n, err := domain.NormalizeFeedURL(h.URL); err == nil {
			known[n] = h
		}
	}
	seen := map[string]bool{}
	for _, s := range subs {
		url, err := domain.NormalizeFeedURL(s.URL)
		if err != nil {
			return nil, nil, fmt.Errorf("bad feed URL: %w", err)
		}
		if seen[url] {
			continue
		}
		seen[url] = true
		if h, ok := known[url]; ok {
			present = append(present, h)
			continue
		}
		fresh = append(fresh, Subscription{URL: url, Title: domain.OneLine(s.Title), Folder: domain.OneLine(s.Folder)})
	}
	return fresh, present, nil
}

// errLayout means the user's table is written in a way this editor does not
// rewrite (e.g. an inline table); it refuses rather than guess.
var errLayout = errors.New(`its table is not written as [[users]] with "name = ..." and "feeds = [...]" lines; add them by hand`)

// verifyEdit proves the edited text: it must load, and every user must
// have the same feeds as before except the one that gains exactly added.
func verifyEdit(before *Config, edited []byte, path string, idx int, added []Subscription) error {
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
		if after.Users[i].Name != u.Name || !slices.EqualFunc(after.Users[i].Feeds, want, sameSubscription) {
			return errLayout
		}
	}
	return nil
}

// sameSubscription says whether two subscriptions are written alike.
func sameSubscription(a, b Subscription) bool {
	return a.URL == b.URL && a.Title == b.Title && a.Folder == b.Folder && a.Rules.Equal(b.Rules)
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

// insertFeeds returns src with subs appended to users[idx].feeds.
func insertFeeds(data []byte, idx int, subs []Subscription) ([]byte, error) {
	items := make([]string, len(subs))
	for i, s := range subs {
		items[i] = itemText(s)
	}
	l := newLayout(string(data))
	loc := locate(l.src)
	var e []edit
	var err error
	path := fmt.Sprintf("users[%d].feeds", idx)
	_, tables := loc.places[path+"[0]"] // [[users.feeds]], refused
	if feeds, ok := loc.places[path]; ok || tables {
		e, err = l.extendArray(loc, path, feeds, items)
	} else {
		e, err = l.addFeedsKey(loc.places[fmt.Sprintf("users[%d].name", idx)], items)
	}
	if err != nil {
		return nil, err
	}
	return apply(l.src, e), nil
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

// lineOf returns the start of the line holding offset and its indentation.
func (l *layout) lineOf(off int) (start int, indent string) {
	start = strings.LastIndexByte(l.src[:off], '\n') + 1
	end := start
	for end < len(l.src) && (l.src[end] == ' ' || l.src[end] == '\t') {
		end++
	}
	return start, l.src[start:end]
}

// extendArray appends items (TOML values) to the feeds array at path (a
// "feeds = [...]" line of a [[users]] table, else errLayout).
func (l *layout) extendArray(loc *locator, path string, feeds place, items []string) ([]edit, error) {
	if !feeds.plain || !strings.HasPrefix(l.src[feeds.start:], "[") {
		return nil, errLayout
	}
	open, close := feeds.start, feeds.end-1
	var elems []place
	for j := 0; ; j++ {
		e, ok := loc.places[fmt.Sprintf("%s[%d]", path, j)]
		if !ok {
			break
		}
		elems = append(elems, e)
	}
	if !strings.Contains(l.src[open:close], "\n") {
		// One line holds no comments: rewrite it, keeping the elements as written.
		all := make([]string, 0, len(elems)+len(items))
		for _, e := range elems {
			all = append(all, l.src[e.start:e.end])
		}
		all = append(all, items...)
		start, indent := l.lineOf(open)
		return []edit{{open, close + 1, l.arrayText(all, indent, open-start)}}, nil
	}
	return l.extendBlock(open, close, elems, items), nil
}

// extendBlock adds one line per item before the line of the closing "]",
// in the indentation of the existing elements, so that comments stay on
// their lines.
func (l *layout) extendBlock(open, close int, elems []place, items []string) []edit {
	closeStart, closeIndent := l.lineOf(close)
	indent := closeIndent + "  "
	needComma := false
	if len(elems) > 0 {
		if start, ind := l.lineOf(elems[0].start); start+len(ind) == elems[0].start {
			indent = ind
		}
		last := elems[len(elems)-1].end
		needComma = !strings.HasPrefix(strings.TrimLeft(l.src[last:close], " \t"), ",")
	}
	var b strings.Builder
	if closeStart+len(closeIndent) == close {
		var edits []edit
		if needComma {
			end := elems[len(elems)-1].end
			edits = append(edits, edit{end, end, ","})
		}
		for _, it := range items {
			b.WriteString(indent + it + "," + l.nl)
		}
		return append(edits, edit{closeStart, closeStart, b.String()})
	}
	// "]" shares its line with the last element: the new lines go between
	// them, and "]" moves to a line of its own, under its key.
	if needComma {
		b.WriteString(",")
	}
	for _, it := range items {
		b.WriteString(l.nl + indent + it + ",")
	}
	_, keyIndent := l.lineOf(open)
	b.WriteString(l.nl + keyIndent)
	return []edit{{close, close, b.String()}}
}

// addFeedsKey inserts a feeds line after the "name = ..." line of a user
// that has none.
func (l *layout) addFeedsKey(name place, items []string) ([]edit, error) {
	if !name.plain {
		return nil, errLayout
	}
	_, indent := l.lineOf(name.key)
	text := indent + "feeds = " + l.arrayText(items, indent, len(indent)+len("feeds = ")) + l.nl
	at := strings.IndexByte(l.src[name.end:], '\n') // a trailing comment stays with the name
	if at < 0 {
		return []edit{{len(l.src), len(l.src), l.nl + text}}, nil
	}
	at += name.end + 1
	return []edit{{at, at, text}}, nil
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

// itemText writes a subscription as an item of feeds: a URL, or an
// inline table when it has a title or a folder.
func itemText(s Subscription) string {
	if s.Title == "" && s.Folder == "" {
		return Quote(s.URL)
	}
	text := "{ url = " + Quote(s.URL)
	if s.Title != "" {
		text += ", title = " + Quote(s.Title)
	}
	if s.Folder != "" {
		text += ", folder = " + Quote(s.Folder)
	}
	return text + " }"
}

// Quote writes s as a TOML basic string, for config text we write
// (import, init). strconv.Quote would not do: its \x escapes are not
// TOML 1.0.
func Quote(s string) string {
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
	// A failure only weakens the rename's durability: not reported.
	_ = SyncDir(filepath.Dir(path))
	return nil
}

// SyncDir makes a rename into dir durable: renameio (and os.Rename)
// syncs the file, not the folder that names it. The config's and the
// SQLite state's files are both written so.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
