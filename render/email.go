package render

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"
	"time"
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
	Boundary  string // the MIME boundary, fixed per digest
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
	v.Subject = "Your digest for " + v.Day.Format("Monday 2 January")
	v.WebURL = siteFile(siteURL, d.User, d.Date+".html")
	return &EmailDraft{d: d, from: from, v: v}, nil
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
	text, err := execText("email.txt", v)
	if err != nil {
		return Email{}, err
	}
	page, err := execPage("email.html", v)
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
		Headers: []Header{
			{"Auto-Submitted", "auto-generated"},
			{"List-Id", fmt.Sprintf("%s digest <%s.digest.%s>", d.User, d.User, domain)},
			// Out-of-office replies to a digest help nobody.
			{"X-Auto-Response-Suppress", "All"},
		},
		UserAgent: "feeddigest",
		// Feed text reaches the plain part as it came; the HTML part's
		// escaping has no plain-text counterpart.
		Text:     StripControl(text),
		HTML:     string(page),
		Boundary: boundary(d.User, d.Date),
	}, nil
}

// listed is the number of entries v lists.
func (v *digestView) listed() int {
	n := 0
	for _, g := range v.Groups {
		n += len(g.Entries)
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
		keep := min(len(g.Entries), n-out.Kept)
		out.Omitted += len(g.Entries) - keep
		if keep <= 0 {
			continue
		}
		if keep < len(g.Entries) {
			g.Entries, g.More = g.Entries[:keep], 0
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
// messages are identical; a hash cannot occur in the quoted-printable body.
func boundary(user, date string) string {
	sum := sha256.Sum256([]byte(user + "\x00" + date))
	return "feeddigest-" + hex.EncodeToString(sum[:12])
}
