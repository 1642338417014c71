package render

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	netmail "net/mail"
	"strings"

	"github.com/wneessen/go-mail"
)

// ErrNoRecipient is returned by EmailMessage for a user without an email
// address: such a user gets pages only.
var ErrNoRecipient = errors.New("render: digest has no recipient address")

// EmailMessage builds the digest email: multipart/alternative with a
// plain-text part that reads well alone and an HTML part with inline
// styles (mail clients drop <style>). Everything that varies between two
// builds of one digest (Message-ID, MIME boundary, Date) is derived from
// the digest, so the message is byte for byte reproducible and a repeated
// send is recognisable by its Message-ID.
func EmailMessage(d Digest, from, siteURL string) (*mail.Msg, error) {
	if strings.TrimSpace(d.Email) == "" {
		return nil, ErrNoRecipient
	}
	v, err := newDigestView(d)
	if err != nil {
		return nil, err
	}
	v.Subject = "Your digest for " + v.Day.Format("Monday 2 January")
	v.WebURL = siteFile(siteURL, d.User, d.Date+".html")
	return fitEmail(d, from, v)
}

// MaxEmailSize bounds a digest email as sent: headers and both parts,
// encoded. 2 MB is far below what mail servers refuse (commonly 10 to 25
// MB) and still holds well over a thousand excerpts.
const MaxEmailSize = 2_000_000

// fitEmail builds the email of v, and when it is larger than MaxEmailSize,
// the one that lists as many of the first entries as fit and says that
// the rest are on the page. The search renders the templates again, not
// the entries: v is sanitised once.
func fitEmail(d Digest, from string, v *digestView) (*mail.Msg, error) {
	msg, size, err := measuredEmail(d, from, v)
	if err != nil || size <= MaxEmailSize {
		return msg, err
	}
	var best *mail.Msg
	lo, hi := 0, v.listed() // hi entries do not fit
	for lo < hi {
		mid := (lo + hi) / 2
		m, size, err := measuredEmail(d, from, v.firstEntries(mid))
		if err != nil {
			return nil, err
		}
		if size <= MaxEmailSize {
			best, lo = m, mid+1
		} else {
			hi = mid
		}
	}
	if best == nil { // even the frame is too large: every entry is on the page
		best, _, err = measuredEmail(d, from, v.firstEntries(0))
	}
	return best, err
}

// measuredEmail builds the message of v and measures it as it will be sent.
func measuredEmail(d Digest, from string, v *digestView) (*mail.Msg, int64, error) {
	msg, err := newMsg(d, from, v.Subject)
	if err != nil {
		return nil, 0, err
	}
	if err := setBodies(msg, v); err != nil {
		return nil, 0, err
	}
	size, err := msg.WriteTo(io.Discard)
	if err != nil {
		return nil, 0, fmt.Errorf("render: email for %s %s: %w", d.User, d.Date, err)
	}
	return msg, size, nil
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

// newMsg sets the headers of a digest email.
func newMsg(d Digest, from, subject string) (*mail.Msg, error) {
	msg := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := msg.From(from); err != nil {
		return nil, fmt.Errorf("render: email from %q: %w", from, err)
	}
	if err := msg.To(d.Email); err != nil {
		return nil, fmt.Errorf("render: email to %q: %w", d.Email, err)
	}
	domain := mailDomain(from)
	msg.Subject(subject)
	msg.SetDateWithValue(d.BuiltAt.In(zone(d)))
	msg.SetMessageIDWithValue(fmt.Sprintf("digest-%s-%s@%s", d.Date, d.User, domain))
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetGenHeader("List-Id", fmt.Sprintf("%s digest <%s.digest.%s>", d.User, d.User, domain))
	// Out-of-office replies to a digest help nobody.
	msg.SetGenHeader(mail.HeaderXAutoResponseSuppress, "All")
	msg.SetUserAgent("feeddigest")
	msg.SetBoundary(boundary(d.User, d.Date))
	return msg, nil
}

// setBodies renders both parts; the plain text comes first, as the MIME
// rules for alternatives put the simplest one first.
func setBodies(msg *mail.Msg, v *digestView) error {
	text, err := execText("email.txt", v)
	if err != nil {
		return err
	}
	page, err := execPage("email.html", v)
	if err != nil {
		return err
	}
	// Feed text reaches the plain part as it came; the HTML part's
	// escaping has no plain-text counterpart.
	msg.SetBodyString(mail.TypeTextPlain, StripControl(text))
	msg.AddAlternativeString(mail.TypeTextHTML, string(page))
	return nil
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
