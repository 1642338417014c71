package render

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"feeddigest/ingest"
	"feeddigest/locale"
)

// ErrNoRecipient is returned by DigestEmail for a user without an email
// address: such a user gets pages only.
var ErrNoRecipient = errors.New("render: digest has no recipient address")

// Email is a digest email as plain values: the headers and the two
// bodies. Composing it into MIME and sending it is package mail's work;
// render makes the content and imports no mail library.
//
// Everything that varies between two builds of one digest (Message-ID,
// MIME boundary, Date) is derived from the digest, so the message is
// byte for byte reproducible and a repeated send is recognisable by its
// Message-ID.
type Email struct {
	From      string // the sender as configured: "Name <address>" or "address"
	To        string // the recipient's address
	Subject   string
	Date      time.Time // when the digest was built, in the user's zone
	MessageID string    // without the angle brackets
	Headers   []Header  // further headers: Auto-Submitted, List-Id, ...
	UserAgent string
	Text      string // the plain-text part, which reads well alone
	HTML      string // the HTML part, with inline styles (mail clients drop <style>)
	// Boundary is the MIME boundary, fixed per digest: package mail uses
	// another when the encoded parts hold it (a feed can write it, as
	// anyone can work it out).
	Boundary string
}

// Header is one further header of an Email.
type Header struct{ Name, Value string }

// EmailDraft is the email of one digest, which can be cut to its first
// entries when the whole would be too large to send (package mail knows
// how large a message is as sent, and makes that choice). The entries are
// sanitised once; each version renders the templates again.
type EmailDraft struct {
	d    Digest
	from string
	v    *digestView
}

// DigestEmail prepares the email of d: multipart/alternative with a
// plain-text part and an HTML part, linking the digest's page under
// siteURL (none when siteURL is empty).
func DigestEmail(d Digest, from, siteURL string) (*EmailDraft, error) {
	if strings.TrimSpace(d.Email) == "" {
		return nil, ErrNoRecipient
	}
	v, err := newDigestView(d)
	if err != nil {
		return nil, err
	}
	l := d.Lang
	period := l.Date(v.Day, locale.Weekday)
	if d.Weekly {
		period = daysCovered(v.Day, d.Since, d.BuiltAt, zone(d)).shortLabel(l)
	}
	v.Subject = l.T("email.subject", "Period", period, "HowMuch", v.howMuch())
	v.Preheader = v.headlines()
	v.WebURL = siteFile(siteURL, d.User, d.Date+".html")
	v.Footer = newFooter(d, from)
	if d.MailInDoubt != "" {
		v.MailInDoubtURL = siteFile(siteURL, d.User, d.MailInDoubt+".html")
	}
	return &EmailDraft{d: d, from: from, v: v}, nil
}

// emailFooter is what a good newsletter ends with: why the reader gets
// it, and how to stop it (the page's link, when there is one, is
// digestView.WebURL).
type emailFooter struct {
	Why string // "You get this daily digest of the feeds you follow as “ada”."
	// Unsubscribe is the mailto: or https: address the operator handles;
	// without one, Sender is whom to ask.
	Unsubscribe, Sender string
}

func newFooter(d Digest, from string) emailFooter {
	why := "email.why_daily"
	if d.Weekly {
		why = "email.why_weekly"
	}
	f := emailFooter{Why: d.Lang.T(why, "User", d.User), Unsubscribe: unsubscribeURL(d.Unsubscribe)}
	if f.Unsubscribe == "" {
		f.Sender = from
		if a, err := netmail.ParseAddress(from); err == nil {
			f.Sender = a.Address
		}
	}
	return f
}

// PageWhere says where the digest's page is when no site_url gives it an
// address to link: its path among the pages written, which the reader of
// an email cut short can open on the machine that runs feeddigest.
func (v *digestView) PageWhere() string {
	page := v.L.T("email.this_page")
	if v.WebURL != "" {
		return page
	}
	return v.L.T("email.page_where", "Page", page, "Path", v.User+"/"+v.Date+".html")
}

// Entries is the number of entries the whole email lists.
func (e *EmailDraft) Entries() int {
	return e.v.listed()
}

// FirstEntries is the email that lists only the first n entries, in
// order, and says that the rest are on the page; with n >= Entries() it
// is the whole email.
func (e *EmailDraft) FirstEntries(n int) (Email, error) {
	v := e.v
	if n < v.listed() {
		v = v.firstEntries(max(n, 0))
	}
	text, err := execText(v.L, "email.txt", v)
	if err != nil {
		return Email{}, err
	}
	page, err := execPage(v.L, "email.html", v)
	if err != nil {
		return Email{}, err
	}
	d := e.d
	domain := mailDomain(e.from)
	return Email{
		From:      e.from,
		To:        d.Email,
		Subject:   v.Subject,
		Date:      d.BuiltAt.In(zone(d)),
		MessageID: fmt.Sprintf("digest-%s-%s@%s", d.Date, d.User, domain),
		Headers:   headers(d, domain),
		UserAgent: "feeddigest",
		// Feed text reaches the plain part as it came; the HTML part's
		// escaping and its dir="auto" elements, which contain a feed's
		// bidirectional overrides, have no plain-text counterpart.
		Text:     ingest.StripControl(text),
		HTML:     string(page),
		Boundary: boundary(d.User, d.Date),
	}, nil
}

// headers are the email's further headers: List-Id always, and
// List-Unsubscribe when the operator handles an address for it.
func headers(d Digest, domain string) []Header {
	out := []Header{
		{"Auto-Submitted", "auto-generated"},
		{"List-Id", fmt.Sprintf("%s digest <%s.digest.%s>", d.User, d.User, domain)},
	}
	if u := unsubscribeURL(d.Unsubscribe); u != "" {
		out = append(out, Header{"List-Unsubscribe", "<" + u + ">"})
		// RFC 8058: an https address takes a one-click POST, which mail
		// clients send without opening a page; the operator's endpoint
		// stops the digests on that POST.
		if strings.HasPrefix(u, "https:") {
			out = append(out, Header{"List-Unsubscribe-Post", "List-Unsubscribe=One-Click"})
		}
	}
	// Out-of-office replies to a digest help nobody.
	return append(out, Header{"X-Auto-Response-Suppress", "All"})
}

// unsubscribeURL is s when it is a mailto: or https: URL that fits in a
// header between angle brackets, else "" (config checks it first).
func unsubscribeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || strings.ContainsAny(s, " \t<>\r\n") {
		return ""
	}
	switch {
	case u.Scheme == "mailto" && u.Opaque != "":
		return s
	case u.Scheme == "https" && u.Host != "":
		return s
	}
	return ""
}

// howMuch is what the subject says of the digest: "12 new from 5
// feeds", "nothing new", and how many feeds could not be read.
func (v *digestView) howMuch() string {
	l := v.L
	s := l.T("email.nothing_new")
	if v.Count > 0 {
		s = l.T("email.how_much", "New", l.T("email.new", "Count", v.Count), "FromFeeds", l.T("count.from_feeds", "Count", len(v.Groups)))
	}
	// A problem named before is a reminder in the digest, never again in
	// the Subject: a reader who cannot fix a feed is not told of it there
	// every morning.
	if n := v.newProblems(); n > 0 {
		s = l.T("email.with_problems", "HowMuch", s, "Problems", l.T("problem.count_unread", "Count", n))
	}
	return s
}

// newProblems counts the problems the digest names for the first time.
func (v *digestView) newProblems() int {
	n := 0
	for _, p := range v.Problems {
		if !p.Again {
			n++
		}
	}
	return n
}

// HeadlineEntries is how many entries' titles the email's preheader
// shows: the first ones.
const HeadlineEntries = 3

// maxPreheader bounds the preheader: clients show a line of it.
const maxPreheader = 150

// headlines is the preheader: the first three entries' titles, else the
// feeds that could not be read, cut to maxPreheader characters, without
// bidirectional controls (see StripControl).
func (v *digestView) headlines() string {
	var titles []string
	for _, g := range v.Groups {
		for _, e := range g.Entries {
			if len(titles) < HeadlineEntries {
				titles = append(titles, e.Title)
			}
		}
		for _, e := range g.Titles {
			if len(titles) < HeadlineEntries {
				titles = append(titles, e.Title)
			}
		}
	}
	s := strings.Join(titles, " · ")
	if s == "" && len(v.Problems) > 0 {
		var names []string
		for _, p := range v.Problems {
			names = append(names, p.FeedName)
		}
		s = v.L.T("text.label", "Label", v.L.T("problem.heading"), "Value", strings.Join(names, v.L.T("text.list_separator")))
	}
	// Mail clients show it as plain text in the list of messages, where
	// no element contains a title's bidirectional override.
	return ingest.Cut(ingest.StripControl(s), maxPreheader, maxPreheader)
}

// listed is the number of entries v lists.
func (v *digestView) listed() int {
	n := 0
	for _, g := range v.Groups {
		n += len(g.Entries) + len(g.Titles) + g.Unread
	}
	return n
}

// firstEntries is a copy of v that lists only its first n entries, in
// order, and counts the others as Omitted. A feed whose list is cut drops
// its "and N more" line: the page lists what follows.
func (v *digestView) firstEntries(n int) *digestView {
	out := *v
	out.Groups = nil
	out.Kept, out.Omitted = 0, 0
	for _, g := range v.Groups {
		listed := len(g.Entries) + len(g.Titles)
		keep := min(listed, n-out.Kept)
		out.Omitted += listed + g.Unread - keep
		if keep <= 0 {
			continue
		}
		if keep < listed || g.Unread > 0 {
			full := min(keep, len(g.Entries))
			g.Entries, g.Titles, g.More, g.Unread = g.Entries[:full], g.Titles[:keep-full], 0, 0
		}
		out.Groups = append(out.Groups, g)
		out.Kept += keep
	}
	return &out
}

// mailDomain is the domain of the From address, so Message-IDs are ours;
// "feeddigest" when the address has none.
func mailDomain(from string) string {
	if a, err := netmail.ParseAddress(from); err == nil {
		if i := strings.LastIndexByte(a.Address, '@'); i >= 0 && i < len(a.Address)-1 {
			return a.Address[i+1:]
		}
	}
	return "feeddigest"
}

// boundary is a MIME boundary fixed per digest, so golden files and resent
// messages are identical. It is no secret (the user and the date make
// it), so a feed can write it: package mail checks the encoded parts for
// it and uses another when they hold it.
func boundary(user, date string) string {
	sum := sha256.Sum256([]byte(user + "\x00" + date))
	return "feeddigest-" + hex.EncodeToString(sum[:12])
}
