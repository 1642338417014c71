package render

import (
	"fmt"
	"html/template"
	"iter"
	"slices"
	"strings"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/english"
	"feeddigest/internal/redact"
)

// Time layouts: people read dates in words; machines get RFC 3339 in the
// datetime attribute.
const (
	dayLayout        = "Monday 2 January 2006"
	subjectDayLayout = "Monday 2 January"
	entryLayout      = "2 Jan 2006, 15:04"
	briefLayout      = "2 Jan 15:04"
	statusLayout     = "2006-01-02 15:04 UTC"
	nextDigestLayout = "Mon 2 Jan 2006, 15:04 MST"
	dateLayout       = "2006-01-02"
	problemLayout    = "Mon 2 Jan 2006"
)

// timeView is a time as shown (Label) and as machine-readable (ISO). Both
// are empty for the zero time.
type timeView struct {
	ISO   string
	Label string
}

func showTime(t time.Time, loc *time.Location, layout string) timeView {
	if t.IsZero() {
		return timeView{}
	}
	t = t.In(loc)
	return timeView{ISO: t.Format(time.RFC3339), Label: t.Format(layout)}
}

// digestView is a Digest prepared for the templates: every string in it is
// plain text except Intro and entry Content, which are trusted HTML.
type digestView struct {
	User, Date, Title string
	Day               time.Time
	Intro             template.HTML
	IntroText         string
	Notices           []noticeView
	Problems          []problemView
	ProblemCount      string // "2 feeds"
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
		ev, links := newEntryView(e, s.group, s.name, s.nested, s.loc)
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
	Nested                       bool   // under a folder heading: see groupView.Nested
	Lang                         string // of the feed's texts, "" when unknown
	Title, URL, FeedName, Author string
	// Dir is "rtl" for an entry whose title (else text) reads right to
	// left: its meta line, our words around the feed's, aligns with it.
	Dir string
	// Whole says the excerpt is the entry's whole text: the page shows the
	// content in its place, and no "Read it all" repeats it.
	Whole bool
	// Complete says an untitled entry's display title and excerpt show
	// all of its text: nothing is left to open.
	Complete  bool
	Time      timeView
	FirstSeen bool
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

// TextExcerpt is the excerpt as the plain-text email shows it: the links
// whose text it shows marked by number and listed (see ingest.LinkExcerpt).
func (ev entryView) TextExcerpt() ingest.LinkedExcerpt {
	return ingest.LinkExcerpt(string(ev.Content), ev.Excerpt, ev.Title, ev.URL)
}

// problemView is a feed that could not be read: the sentence in plain
// text, and its parts for HTML.
type problemView struct {
	FeedName, Reason string
	SinceWord        string // "since", or "from" for a feed read again since
	Since, Until     timeView
	Note             string // what follows for the feed, when anything does
	Text             string // the whole line, for plain text
	// Again says the problem was named before and goes on: the short
	// line "still failing since ...: reason", not in the Subject.
	Again bool
}

type noticeView struct {
	FeedName, Text, NewURL, Detail string
}

// digestTitle heads a digest's page and its Atom entry, and names it in
// the index: a daily digest by its day, a weekly one by the days it
// covers (see daysCovered).
func digestTitle(d Digest, day time.Time) string {
	if d.Weekly {
		return "Digest for " + daysCovered(day, d.Since, d.BuiltAt, zone(d)).label()
	}
	return "Digest for " + day.Format(dayLayout)
}

// newDigestView sanitises and shapes a digest once, so the page, the index
// and the email all show the same thing.
func newDigestView(d Digest) (*digestView, error) {
	day, err := time.Parse(dateLayout, d.Date)
	if err != nil {
		return nil, fmt.Errorf("render: digest of %q: bad date %q: %w", d.User, d.Date, err)
	}
	loc := zone(d)
	v := &digestView{
		User: d.User, Date: d.Date, Day: day,
		Title: digestTitle(d, day),
		// Trusted: rendered by us from the config's Markdown. Its headings
		// go below the page's h1, beside the feeds' h2.
		Intro:       template.HTML(ingest.ShiftFragmentHeadings(d.IntroHTML, 2)),
		IntroText:   ingest.PlainText(d.IntroHTML),
		Built:       showTime(d.BuiltAt, loc, entryLayout),
		Zone:        loc.String(),
		Prev:        newDateLink(d.Prev),
		Next:        newDateLink(d.Next),
		MailInDoubt: newDateLink(DigestRef{Date: d.MailInDoubt}),
	}
	var sources []linkSource
	for i, g := range inFolderOrder(d.Groups) {
		gv, src := newGroupView(g, loc)
		if g.Listed != nil {
			if v.streamed == nil {
				v.streamed = &streamSink{}
			}
			gv.listed = &entryStream{group: g, name: gv.Name, nested: gv.Nested(), full: shownInFull(g), loc: loc, sink: v.streamed}
		}
		gv.ID = fmt.Sprintf("feed-%d", i+1)
		v.Groups = append(v.Groups, gv)
		v.Count += len(g.Entries) + g.Unread + gv.More
		sources = append(sources, src...)
	}
	markTopLevel(v.Groups)
	v.Total = fmt.Sprintf("%s from %s", english.Count(v.Count, "new entry"), english.Count(len(v.Groups), "feed"))
	v.Links = linkGraph(sources)
	if d.Links != nil {
		v.Links = d.Links
	}
	v.Notices, v.Problems, v.ProblemCount = noticesAndProblems(d, loc)
	v.Failing = len(d.Problems) > 0
	v.Weekly = d.Weekly
	if d.LeftOut > 0 {
		v.LeftOut = fmt.Sprintf("%d left out by your rules", d.LeftOut)
		v.LeftOutList, v.LeftOutMore = leftOutViews(d)
	}
	return v, nil
}

// noticesAndProblems shapes the digest's notices and its feeds that
// could not be read. A feed gone or dead is told of once, under "Could not
// read", not again among the feed changes.
func noticesAndProblems(d Digest, loc *time.Location) ([]noticeView, []problemView, string) {
	final := map[string]bool{}
	var problems []problemView
	for _, p := range d.Problems {
		if p.Quiet {
			continue // named lately: not again
		}
		problems = append(problems, newProblemView(p, loc))
		if p.State == domain.ProblemGone || p.State == domain.ProblemDead {
			final[p.FeedURL] = true
		}
	}
	var notices []noticeView
	for _, n := range d.Notices {
		if (n.Kind == domain.NoticeGone || n.Kind == domain.NoticeDead) && final[n.FeedURL] {
			continue
		}
		notices = append(notices, newNoticeView(n))
	}
	return notices, problems, english.Count(len(problems), "feed")
}

// problemNotes say what becomes of a feed in each state.
var problemNotes = map[domain.ProblemState]string{
	domain.ProblemGone: "no longer polled; you may want to unsubscribe",
	domain.ProblemDead: "no longer polled after 90 days of errors",
}

func newProblemView(p Problem, loc *time.Location) problemView {
	v := problemView{
		FeedName:  feedName(p.FeedName, p.FeedURL),
		Reason:    ingest.ShortName(p.Reason),
		SinceWord: "since",
		Since:     showTime(p.Since, loc, problemLayout),
		Note:      problemNotes[p.State],
	}
	if v.Reason == "" {
		v.Reason = "could not be read"
	}
	if p.State == domain.ProblemRecovered {
		v.SinceWord, v.Until = "from", showTime(p.Until, loc, problemLayout)
	}
	if p.Again {
		v.Again = true
		v.Text = v.FeedName + ": still failing"
		if v.Since.Label != "" {
			v.Text += " since " + v.Since.Label
		}
		v.Text += ": " + v.Reason + "."
		return v
	}
	text := v.FeedName + ": " + v.Reason
	if v.Since.Label != "" {
		text += ", " + v.SinceWord + " " + v.Since.Label
	}
	if v.Until.Label != "" {
		text += "; read again on " + v.Until.Label
	}
	if v.Note != "" {
		text += "; " + v.Note
	}
	v.Text = text + "."
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
func newGroupView(g FeedGroup, loc *time.Location) (groupView, []linkSource) {
	gv := groupView{Folder: ingest.ShortName(g.Folder), Name: feedName(g.FeedName, g.FeedURL), SiteURL: safeLink(g.SiteURL), More: max(g.More, 0)}
	gv.SiteHost = hostOf(gv.SiteURL)
	gv.Count = sectionCount(len(g.Entries)+g.Unread, gv.More)
	gv.Unread = g.Unread
	gv.Older = olderNote(g.Older)
	full := shownInFull(g)
	for _, e := range g.Entries[full:] {
		gv.Titles = append(gv.Titles, newTitleView(e, g, loc))
	}
	var src []linkSource
	if g.Listed != nil {
		return gv, nil // made as the page is written: see entryStream
	}
	for _, e := range g.Entries[:full] {
		ev, links := newEntryView(e, g, gv.Name, gv.Nested(), loc)
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
func sectionCount(listed, more int) string {
	if more <= 0 {
		return english.Count(listed, "entry")
	}
	return fmt.Sprintf("%d of %s", listed, english.Count(listed+more, "entry"))
}

// olderNote tells the reader of a feed's first digest how many older
// entries it left out; "" for none.
func olderNote(older int) string {
	if older <= 0 {
		return ""
	}
	return fmt.Sprintf("This is your first digest of this feed: it starts with the newest, and leaves out %s.", english.Count(older, "older entry"))
}

// titleView is an entry of a section's compact list: its title linked,
// and its time.
type titleView struct {
	Lang, Title, URL string
	Time             timeView
	FirstSeen        bool
	// Brief is the time as a compact list on the page shows it, without
	// the year: "20 Nov 17:16".
	Brief string
}

// newTitleView shows e in a compact list: its display title alone, so
// that no text of it is sanitised (a digest read by its titles has none).
func newTitleView(e domain.Entry, g FeedGroup, loc *time.Location) titleView {
	title := e.Fragments.Title
	if e.Fragments.Rules != ingest.FragmentRules {
		title = ingest.DisplayTitle(e)
	}
	tv := titleView{Lang: g.Lang, Title: title, URL: ingest.EntryURL(g.FeedURL, e.Link)}
	tv.Time, tv.FirstSeen = entryTime(e, loc)
	if t := e.Published; !t.IsZero() || !e.FirstSeen.IsZero() {
		if t.IsZero() {
			t = e.FirstSeen
		}
		tv.Brief = t.In(loc).Format(briefLayout)
	}
	return tv
}

// TimeText is the compact entry's time for plain text (see timeText).
func (tv titleView) TimeText() string { return timeText(tv.Time, tv.FirstSeen) }

// entryTime is the time an entry is shown with: its date, else, for an
// undated one (firstSeen), when it was first seen.
func entryTime(e domain.Entry, loc *time.Location) (t timeView, firstSeen bool) {
	when := e.Published
	if when.IsZero() {
		when, firstSeen = e.FirstSeen, true
	}
	return showTime(when, loc, entryLayout), firstSeen
}

// timeText is an entry's time for plain text: "first seen" before the
// time of an undated entry.
func timeText(t timeView, firstSeen bool) string {
	if firstSeen && t.Label != "" {
		return "first seen " + t.Label
	}
	return t.Label
}

// newEntryView shows e from its fragments (see ingest.MakeFragments), and
// returns the links in its content.
func newEntryView(e domain.Entry, g FeedGroup, name string, nested bool, loc *time.Location) (entryView, []string) {
	f := ingest.FragmentsOf(g.FeedURL, e)
	ev := entryView{
		Nested:   nested,
		Title:    f.Title,
		URL:      ingest.EntryURL(g.FeedURL, e.Link),
		FeedName: name,
		Author:   ingest.ShortName(e.Author),
		Excerpt:  f.Excerpt,
		// Trusted: sanitised when the fragment was made.
		Content: template.HTML(ingest.ContentAt(f.HTML, entryContentHeading(nested))),
		Lang:    g.Lang,
		// The files' labels are ours (their kind, time and size), in
		// English like the rest of the page: no lang of the feed's.
		Enclosures: newEnclosureViews(e.Enclosures),
		AlsoIn:     strings.Join(g.AlsoIn[e.ID], ", "),
	}
	// An untitled entry's Whole says its title and excerpt show it all
	// (see ingest.MakeFragments); a titled one's, that the excerpt does.
	if ingest.PlainText(e.Title) == "" {
		ev.Complete = f.Whole
	} else {
		ev.Whole = f.Whole
	}
	ev.Time, ev.FirstSeen = entryTime(e, loc)
	ev.ReadingTime = readingTime(f.Words)
	ev.MetaText = metaText(ev)
	ev.Dir = entryDir(ev.Title, ev.Excerpt)
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
		parts = append(parts, timeText(ev.Time, ev.FirstSeen))
	}
	if ev.ReadingTime != "" {
		parts = append(parts, ev.ReadingTime)
	}
	return strings.Join(parts, " · ")
}

// noticeTexts complete "<feed name> ..." for each kind of notice; a NewURL
// follows the text when there is one.
var noticeTexts = map[domain.NoticeKind]string{
	domain.NoticeGone:   "is gone: its server answered 410 Gone, so it is no longer polled. You may want to unsubscribe.",
	domain.NoticeMoved:  "has moved for good and is now polled at its new address:",
	domain.NoticeDead:   "has failed for 90 days and is no longer polled.",
	domain.NoticeOrigin: "now redirects to another site. Please check it is still the feed you want:",
}

func newNoticeView(n Notice) noticeView {
	text, ok := noticeTexts[n.Kind]
	if !ok {
		text = "changed:"
	}
	return noticeView{
		FeedName: feedName(n.FeedName, n.FeedURL),
		Text:     text,
		NewURL:   safeLink(redact.URL(n.NewURL)),
		Detail:   redact.Text(ingest.PlainText(n.Detail)),
	}
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
