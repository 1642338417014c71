package render

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"feeddigest/domain"
	"feeddigest/internal/redact"
)

// Time layouts: people read dates in words; machines get RFC 3339 in the
// datetime attribute.
const (
	dayLayout        = "Monday 2 January 2006"
	entryLayout      = "2 Jan 2006, 15:04"
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
	Groups            []groupView
	Links             []HostCount
	Count             int
	Built             timeView
	Zone              string
	// Email only.
	Subject, WebURL string
	// Kept and Omitted: an email too large to send (package mail bounds
	// it) lists the first Kept entries and says that Omitted more are on
	// the page.
	Kept, Omitted int
}

type groupView struct {
	Name, SiteURL string
	SiteHost      string // the link text of SiteURL
	Entries       []entryView
	More          int // entries not listed (see FeedGroup.More)
}

type entryView struct {
	Title, URL, FeedName, Author string
	Time                         timeView
	FirstSeen                    bool
	MetaText                     string // author and time, for plain text
	Excerpt                      string
	Content                      template.HTML
}

type noticeView struct {
	FeedName, Text, NewURL, Detail string
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
		Title: "Digest for " + day.Format(dayLayout),
		// Trusted: rendered by us from the config's Markdown. Its headings
		// go below the page's h1, beside the feeds' h2.
		Intro:     template.HTML(shiftFragmentHeadings(d.IntroHTML, 2)),
		IntroText: plainText(d.IntroHTML),
		Built:     showTime(d.BuiltAt, loc, entryLayout),
		Zone:      loc.String(),
	}
	var sources []linkSource
	for _, g := range d.Groups {
		gv, src := newGroupView(g, loc)
		v.Groups = append(v.Groups, gv)
		v.Count += len(gv.Entries) + gv.More
		sources = append(sources, src...)
	}
	v.Links = linkGraph(sources)
	for _, n := range d.Notices {
		v.Notices = append(v.Notices, newNoticeView(n))
	}
	return v, nil
}

// entryContentHeading is the first heading level inside an entry's
// content: below the entry's own h3.
const entryContentHeading = 4

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
	gv := groupView{Name: feedName(g.FeedName, g.FeedURL), SiteURL: safeLink(g.SiteURL), More: max(g.More, 0)}
	gv.SiteHost = hostOf(gv.SiteURL)
	var src []linkSource
	for _, e := range g.Entries {
		ev := newEntryView(e, g, gv.Name, loc)
		gv.Entries = append(gv.Entries, ev)
		src = append(src, linkSource{
			content: string(ev.Content),
			own:     []string{ev.URL, g.FeedURL, g.SiteURL},
		})
	}
	return gv, src
}

func newEntryView(e domain.Entry, g FeedGroup, name string, loc *time.Location) entryView {
	link := EntryURL(g.FeedURL, e.Link)
	ev := entryView{
		Title:    DisplayTitle(e),
		URL:      link,
		FeedName: name,
		Author:   shortName(e.Author),
		Excerpt:  Excerpt(e),
		Content:  template.HTML(sanitize(contentOf(e), link, entryContentHeading)),
	}
	when := e.Published
	if when.IsZero() {
		when, ev.FirstSeen = e.FirstSeen, true
	}
	ev.Time = showTime(when, loc, entryLayout)
	ev.MetaText = metaText(ev)
	return ev
}

// metaText is the "by whom, when" line of the plain-text email.
func metaText(ev entryView) string {
	var parts []string
	if ev.Author != "" {
		parts = append(parts, ev.Author)
	}
	if ev.Time.Label != "" {
		when := ev.Time.Label
		if ev.FirstSeen {
			when = "first seen " + when
		}
		parts = append(parts, when)
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
		Detail:   redact.Text(plainText(n.Detail)),
	}
}

// feedName is the feed's title as plain text, else its URL's host.
func feedName(name, feedURL string) string {
	if n := shortName(name); n != "" {
		return n
	}
	if h := hostOf(feedURL); h != "" {
		return h
	}
	return redact.URL(feedURL)
}

// safeLink keeps only absolute http(s) URLs for our own links.
func safeLink(s string) string {
	if u := absoluteHTTP(s); u != nil {
		return u.String()
	}
	return ""
}

// siteFile is the absolute web address of a file in a user's folder of
// the site, or "" when no site URL is configured. siteURL names a folder
// even without its trailing slash.
func siteFile(siteURL, user, name string) string {
	base := absoluteHTTP(siteURL)
	if base == nil {
		return ""
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	return base.JoinPath(user, name).String()
}
