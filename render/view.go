package render

import (
	"fmt"
	"html/template"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/redact"
	"feeddigest/locale"
)

// Time layouts of the status page, the operator's, which speaks English
// and UTC; a digest's dates are worded in its reader's language
// (locale.DateForm). Machines get RFC 3339 in the datetime attribute.
const (
	statusLayout     = "2006-01-02 15:04 UTC"
	nextDigestLayout = "Mon 2 Jan 2006, 15:04 MST"
	dateLayout       = "2006-01-02"
)

// timeView is a time as shown (Label) and as machine-readable (ISO). Both
// are empty for the zero time.
type timeView struct {
	ISO   string
	Label string
}

// showTime is t in loc as the reader's language writes it in form.
func showTime(l *locale.Locale, t time.Time, loc *time.Location, form locale.DateForm) timeView {
	if t.IsZero() {
		return timeView{}
	}
	t = t.In(loc)
	return timeView{ISO: t.Format(time.RFC3339), Label: l.Date(t, form)}
}

// showLayout is t in loc by a Go layout: the status page's times.
func showLayout(t time.Time, loc *time.Location, layout string) timeView {
	if t.IsZero() {
		return timeView{}
	}
	t = t.In(loc)
	return timeView{ISO: t.Format(time.RFC3339), Label: t.Format(layout)}
}

// digestView is a Digest prepared for the templates: every string in it is
// plain text except Intro and entry Content, which are trusted HTML.
type digestView struct {
	// L is the reader's language, in which the view's words are worded
	// and its templates run.
	L                 *locale.Locale
	User, Date, Title string
	Day               time.Time
	Intro             template.HTML
	IntroText         string
	Notices           []noticeView
	Problems          []problemView
	ProblemCount      string // "2 feeds"
	// AtomSummary is the line atop the digest's Atom entry: "4 entries,
	// 1 feed change, 1 feed could not be read."
	AtomSummary string
	// Weekly says the digest is a weekly user's: its words fit a week.
	Weekly bool
	// Failing says a feed could not be read, named in this digest or
	// not (see domain.Problem.Quiet): the day is never called quiet.
	Failing bool
	LeftOut string // "4 left out by your rules"; "" when rules left none out
	// LeftOutList is what the page lists of those, linked titles, and
	// LeftOutMore how many it does not list.
	LeftOutList []titleView
	LeftOutMore int
	MailInDoubt dateLink // the previous digest, when its email may not have arrived
	Groups      []groupView
	Links       []HostCount
	Count       int    // entries in the digest, listed or not
	Total       string // "12 new entries from 5 feeds"
	Built       timeView
	Zone        string
	Prev, Next  dateLink
	// Email only. Preheader is the hidden line mail clients show after
	// the subject: the first headlines.
	Subject, WebURL, Preheader string
	Footer                     emailFooter
	// MailInDoubtURL is the page of MailInDoubt at site_url, "" without.
	MailInDoubtURL string
	// Kept and Omitted: an email too large to send (package mail bounds
	// it) lists the first Kept entries and says that Omitted more are on
	// the page.
	Kept, Omitted int
	// streamed gathers what the feeds' sections read from FeedGroup.Listed
	// as the page is written; nil when every group's entries were given.
	streamed *streamSink
}

// streamSink is what the sections of a page written from
// FeedGroup.Listed leave behind: their entries' links, for the links
// mentioned at the end, and the first error in reading them.
type streamSink struct {
	sources []linkSource
	err     error
}

// PageLinks are the links mentioned, as the page shows them at its end:
// of the entries read as the page was written when it was streamed.
func (v *digestView) PageLinks() []HostCount {
	if v.streamed != nil {
		return linkGraph(v.streamed.sources)
	}
	return v.Links
}

// streamErr is the first error in reading a streamed page's entries.
func (v *digestView) streamErr() error {
	if v.streamed != nil {
		return v.streamed.err
	}
	return nil
}

// dateLink is another digest's page: its date, and the date in words.
type dateLink struct{ Date, Label string }

func newDateLink(ref DigestRef) dateLink {
	if ref.Date == "" {
		return dateLink{}
	}
	if _, err := time.Parse(dateLayout, ref.Date); err != nil {
		return dateLink{} // no page to link
	}
	return dateLink{Date: ref.Date, Label: ref.label()}
}

type groupView struct {
	ID            string // the section's id, which the table of contents links
	Folder        string
	Name, SiteURL string
	SiteHost      string      // the link text of SiteURL
	Entries       []entryView // shown in full (see FeedGroup.Full)
	// Titles are the entries listed after those shown in full: a compact
	// list of linked titles with their times.
	Titles []titleView
	More   int    // entries not listed (see FeedGroup.More)
	Count  string // what the section lists: "3 entries", "50 of 100 entries"
	// Older says how many older entries the feed's first digest left out
	// (see FeedGroup.Older); "" for none.
	Older string
	// TextRule underlines the feed's name in plain text: "-" below a
	// folder's "=", and "=" for a feed outside the folders of a digest
	// that has some, which is a section of its own as a folder is.
	TextRule string
	Unread   int // see FeedGroup.Unread
	// listed makes the entries one at a time from FeedGroup.Listed, as
	// the page is written; nil when Entries are made.
	listed *entryStream
}

// Listing is the entries the page shows: Entries, or those of
// FeedGroup.Listed made one at a time as the page is written.
func (g groupView) Listing() iter.Seq[entryView] {
	if g.listed == nil {
		return slices.Values(g.Entries)
	}
	return g.listed.entries
}

// entryStream makes a feed's entry views from FeedGroup.Listed.
type entryStream struct {
	l      *locale.Locale
	group  FeedGroup
	name   string
	nested bool
	full   int // how many entries show in full: the stream stops there
	loc    *time.Location
	sink   *streamSink
}

func (s *entryStream) entries(yield func(entryView) bool) {
	n := 0
	for e, err := range s.group.Shown() {
		if err != nil {
			if s.sink.err == nil {
				s.sink.err = fmt.Errorf("render: entries of %s: %w", s.group.FeedURL, err)
			}
			return
		}
		if n == s.full {
			return // the rest are Titles, made from the group's Entries
		}
		n++
		ev, links := newEntryView(s.l, e, s.group, s.name, s.nested, s.loc)
		s.sink.sources = append(s.sink.sources, linkSource{title: ev.Title, links: links, own: []string{ev.URL, s.group.FeedURL, s.group.SiteURL}})
		if !yield(ev) {
			return
		}
	}
}

// Nested says the feed's section sits under a folder heading, so its
// headings are a level deeper.
func (g groupView) Nested() bool { return g.Folder != "" }

// folderView is a run of feeds under one folder heading; the feeds
// without a folder make one run without a heading.
type folderView struct {
	Name   string
	Groups []groupView
}

// Folders splits the digest's feeds, which newDigestView put in folder
// order, into their folders.
func (v *digestView) Folders() []folderView {
	var out []folderView
	for _, g := range v.Groups {
		if n := len(out); n == 0 || out[n-1].Name != g.Folder {
			out = append(out, folderView{Name: g.Folder})
		}
		out[len(out)-1].Groups = append(out[len(out)-1].Groups, g)
	}
	return out
}

type entryView struct {
	linked                       *linkedExcerpt // TextExcerpt, once made
	Nested                       bool           // under a folder heading: see groupView.Nested
	Lang                         string         // of the feed's texts, "" when unknown
	Title, URL, FeedName, Author string
	// Dir is the direction of an entry whose title (else text) reads
	// the other way than the page ("rtl" on an English page, "ltr" on an
	// Arabic one), "" when it reads as the page does: its meta line, our
	// words around the feed's, aligns with it, and our words keep the
	// page's direction within it.
	Dir string
	// Whole says the excerpt is the entry's whole text: the page shows the
	// content in its place, and no "Read it all" repeats it.
	Whole bool
	// Complete says an untitled entry's display title and excerpt show
	// all of its text: nothing is left to open.
	Complete  bool
	Time      timeView
	FirstSeen bool
	timeText  string
	// ReadingTime is "7 min read" for a long entry, "" for a short one.
	ReadingTime string
	MetaText    string // author, time and reading time, for plain text
	Excerpt     string
	Content     template.HTML
	// Enclosures are the files the entry carries (a podcast's audio),
	// each a link that says what it is.
	Enclosures []enclosureView
	// AlsoIn names the other feeds that carry the same story: "Feed B,
	// Feed C" (see MergeStories); "" for none.
	AlsoIn string
}

// TimeText is the entry's time as the meta line of the email shows it
// (see timeText).
func (ev entryView) TimeText() string { return ev.timeText }

// TextExcerpt is the excerpt as the plain-text email shows it: the links
// whose text it shows marked by number and listed (see ingest.LinkExcerpt).
// It parses the entry's HTML, so it is made once however many versions
// of the email list the entry (mail.ComposeDigest tries a few to find
// the largest that fits).
func (ev entryView) TextExcerpt() ingest.LinkedExcerpt {
	link := func() ingest.LinkedExcerpt {
		return ingest.LinkExcerpt(string(ev.Content), ev.Excerpt, ev.Title, ev.URL)
	}
	if ev.linked == nil {
		return link()
	}
	ev.linked.once.Do(func() { ev.linked.excerpt = link() })
	return ev.linked.excerpt
}

// linkedExcerpt is an entry's TextExcerpt, made on first use.
type linkedExcerpt struct {
	once    sync.Once
	excerpt ingest.LinkedExcerpt
}

// problemView is a feed that could not be read: the sentence in plain
// text, and its parts for HTML, whose slots are Feed, Since and Until.
type problemView struct {
	FeedName     string
	Since, Until timeView
	Parts        []locale.Part
	Text         string // the whole line, for plain text
	// Again says the problem was named before and goes on: the short
	// line "still failing since ...: reason", not in the Subject.
	Again bool
}

// noticeView is a feed that changed for good: the sentence in plain
// text, and its parts for HTML, whose slot Feed is the feed's name.
type noticeView struct {
	FeedName, NewURL, Detail string
	Parts                    []locale.Part
	Text                     string
}

// digestTitle heads a digest's page and its Atom entry, and names it in
// the index: a daily digest by its day, a weekly one by the days it
// covers (see daysCovered).
func digestTitle(d Digest, day time.Time) string {
	return d.Lang.T("digest.title", "Day", DigestRef{Date: d.Date, Weekly: d.Weekly, Since: d.Since, BuiltAt: d.BuiltAt, Location: d.Location, Lang: d.Lang}.labelOf(day))
}

// newDigestView sanitises and shapes a digest once, so the page, the index
// and the email all show the same thing.
func newDigestView(d Digest) (*digestView, error) {
	day, err := time.Parse(dateLayout, d.Date)
	if err != nil {
		return nil, fmt.Errorf("render: digest of %q: bad date %q: %w", d.User, d.Date, err)
	}
	loc, l := zone(d), d.Lang
	v := &digestView{
		L:    l,
		User: d.User, Date: d.Date, Day: day,
		Title: digestTitle(d, day),
		// Trusted: rendered by us from the config's Markdown. Its headings
		// go below the page's h1, beside the feeds' h2.
		Intro:       template.HTML(ingest.ShiftFragmentHeadings(d.IntroHTML, 2)),
		IntroText:   ingest.PlainText(d.IntroHTML),
		Built:       showTime(l, d.BuiltAt, loc, locale.DateTime),
		Zone:        loc.String(),
		Prev:        newDateLink(d.Prev.in(l)),
		Next:        newDateLink(d.Next.in(l)),
		MailInDoubt: newDateLink(DigestRef{Date: d.MailInDoubt, Lang: l}),
	}
	var sources []linkSource
	for i, g := range inFolderOrder(d.Groups) {
		gv, src := newGroupView(l, g, loc)
		if g.Listed != nil {
			if v.streamed == nil {
				v.streamed = &streamSink{}
			}
			gv.listed = &entryStream{l: l, group: g, name: gv.Name, nested: gv.Nested(), full: shownInFull(g), loc: loc, sink: v.streamed}
		}
		gv.ID = fmt.Sprintf("feed-%d", i+1)
		v.Groups = append(v.Groups, gv)
		v.Count += len(g.Entries) + g.Unread + gv.More
		sources = append(sources, src...)
	}
	markTopLevel(v.Groups)
	v.Total = l.T("digest.contents_total", "Entries", l.T("count.new_entries", "Count", v.Count), "FromFeeds", l.T("count.from_feeds", "Count", len(v.Groups)))
	v.Links = linkGraph(sources)
	if d.Links != nil {
		v.Links = d.Links
	}
	v.Notices, v.Problems, v.ProblemCount = noticesAndProblems(d, loc)
	v.Failing = len(d.Problems) > 0
	v.Weekly = d.Weekly
	if d.LeftOut > 0 {
		v.LeftOut = l.T("left_out.count", "Count", d.LeftOut)
		v.LeftOutList, v.LeftOutMore = leftOutViews(d)
	}
	return v, nil
}

// noticesAndProblems shapes the digest's notices and its feeds that
// could not be read. A feed gone or dead is told of once, under "Could not
// read", not again among the feed changes.
func noticesAndProblems(d Digest, loc *time.Location) ([]noticeView, []problemView, string) {
	l := d.Lang
	final := map[string]bool{}
	var problems []problemView
	for _, p := range d.Problems {
		if p.Quiet {
			continue // named lately: not again
		}
		problems = append(problems, newProblemView(l, p, loc))
		if p.State == domain.ProblemGone || p.State == domain.ProblemDead {
			final[p.FeedURL] = true
		}
	}
	var notices []noticeView
	for _, n := range d.Notices {
		if (n.Kind == domain.NoticeGone || n.Kind == domain.NoticeDead) && final[n.FeedURL] {
			continue
		}
		notices = append(notices, newNoticeView(l, n))
	}
	return notices, problems, l.T("count.feeds", "Count", len(problems))
}

// problemNotes say what becomes of a feed in each state (message ids).
var problemNotes = map[domain.ProblemState]string{
	domain.ProblemGone: "problem.note_gone",
	domain.ProblemDead: "problem.note_dead",
}

// The slots of a problem's line, which the page fills with markup.
var problemSlots = []string{"Feed", "Since", "Until"}

func newProblemView(l *locale.Locale, p Problem, loc *time.Location) problemView {
	v := problemView{
		FeedName: feedName(p.FeedName, p.FeedURL),
		Since:    showTime(l, p.Since, loc, locale.ShortDate),
		Again:    p.Again,
	}
	args := []any{"Feed", locale.Mark(0), "Reason", reasonText(l, p.Code, p.Reason, loc), "Since", locale.Mark(1)}
	var line string
	switch {
	case p.Again && v.Since.Label != "":
		line = l.T("problem.again", args...)
	case p.Again:
		line = l.T("problem.again_undated", args...)
	case p.State == domain.ProblemRecovered && !p.Until.IsZero():
		v.Until = showTime(l, p.Until, loc, locale.ShortDate)
		args = append(args, "Until", locale.Mark(2))
		if v.Since.Label != "" {
			line = l.T("problem.line_recovered", args...)
		} else {
			line = l.T("problem.line_recovered_undated", args...)
		}
	case v.Since.Label != "":
		line = l.T("problem.line_since", args...)
	default:
		line = l.T("problem.line", args...)
	}
	if note, ok := problemNotes[p.State]; ok && !p.Again {
		line = l.T("problem.with_note", "Line", line, "Note", l.T(note))
	}
	v.Parts = locale.Split(l.T("text.sentence", "Text", line), problemSlots)
	v.Text = locale.Join(v.Parts, func(slot string) string {
		switch slot {
		case "Feed":
			return v.FeedName
		case "Since":
			return v.Since.Label
		}
		return v.Until.Label
	})
	return v
}

// markTopLevel sets the plain-text rule of each feed (see TextRule).
func markTopLevel(groups []groupView) {
	folders := slices.ContainsFunc(groups, groupView.Nested)
	for i := range groups {
		groups[i].TextRule = "-"
		if folders && !groups[i].Nested() {
			groups[i].TextRule = "="
		}
	}
}

// InFolderOrder is groups in the order a digest shows them (see
// FeedGroup.Folder), a new slice.
func InFolderOrder(groups []FeedGroup) []FeedGroup { return inFolderOrder(groups) }

// inFolderOrder is groups with the feeds of each folder together: folders
// in the order of their first feed, the feeds without a folder as one
// more folder, and feeds in their order within a folder.
func inFolderOrder(groups []FeedGroup) []FeedGroup {
	var folders []string
	byFolder := map[string][]FeedGroup{}
	for _, g := range groups {
		if _, seen := byFolder[g.Folder]; !seen {
			folders = append(folders, g.Folder)
		}
		byFolder[g.Folder] = append(byFolder[g.Folder], g)
	}
	out := make([]FeedGroup, 0, len(groups))
	for _, f := range folders {
		out = append(out, byFolder[f]...)
	}
	return out
}

// entryContentHeading is the first heading level inside an entry's
// content: below the entry's own h3, or h4 under a folder.
func entryContentHeading(nested bool) int {
	if nested {
		return 5
	}
	return 4
}

// zone is where the digest's reader lives; UTC when unknown.
func zone(d Digest) *time.Location {
	if d.Location == nil {
		return time.UTC
	}
	return d.Location
}

// newGroupView also returns the link sources of its entries, so the link
// graph reuses the sanitised content instead of sanitising twice.
func newGroupView(l *locale.Locale, g FeedGroup, loc *time.Location) (groupView, []linkSource) {
	gv := groupView{Folder: ingest.ShortName(g.Folder), Name: feedName(g.FeedName, g.FeedURL), SiteURL: safeLink(g.SiteURL), More: max(g.More, 0)}
	gv.SiteHost = hostOf(gv.SiteURL)
	gv.Count = sectionCount(l, len(g.Entries)+g.Unread, gv.More)
	gv.Unread = g.Unread
	gv.Older = olderNote(l, g.Older)
	full := shownInFull(g)
	for _, e := range g.Entries[full:] {
		gv.Titles = append(gv.Titles, newTitleView(l, e, g, loc))
	}
	var src []linkSource
	if g.Listed != nil {
		return gv, nil // made as the page is written: see entryStream
	}
	for _, e := range g.Entries[:full] {
		ev, links := newEntryView(l, e, g, gv.Name, gv.Nested(), loc)
		gv.Entries = append(gv.Entries, ev)
		src = append(src, linkSource{
			title: ev.Title,
			links: links,
			own:   []string{ev.URL, g.FeedURL, g.SiteURL},
		})
	}
	return gv, src
}

// shownInFull is how many of g's Entries show in full (see
// FeedGroup.Full).
func shownInFull(g FeedGroup) int {
	if g.Full <= 0 {
		return len(g.Entries)
	}
	return min(g.Full, len(g.Entries))
}

// sectionCount says what a feed's section lists, and when the digest
// holds more of the feed than it lists, of how many: "50 of 100
// entries".
func sectionCount(l *locale.Locale, listed, more int) string {
	if more <= 0 {
		return l.T("count.entries", "Count", listed)
	}
	return l.T("count.entries_of", "Listed", listed, "Count", listed+more)
}

// olderNote tells the reader of a feed's first digest how many older
// entries it left out; "" for none.
func olderNote(l *locale.Locale, older int) string {
	if older <= 0 {
		return ""
	}
	return l.T("feed.older", "Count", older)
}

// titleView is an entry of a section's compact list: its title linked,
// and its time.
type titleView struct {
	Lang, Title, URL string
	Time             timeView
	FirstSeen        bool
	// Brief is the time as a compact list on the page shows it, without
	// the year: "20 Nov 17:16".
	Brief    string
	timeText string
}

// newTitleView shows e in a compact list: its display title alone, so
// that no text of it is sanitised (a digest read by its titles has none).
func newTitleView(l *locale.Locale, e domain.Entry, g FeedGroup, loc *time.Location) titleView {
	title := e.Fragments.Title
	if e.Fragments.Rules != ingest.FragmentRules {
		title = ingest.DisplayTitle(e)
	}
	title = titleIn(l, title)
	tv := titleView{Lang: g.Lang, Title: title, URL: ingest.EntryURL(g.FeedURL, e.Link)}
	tv.Time, tv.FirstSeen = entryTime(l, e, loc)
	tv.timeText = timeText(l, tv.Time, tv.FirstSeen)
	if t := e.Published; !t.IsZero() || !e.FirstSeen.IsZero() {
		if t.IsZero() {
			t = e.FirstSeen
		}
		tv.Brief = l.Date(t.In(loc), locale.BriefTime)
	}
	return tv
}

// TimeText is the compact entry's time for plain text (see timeText).
func (tv titleView) TimeText() string { return tv.timeText }

// entryTime is the time an entry is shown with: its date, else, for an
// undated one (firstSeen), when it was first seen.
func entryTime(l *locale.Locale, e domain.Entry, loc *time.Location) (t timeView, firstSeen bool) {
	when := e.Published
	if when.IsZero() {
		when, firstSeen = e.FirstSeen, true
	}
	return showTime(l, when, loc, locale.DateTime), firstSeen
}

// timeText is an entry's time for plain text: "first seen" before the
// time of an undated entry.
func timeText(l *locale.Locale, t timeView, firstSeen bool) string {
	if firstSeen && t.Label != "" {
		return l.T("entry.first_seen", "Time", t.Label)
	}
	return t.Label
}

// newEntryView shows e from its fragments (see ingest.MakeFragments), and
// returns the links in its content.
func newEntryView(l *locale.Locale, e domain.Entry, g FeedGroup, name string, nested bool, loc *time.Location) (entryView, []string) {
	f := ingest.FragmentsOf(g.FeedURL, e)
	ev := entryView{
		linked:   &linkedExcerpt{},
		Nested:   nested,
		Title:    titleIn(l, f.Title),
		URL:      ingest.EntryURL(g.FeedURL, e.Link),
		FeedName: name,
		Author:   ingest.ShortName(e.Author),
		Excerpt:  f.Excerpt,
		// Trusted: sanitised when the fragment was made.
		Content: template.HTML(contentIn(l, ingest.ContentAt(f.HTML, entryContentHeading(nested)))),
		Lang:    g.Lang,
		// The files' labels are ours (their kind, time and size), in
		// the reader's language like the rest of the page: no lang of
		// the feed's.
		Enclosures: newEnclosureViews(l, e.Enclosures),
		AlsoIn:     strings.Join(g.AlsoIn[e.ID], l.T("text.list_separator")),
	}
	// An untitled entry's Whole says its title and excerpt show it all
	// (see ingest.MakeFragments); a titled one's, that the excerpt does.
	if ingest.PlainText(e.Title) == "" {
		ev.Complete = f.Whole
	} else {
		ev.Whole = f.Whole
	}
	ev.Time, ev.FirstSeen = entryTime(l, e, loc)
	ev.timeText = timeText(l, ev.Time, ev.FirstSeen)
	ev.ReadingTime = readingTime(l, f.Words)
	ev.MetaText = metaText(ev)
	ev.Dir = entryDirection(ev.Title, ev.Excerpt, l.Dir())
	return ev, f.Links
}

// metaText is the "by whom, when" line of the plain-text email (the
// feed's name is the heading of the entry's section).
func metaText(ev entryView) string {
	var parts []string
	if ev.Author != "" {
		parts = append(parts, ev.Author)
	}
	if ev.Time.Label != "" {
		parts = append(parts, ev.timeText)
	}
	if ev.ReadingTime != "" {
		parts = append(parts, ev.ReadingTime)
	}
	return strings.Join(parts, " · ")
}

// noticeTexts say, for each kind of notice, what became of the feed
// (message ids); a NewURL follows the text when there is one.
var noticeTexts = map[domain.NoticeKind]string{
	domain.NoticeGone:   "notice.gone",
	domain.NoticeMoved:  "notice.moved",
	domain.NoticeDead:   "notice.dead",
	domain.NoticeOrigin: "notice.origin",
}

func newNoticeView(l *locale.Locale, n Notice) noticeView {
	id, ok := noticeTexts[n.Kind]
	if !ok {
		id = "notice.changed"
	}
	v := noticeView{
		FeedName: feedName(n.FeedName, n.FeedURL),
		NewURL:   safeLink(redact.URL(n.NewURL)),
		Detail:   noticeDetail(l, n.Notice),
		Parts:    l.Parts(id, []string{"Feed"}),
	}
	v.Text = locale.Join(v.Parts, func(string) string { return v.FeedName })
	return v
}

// lastErrorNote begins the detail an older version kept of a dead
// feed's notice, in words: the error that follows is the server's or the
// network's, kept as it was said.
const lastErrorNote = "last error: "

// noticeDetail words a notice's facts in the reader's language: a dead
// feed's last error, else the words an older version kept (Detail), as
// they are but for their "last error: ".
func noticeDetail(l *locale.Locale, n domain.Notice) string {
	lastError, detail := n.LastError, ""
	if lastError == "" {
		var old bool
		if lastError, old = strings.CutPrefix(n.Detail, lastErrorNote); !old {
			lastError, detail = "", n.Detail
		}
	}
	if lastError != "" {
		return l.T("notice.last_error", "Error", redact.Text(ingest.PlainText(lastError)))
	}
	return redact.Text(ingest.PlainText(detail))
}

// feedName is the feed's title as plain text, else its URL's host.
func feedName(name, feedURL string) string {
	if n := ingest.ShortName(name); n != "" {
		return n
	}
	if h := hostOf(feedURL); h != "" {
		return h
	}
	return redact.URL(feedURL)
}

// safeLink keeps only absolute http(s) URLs for our own links, without
// user information (see ingest.WithoutUserinfo).
func safeLink(s string) string {
	if u := domain.AbsoluteHTTP(s); u != nil {
		ingest.WithoutUserinfo(u)
		return u.String()
	}
	return ""
}

// siteFile is the absolute web address of a file in a user's folder of
// the site, or "" when no site URL is configured. siteURL names a folder
// even without its trailing slash.
func siteFile(siteURL, user, name string) string {
	base := domain.AbsoluteHTTP(siteURL)
	if base == nil {
		return ""
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	return base.JoinPath(user, name).String()
}

// leftOutViews are the entries a digest's rules left out as its page
// lists them (linked titles; an untitled one by its link), and how many
// more there were than the digest kept.
func leftOutViews(d Digest) ([]titleView, int) {
	var out []titleView
	for _, t := range d.LeftOutTitles {
		url := ingest.EntryURL(t.Feed, t.Link)
		title := ingest.ShortName(ingest.PlainText(t.Title))
		if title == "" {
			title = redact.URL(url)
		}
		if title == "" {
			continue
		}
		out = append(out, titleView{Title: title, URL: url})
	}
	return out, max(d.LeftOut-len(out), 0)
}
