package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/english"
	"feeddigest/locale"
)

// DigestPage renders SITE/<user>/<date>.html: one day's digest, grouped by
// feed, each entry with its excerpt and its full content folded away.
func DigestPage(d Digest) ([]byte, error) {
	var b bytes.Buffer
	_, err := WriteDigestPage(&b, d)
	return b.Bytes(), err
}

// PageBody says where a digest's body (everything the index shows of it)
// is in its written page, and what the index's head and foot say of it,
// so that the index copies the body from the page (WriteIndexPage)
// instead of rendering the digest a second time.
type PageBody struct {
	Offset, Length int64
	// Links are the links mentioned at the end of the body, which the
	// email shows too (Digest.Links).
	Links []HostCount
	head  *digestView // the digest's title, date, build time and zone
}

// WriteDigestPage writes the page of DigestPage to w as it is rendered,
// never whole in memory, and says where its body is.
func WriteDigestPage(w io.Writer, d Digest) (PageBody, error) {
	v, err := newDigestView(d)
	if err != nil {
		return PageBody{}, err
	}
	cw := &CountingWriter{W: w}
	pages := pagesIn(v.L)
	if err := pages.ExecuteTemplate(cw, "digest-top", v); err != nil {
		return PageBody{}, err
	}
	body := PageBody{Offset: cw.N, head: &digestView{L: v.L, User: v.User, Date: v.Date, Day: v.Day, Title: v.Title, Built: v.Built, Zone: v.Zone}}
	if err := pages.ExecuteTemplate(cw, "digest-body", v); err != nil {
		return PageBody{}, err
	}
	if err := v.streamErr(); err != nil {
		return PageBody{}, err
	}
	body.Links = v.PageLinks()
	body.Length = cw.N - body.Offset
	if err := pages.ExecuteTemplate(cw, "digest-bottom", v); err != nil {
		return PageBody{}, err
	}
	return body, nil
}

// ErrNoPager is returned by RelinkPage for a page that does not end with
// the pager it was told the page has (a page of an older version, or one
// changed since): render the digest again instead.
var ErrNoPager = errors.New("render: the page does not end with the expected pager")

// Pager is what a digest page links: the digests before and after it
// (Date "" for none), named as the archive names them, in the page's
// language Lang (nil: English).
type Pager struct {
	Prev, Next DigestRef
	Lang       *locale.Locale
}

// pageEnd is where a digest page's pager ends: what follows is the end of
// its main element and its footer, which says nothing a feed wrote.
const pageEnd = "</main>\n<footer>"

// relinkTail is how much of the end of a page RelinkPage reads to find the
// pager and footer, which take a few hundred bytes.
const relinkTail = 16 << 10

// RelinkPage copies page, a digest page of size bytes that
// WriteDigestPage wrote with the pager was, to w with the pager now in its
// place: every other byte stays as it was written, and the digest is not
// rendered again (so the page still says what it said when it was
// built). Nothing is written when the page does not end with was, or is
// in another language than now's: the error is then ErrNoPager.
func RelinkPage(w io.Writer, page io.ReaderAt, size int64, was, now Pager) error {
	if !inLanguage(page, now.Lang) {
		return ErrNoPager // written in another language: all of it is written again
	}
	oldPager, err := pagerHTML(was)
	if err != nil {
		return err
	}
	newPager, err := pagerHTML(now)
	if err != nil {
		return err
	}
	tailStart := max(size-relinkTail, 0)
	tail := make([]byte, size-tailStart)
	if _, err := page.ReadAt(tail, tailStart); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("render: read the end of the page: %w", err)
	}
	end := bytes.LastIndex(tail, []byte(pageEnd))
	if end < 0 || !bytes.HasSuffix(tail[:end], oldPager) {
		return ErrNoPager
	}
	pagerAt := tailStart + int64(end-len(oldPager))
	if _, err := io.Copy(w, io.NewSectionReader(page, 0, pagerAt)); err != nil {
		return err
	}
	if _, err := w.Write(newPager); err != nil {
		return err
	}
	_, err = w.Write(tail[end:])
	return err
}

// inLanguage says whether the page was written in l's language, as its
// <html lang> says at its start: a reader who changed language gets the
// page written again rather than a pager in one language on a page in
// another.
func inLanguage(page io.ReaderAt, l *locale.Locale) bool {
	head := make([]byte, 128)
	n, err := page.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	return bytes.Contains(head[:n], []byte(`<html lang="`+l.Tag()+`"`))
}

// pagerHTML is the pager of a digest page as WriteDigestPage writes it.
func pagerHTML(p Pager) ([]byte, error) {
	var b bytes.Buffer
	err := pagesIn(p.Lang).ExecuteTemplate(&b, "digest-pager", &digestView{L: p.Lang, Prev: newDateLink(p.Prev.in(p.Lang)), Next: newDateLink(p.Next.in(p.Lang))})
	return b.Bytes(), err
}

// CountingWriter counts the bytes written through it to W: a page's
// body is placed by its offset, and what is streamed into a file says
// how much it wrote (io.WriterTo).
type CountingWriter struct {
	W io.Writer
	N int64
}

func (c *CountingWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// WriteIndexPage writes IndexPage with newest the digest whose page
// (written by WriteDigestPage, which gave newest) is read from body: the
// index shows the same body, copied as it is.
func WriteIndexPage(w io.Writer, user string, newest PageBody, body io.Reader, archive []DigestRef) error {
	if newest.head == nil {
		return errors.New("render: index of " + user + ": no digest page written")
	}
	l := newest.head.L
	v := indexView{Title: newest.head.Title, User: user, Digest: newest.head, Archive: archiveItems(l, archive)}
	pages := pagesIn(l)
	if err := pages.ExecuteTemplate(w, "index-top", v); err != nil {
		return err
	}
	if n, err := io.Copy(w, io.LimitReader(body, newest.Length)); err != nil || n != newest.Length {
		return fmt.Errorf("render: index of %s: copy the digest's body: %d of %d bytes: %v", user, n, newest.Length, err)
	}
	return pages.ExecuteTemplate(w, "index-bottom", v)
}

// indexView is the data of SITE/<user>/index.html.
type indexView struct {
	Title, User string
	Digest      *digestView
	Archive     []archiveItem
}

// RecentDigests is how many digests the archive at the top of a user's
// index lists open; the older ones are folded away below them, so the
// newest digest still follows within a screen.
const RecentDigests = 7

// Recent are the archive's newest digests, listed open.
func (v indexView) Recent() []archiveItem { return v.Archive[:min(len(v.Archive), RecentDigests)] }

// Older are the archive's other digests, folded away.
func (v indexView) Older() []archiveItem { return v.Archive[min(len(v.Archive), RecentDigests):] }

type archiveItem struct {
	Date, Label string
	Entries     int
}

// IndexPage renders SITE/<user>/index.html in the user's language l:
// the newest digest (nil when there is none yet) followed by the
// archive, newest first.
func IndexPage(user string, l *locale.Locale, newest *Digest, archive []DigestRef) ([]byte, error) {
	var b bytes.Buffer
	err := WriteIndex(&b, user, l, newest, archive)
	return b.Bytes(), err
}

// WriteIndex writes the page of IndexPage to w as it is rendered. When the
// newest digest's page was just written, WriteIndexPage copies its body
// instead.
func WriteIndex(w io.Writer, user string, l *locale.Locale, newest *Digest, archive []DigestRef) error {
	v := indexView{Title: l.T("digest.user_digests", "User", user), User: user, Archive: archiveItems(l, archive)}
	if newest != nil {
		d := *newest
		d.Lang = l
		dv, err := newDigestView(d)
		if err != nil {
			return err
		}
		v.Digest, v.Title = dv, dv.Title
	}
	if err := pagesIn(l).ExecuteTemplate(w, "index.html", v); err != nil {
		return err
	}
	if v.Digest != nil {
		return v.Digest.streamErr()
	}
	return nil
}

func archiveItems(l *locale.Locale, refs []DigestRef) []archiveItem {
	refs = append([]DigestRef(nil), refs...)
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].Date > refs[j].Date })
	items := make([]archiveItem, 0, len(refs))
	for _, r := range refs {
		items = append(items, archiveItem{Date: r.Date, Label: r.in(l).label(), Entries: r.Entries})
	}
	return items
}

// in is r named in l's language: a page names its neighbours in its own.
func (r DigestRef) in(l *locale.Locale) DigestRef {
	r.Lang = l
	return r
}

// label names a digest as its page's title does: a daily one by its day,
// a weekly one by the days it covers.
func (r DigestRef) label() string {
	day, err := time.Parse(dateLayout, r.Date)
	if err != nil {
		return r.Date
	}
	return r.labelOf(day)
}

// labelOf is label of the digest of day.
func (r DigestRef) labelOf(day time.Time) string {
	if r.Weekly {
		return daysCovered(day, r.Since, r.BuiltAt, r.Location).label(r.Lang)
	}
	return r.Lang.Date(day, locale.FullDate)
}

// statusView is the data of SITE/status.html.
type statusView struct {
	Summary   string
	Generated timeView
	Users     []string
	Digests   []digestRow
	Rows      []statusRow
	Mail      []mailLine
}

// mailLine is one user's line about mail that did not go out.
type mailLine struct{ User, Text string }

// digestRow is a user's rhythm and next digest, in their own time.
type digestRow struct {
	Name, Rhythm string
	Next         timeView
}

type statusRow struct {
	URL, EffectiveURL, Title string
	Subscribers              []string
	LastPoll, NextPoll       timeView
	LastStatus, LastError    string
	Server                   string
	Reason                   string
	State                    domain.FeedState
	ErrorCount, Entries      int
}

// StatusPage renders SITE/status.html: the health of every feed as of
// the time asOf, the same facts as the status command, times in UTC, and
// a line per user whose mail did not go out, and each user's rhythm and
// next digest in the user's own time. A next poll that is not after asOf
// reads "due".
func StatusPage(feeds []FeedStatus, digests []UserStatus, asOf time.Time, mail ...MailStatus) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteStatusPage(&buf, feeds, digests, asOf, mail...); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteStatusPage writes the page StatusPage makes to w as it is made:
// the page of a state of thousands of feeds is megabytes, written out
// rather than held.
func WriteStatusPage(w io.Writer, feeds []FeedStatus, digests []UserStatus, asOf time.Time, mail ...MailStatus) error {
	v := newStatusView(feeds, digests, asOf, mail)
	if err := pageTemplates().ExecuteTemplate(w, "status-top", v); err != nil {
		return err
	}
	if err := writeStatusRows(w, v.Rows, statusChunk, max(1, min(4, runtime.GOMAXPROCS(0)))); err != nil {
		return err
	}
	return pageTemplates().ExecuteTemplate(w, "status-bottom", v)
}

func newStatusView(feeds []FeedStatus, digests []UserStatus, asOf time.Time, mail []MailStatus) statusView {
	v := statusView{
		Summary:   StatusSummary(feeds),
		Generated: showLayout(asOf, time.UTC, statusLayout),
	}
	for _, m := range mail {
		v.Mail = append(v.Mail, mailLine{User: m.User, Text: m.Text(asOf)})
	}
	for _, u := range digests {
		v.Digests = append(v.Digests, digestRow{Name: u.Name, Rhythm: u.Rhythm, Next: nextDigest(u)})
	}
	users := map[string]bool{}
	for _, f := range feeds {
		v.Rows = append(v.Rows, newStatusRow(f, asOf))
		for _, u := range f.Subscribers {
			users[u] = true
		}
	}
	for u := range users {
		v.Users = append(v.Users, u)
	}
	sort.Strings(v.Users)
	return v
}

// statusRowBytes is about the size of a row of the feed table.
const statusRowBytes = 768

// statusChunk is how many rows of the feed table a goroutine renders at a
// time: about 150 KB of the page.
const statusChunk = 256

// writeStatusRows writes the rows of the feed table, the bulk of a page
// of thousands of feeds (14 MB at 20,000), chunk rows at a time made by
// up to workers goroutines (see appendStatusRow) and written in order: at
// the end of a shared pass the page is all that is left to do, and the
// other cores are idle. At most 2*workers chunks are held.
func writeStatusRows(w io.Writer, rows []statusRow, chunk, workers int) error {
	if workers <= 1 || len(rows) <= chunk {
		_, err := w.Write(appendStatusRows(nil, rows))
		return err
	}
	type part struct {
		buf  bytes.Buffer
		err  error
		done chan struct{}
	}
	parts := make(chan *part, workers) // in the page's order
	busy := make(chan struct{}, workers)
	var failed atomic.Bool // the writer failed: render no more
	go func() {
		defer close(parts)
		for start := 0; start < len(rows) && !failed.Load(); start += chunk {
			p := &part{done: make(chan struct{})}
			busy <- struct{}{}
			go func(rows []statusRow) {
				defer func() { <-busy }()
				defer close(p.done)
				p.buf = *bytes.NewBuffer(appendStatusRows(make([]byte, 0, len(rows)*statusRowBytes), rows))
			}(rows[start:min(start+chunk, len(rows))])
			parts <- p
		}
	}()
	var err error
	for p := range parts {
		<-p.done
		if err == nil {
			err = p.err
		}
		if err == nil {
			_, err = p.buf.WriteTo(w)
		}
		if err != nil {
			failed.Store(true)
		}
	}
	return err
}

// NextDigestLabel says when a user's next digest comes: "due" when the
// current one is not built yet, else the local time with its zone, e.g.
// "Mon 30 Nov 2026, 06:00 GMT".
func NextDigestLabel(u UserStatus) string { return nextDigest(u).Label }

func nextDigest(u UserStatus) timeView {
	if u.Due || u.NextDigest.IsZero() {
		return timeView{Label: "due"}
	}
	loc := u.Location
	if loc == nil {
		loc = time.UTC
	}
	return showLayout(u.NextDigest, loc, nextDigestLayout)
}

func newStatusRow(f FeedStatus, asOf time.Time) statusRow {
	r := statusRow{
		URL: f.URL, EffectiveURL: f.EffectiveURL, Title: ingest.PlainText(f.Title),
		Subscribers: f.Subscribers,
		LastPoll:    showLayout(f.LastPoll, time.UTC, statusLayout),
		NextPoll:    showLayout(f.NextPoll, time.UTC, statusLayout),
		LastError:   f.LastError, Reason: f.Reason, Server: f.Server,
		State: f.State, ErrorCount: f.ErrorCount, Entries: f.Entries,
		LastStatus: "none",
	}
	if r.LastPoll.Label == "" {
		r.LastPoll.Label = "never"
	}
	switch {
	case f.State.Stopped():
		r.NextPoll = timeView{Label: "never"}
	case r.NextPoll.Label == "":
		r.NextPoll.Label = "when a subscriber is due"
	case !f.NextPoll.After(asOf):
		r.NextPoll = timeView{Label: "due"}
	}
	if f.LastStatus != 0 {
		r.LastStatus = fmt.Sprint(f.LastStatus)
	} else if f.LastError != "" {
		r.LastStatus = "no answer"
	}
	return r
}

// StatusSummary counts feeds by state: "5 feeds: 3 ok, 1 failing, 1 gone."
func StatusSummary(feeds []FeedStatus) string {
	if len(feeds) == 0 {
		return "No feeds yet."
	}
	counts := map[string]int{}
	var states []string
	for _, f := range feeds {
		s := string(f.State)
		if s == "" {
			s = "unknown"
		}
		if counts[s] == 0 {
			states = append(states, s)
		}
		counts[s]++
	}
	sort.Strings(states)
	parts := make([]string, len(states))
	for i, s := range states {
		parts[i] = fmt.Sprintf("%d %s", counts[s], s)
	}
	return fmt.Sprintf("%s: %s.", english.Count(len(feeds), "feed"), strings.Join(parts, ", "))
}
