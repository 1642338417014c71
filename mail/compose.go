package mail

import (
	"fmt"
	"io"

	gomail "github.com/wneessen/go-mail"

	"feeddigest/render"
)

// MaxSize bounds a digest email as sent: headers and both parts, encoded.
// 2 MB is far below what mail servers refuse (commonly 10 to 25 MB) and
// still holds well over a thousand excerpts.
const MaxSize = 2_000_000

// Message is an email composed for sending: the MIME message, encoded,
// as it goes over SMTP and into the outbox.
type Message struct {
	msg  *gomail.Msg
	size int64
}

// WriteTo writes the message as sent.
func (m *Message) WriteTo(w io.Writer) (int64, error) {
	return m.msg.WriteTo(w)
}

// Compose makes the MIME message of e: multipart/alternative with the
// plain text first, as the MIME rules for alternatives put the simplest
// one first, and both parts quoted-printable.
func Compose(e render.Email) (*Message, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(e.From); err != nil {
		return nil, fmt.Errorf("mail: from %q: %w", e.From, err)
	}
	if err := msg.To(e.To); err != nil {
		return nil, fmt.Errorf("mail: to %q: %w", e.To, err)
	}
	msg.Subject(e.Subject)
	msg.SetDateWithValue(e.Date)
	msg.SetMessageIDWithValue(e.MessageID)
	for _, h := range e.Headers {
		msg.SetGenHeader(gomail.Header(h.Name), h.Value)
	}
	if e.UserAgent != "" {
		msg.SetUserAgent(e.UserAgent)
	}
	msg.SetBoundary(e.Boundary)
	msg.SetBodyString(gomail.TypeTextPlain, e.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, e.HTML)
	size, err := msg.WriteTo(io.Discard)
	if err != nil {
		return nil, fmt.Errorf("mail: message %s: %w", e.MessageID, err)
	}
	return &Message{msg: msg, size: size}, nil
}

// ComposeDigest composes the email of a digest, and when it is larger
// than MaxSize, the one that lists as many of the first entries as fit
// and says that the rest are on the page.
//
// It never composes much more than fits: it lists the first
// firstTry entries (the whole email of most digests), then twice as many
// while they fit, then halves the gap between what fits and what does not.
// A digest of 20,000 entries is never rendered whole for an email that
// holds a tenth of them.
func ComposeDigest(draft *render.EmailDraft) (*Message, error) {
	n := draft.Entries()
	var best *Message // the largest version known to fit
	lo, hi := 0, 0    // lo entries fit (0: the frame, the last resort), hi do not
	for try := min(n, firstTry); ; try = min(n, 2*try) {
		m, err := composeFirst(draft, try)
		if err != nil {
			return nil, err
		}
		if m.size > MaxSize {
			hi = try
			break
		}
		best, lo = m, try
		if try == n {
			return m, nil
		}
	}
	for lo+1 < hi {
		mid := (lo + hi) / 2
		m, err := composeFirst(draft, mid)
		if err != nil {
			return nil, err
		}
		if m.size <= MaxSize {
			best, lo = m, mid
		} else {
			hi = mid
		}
	}
	if best == nil { // even the frame is too large, or nothing fits: every entry is on the page
		return composeFirst(draft, 0)
	}
	return best, nil
}

// firstTry is how many entries ComposeDigest lists first: far more than a
// day of most readers' feeds, and well under MaxSize.
const firstTry = 1000

// composeFirst composes the version of draft that lists its first n
// entries.
func composeFirst(draft *render.EmailDraft, n int) (*Message, error) {
	e, err := draft.FirstEntries(n)
	if err != nil {
		return nil, err
	}
	return Compose(e)
}
