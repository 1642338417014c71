package render

import (
	"bytes"
	"crypto/sha1"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"feeddigest/ingest"
	"feeddigest/locale"
)

// MaxFeedDigests bounds feed.xml: a reader needs the recent days, and the
// pages keep the rest. Ten: a fortnight of working days, ten weeks of a
// weekly digest; each run lists every one of them again.
const MaxFeedDigests = 10

type atomFeed struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	// Lang is the language of the feed's own words (xml:lang): the
	// digests' titles and summaries are worded in the user's.
	Lang      string      `xml:"http://www.w3.org/XML/1998/namespace lang,attr,omitempty"`
	ID        string      `xml:"id"`
	Title     string      `xml:"title"`
	Updated   string      `xml:"updated"`
	Author    atomPerson  `xml:"author"`
	Generator string      `xml:"generator"`
	Links     []atomLink  `xml:"link"`
	Entries   []atomEntry `xml:"entry"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Link    atomLink    `xml:"link"`
	Content atomContent `xml:"content"`
	// lang is the language of the feed.xml the entry was read from: an
	// entry in another language than the user's now is made anew.
	lang string
}

type atomContent struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

// AtomSite is where a feed.xml is published, which its ids are built
// from: RFC 4287 ids are unique to the feed and entry everywhere, so two
// installations with a user of the same name must not share them.
type AtomSite struct {
	// URL is the key site_url: ids are the feed's and each digest's URL.
	URL string
	// Installation is the state's id (store.Store.KeepInstallation), for
	// ids when URL is "": urn:uuid: ids made from it, the user and date.
	Installation string
}

// feedID is the id of user's feed.
func (s AtomSite) feedID(user string) string {
	if self := siteFile(s.URL, user, "feed.xml"); self != "" {
		return self
	}
	return s.uuidURN(user)
}

// entryID is the id of the entry of user's digest of date.
func (s AtomSite) entryID(user, date string) string {
	if href := siteFile(s.URL, user, date+".html"); href != "" {
		return href
	}
	return s.uuidURN(user + "/" + date)
}

// uuidURN is a name-based UUID (version 5's layout, over SHA-1 of the
// installation and name), stable for a name within one installation.
// Without an installation (publish of a state no run has kept one in)
// the ids of the first versions, the same everywhere, are kept.
func (s AtomSite) uuidURN(name string) string {
	if s.Installation == "" {
		user, date, dated := strings.Cut(name, "/")
		if !dated {
			return "tag:feeddigest,2000:" + user
		}
		return "tag:feeddigest," + date + ":" + user
	}
	sum := sha1.Sum([]byte(s.Installation + "\x00" + name))
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// AtomFeed renders SITE/<user>/feed.xml: one entry per digest, newest
// first, each summarising its digest (feed names and display titles) and
// linking to its page. Entry ids depend only on the site, user and date,
// so a rebuilt feed does not show old digests as new.
func AtomFeed(user string, l *locale.Locale, site AtomSite, digests []Digest, updated time.Time) ([]byte, error) {
	var buf bytes.Buffer
	err := WriteAtomFeed(&buf, user, l, site, digests, updated)
	return buf.Bytes(), err
}

// WriteAtomFeed writes the feed of AtomFeed to w, in the user's language
// l.
func WriteAtomFeed(w io.Writer, user string, l *locale.Locale, site AtomSite, digests []Digest, updated time.Time) error {
	return WriteAtomFeedKeeping(w, user, l, site, digests, updated, nil)
}

// AtomEntries are the entries of a feed.xml written before, by id: a
// digest is built once and never changes, so its entry, like its page, is
// written once and copied into every later feed.xml rather than made
// again from the digest's titles, read again from the state, at every
// run.
type AtomEntries map[string]atomEntry

// ReadAtomEntries reads the entries of a feed.xml written before; nil when
// it cannot be read (missing or damaged): every entry is then made anew.
func ReadAtomEntries(r io.Reader) AtomEntries {
	var f atomFeed
	if err := xml.NewDecoder(r).Decode(&f); err != nil {
		return nil
	}
	out := make(AtomEntries, len(f.Entries))
	for _, e := range f.Entries {
		e.lang = f.Lang
		if e.lang == "" {
			e.lang = locale.English().Tag() // written before feeds said their language
		}
		out[e.ID] = e
	}
	return out
}

// oldWeeklyTitle begins the title a weekly digest had before it was
// titled by the days it covers (see daysCovered): such an entry is made
// anew, so that the feed stops announcing the week to come.
const oldWeeklyTitle = "Digest for the week of "

// Keeps says whether the feed of user at siteURL, in the user's language
// l, can copy the entry of the digest of date built at built (see
// AtomEntries): one written for the same digest (same id and build
// time), the same site and in the same language. A digest whose build
// time is unknown is always made anew.
func (k AtomEntries) Keeps(user string, l *locale.Locale, site AtomSite, date string, built time.Time) bool {
	_, ok := k.kept(user, l, site, date, built)
	return ok
}

func (k AtomEntries) kept(user string, l *locale.Locale, site AtomSite, date string, built time.Time) (atomEntry, bool) {
	if built.IsZero() {
		return atomEntry{}, false
	}
	e, ok := k[site.entryID(user, date)]
	if !ok || e.Updated != built.UTC().Format(time.RFC3339) || e.Link.Href != digestHref(site.URL, user, date) ||
		strings.HasPrefix(e.Title, oldWeeklyTitle) || e.lang != l.Tag() {
		return atomEntry{}, false
	}
	return e, true
}

// WriteAtomFeedKeeping is WriteAtomFeed copying the entries that kept
// Keeps: their digests need no more than their Date and BuiltAt.
func WriteAtomFeedKeeping(w io.Writer, user string, l *locale.Locale, site AtomSite, digests []Digest, updated time.Time, kept AtomEntries) error {
	siteURL := site.URL
	f := atomFeed{
		Lang:      l.Tag(),
		ID:        site.feedID(user),
		Title:     l.T("digest.user_digests", "User", user),
		Updated:   updated.UTC().Format(time.RFC3339),
		Author:    atomPerson{Name: "feeddigest"},
		Generator: "feeddigest",
		Links:     []atomLink{{Rel: "alternate", Type: "text/html", Href: "index.html"}},
	}
	if self := siteFile(siteURL, user, "feed.xml"); self != "" {
		f.Links = []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: self},
			{Rel: "alternate", Type: "text/html", Href: siteFile(siteURL, user, "index.html")},
		}
	}
	for _, d := range newestDigests(digests) {
		if e, ok := kept.kept(user, l, site, d.Date, d.BuiltAt); ok {
			f.Entries = append(f.Entries, e)
			continue
		}
		d.Lang = l
		e, err := newAtomEntry(user, site, d, updated)
		if err != nil {
			return err
		}
		f.Entries = append(f.Entries, e)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(f); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// newestDigests sorts a copy newest first and keeps MaxFeedDigests.
func newestDigests(digests []Digest) []Digest {
	ds := append([]Digest(nil), digests...)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Date > ds[j].Date })
	if len(ds) > MaxFeedDigests {
		ds = ds[:MaxFeedDigests]
	}
	return ds
}

func newAtomEntry(user string, site AtomSite, d Digest, updated time.Time) (atomEntry, error) {
	v, err := newAtomSummaryView(d)
	if err != nil {
		return atomEntry{}, err
	}
	summary, err := execPage(v.L, "atom-summary", v)
	if err != nil {
		return atomEntry{}, err
	}
	href := digestHref(site.URL, user, d.Date)
	return atomEntry{
		ID:      site.entryID(user, d.Date),
		Title:   v.Title,
		Updated: builtOr(d.BuiltAt, updated).UTC().Format(time.RFC3339),
		Link:    atomLink{Rel: "alternate", Type: "text/html", Href: href},
		Content: atomContent{Type: "html", Body: string(summary)},
	}, nil
}

// digestHref is the link of a digest's Atom entry to its page.
func digestHref(siteURL, user, date string) string {
	if href := siteFile(siteURL, user, date+".html"); href != "" {
		return href
	}
	return date + ".html"
}

// builtOr is t, or fallback when t is unknown: Atom requires a date.
func builtOr(t, fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t
}

// newAtomSummaryView is the part of a digest's view that its Atom summary
// shows: feed names and display titles. It skips sanitising every entry's
// content, which the feed of thirty digests would otherwise redo each run.
func newAtomSummaryView(d Digest) (*digestView, error) {
	day, err := time.Parse(dateLayout, d.Date)
	if err != nil {
		return nil, fmt.Errorf("render: digest of %q: bad date %q: %w", d.User, d.Date, err)
	}
	v := &digestView{L: d.Lang, User: d.User, Date: d.Date, Day: day, Title: digestTitle(d, day)}
	for _, g := range inFolderOrder(d.Groups) {
		gv := groupView{Name: feedName(g.FeedName, g.FeedURL), More: max(g.More, 0)}
		for _, e := range g.Entries {
			title := e.Fragments.Title
			if e.Fragments.Rules != ingest.FragmentRules {
				title = ingest.DisplayTitle(e)
			}
			title = titleIn(d.Lang, title)
			gv.Entries = append(gv.Entries, entryView{Title: title})
		}
		v.Groups = append(v.Groups, gv)
		v.Count += len(gv.Entries) + gv.More
	}
	v.Notices, v.Problems, v.ProblemCount = noticesAndProblems(d, zone(d))
	v.AtomSummary = atomSummary(d.Lang, v)
	return v, nil
}

// atomSummary is the line atop a digest's Atom entry: how many entries,
// feed changes and feeds that could not be read.
func atomSummary(l *locale.Locale, v *digestView) string {
	parts := []string{l.T("atom.entries", "Count", v.Count)}
	if n := len(v.Notices); n > 0 {
		parts = append(parts, l.T("atom.feed_changes", "Count", n))
	}
	if n := len(v.Problems); n > 0 {
		parts = append(parts, l.T("problem.count_unread", "Count", n))
	}
	return l.T("text.sentence", "Text", strings.Join(parts, l.T("text.list_separator")))
}
