package mail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// ErrBoundary is returned by Compose when it finds no MIME boundary that
// the message's parts do not hold (which no content can make happen: see
// Compose).
var ErrBoundary = errors.New("mail: no MIME boundary clear of the message")

// boundaryTries bounds Compose's search for a boundary. The first is
// public (render derives it from the user and the date); each further one
// is a hash of the bodies that would have to hold it, which no feed can
// write, so the second is taken unless the hash itself is broken.
const boundaryTries = 4

// Compose makes the MIME message of e: multipart/alternative with the
// plain text first, as the MIME rules for alternatives put the simplest
// one first, and both parts quoted-printable.
//
// Its boundary is e.Boundary unless the message as encoded holds it
// anywhere but where it delimits the parts: a feed can write the
// delimiter of a boundary anyone can work out (render derives it from the
// user and the date, so that golden files and resent messages are the
// same), and a line of it would end the part early for every reader.
// Then the boundary is one derived from the bodies themselves, which no
// body can hold, and so on until the message is clear of it; the message
// stays a function of its content, byte for byte.
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
	msg.SetBodyString(gomail.TypeTextPlain, e.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, e.HTML)
	boundary := e.Boundary
	for range boundaryTries {
		msg.SetBoundary(boundary)
		w := boundaryCounter{boundary: []byte(boundary)}
		if _, err := msg.WriteTo(&w); err != nil {
			return nil, fmt.Errorf("mail: message %s: %w", e.MessageID, err)
		}
		if w.hits == boundaryUses {
			return &Message{msg: msg, size: w.size}, nil
		}
		boundary = clearBoundary(boundary, e)
	}
	return nil, fmt.Errorf("mail: message %s: %w", e.MessageID, ErrBoundary)
}

// boundaryUses is how often a multipart/alternative message of two parts
// holds its boundary when nothing else does: the Content-Type parameter,
// the delimiter before each part and the closing one.
const boundaryUses = 4

// clearBoundary is the boundary Compose tries after prev: a hash of prev
// and of both bodies, which a body cannot hold (it would have to hold the
// hash of itself).
func clearBoundary(prev string, e render.Email) string {
	h := sha256.New()
	for _, s := range []string{prev, e.Text, e.HTML} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "feeddigest-" + hex.EncodeToString(h.Sum(nil)[:12])
}

// boundaryCounter counts the bytes written to it and the times they hold
// boundary, also across writes.
type boundaryCounter struct {
	boundary []byte
	tail     []byte // the last len(boundary)-1 bytes written, at most
	size     int64
	hits     int
}

func (c *boundaryCounter) Write(p []byte) (int, error) {
	c.size += int64(len(p))
	keep := len(c.boundary) - 1
	if len(c.tail) > 0 {
		// An occurrence that starts in the tail ends in p's first bytes.
		edge := append(c.tail[:len(c.tail):len(c.tail)], p[:min(len(p), keep)]...)
		c.hits += bytes.Count(edge, c.boundary)
	}
	c.hits += bytes.Count(p, c.boundary)
	if len(p) >= keep {
		c.tail = append(c.tail[:0], p[len(p)-keep:]...)
	} else {
		c.tail = append(c.tail, p...)
		c.tail = c.tail[max(0, len(c.tail)-keep):]
	}
	return len(p), nil
}

// ComposeDigest composes the email of a digest, and when it is larger
// than MaxSize, the one that lists as many of the first entries as fit
// and says that the rest are on the page.
//
// It never composes much more than fits: it lists the first
// firstTry entries (the whole email of most digests), then, while they
// fit, as many as the size per entry so far says would fit and an eighth
// more; then it narrows the range between what fits and what does not,
// guessing from the two sizes (an email grows by about the same with each
// entry), and halving the range when a guess did not. A digest of 20,000
// entries is never rendered whole for an email that holds a tenth of
// them, and takes a handful of versions, not a dozen, to find the largest
// that fits.
func ComposeDigest(draft *render.EmailDraft) (*Message, error) {
	n := draft.Entries()
	var best *Message // the largest version known to fit
	s := sizeSearch{hi: n + 1}
	for try := min(n, firstTry); ; try = s.next(n) {
		m, err := composeFirst(draft, try)
		if err != nil {
			return nil, err
		}
		if m.size <= MaxSize {
			best = m
		}
		if try == n && m.size <= MaxSize {
			return m, nil
		}
		s.record(try, m.size)
		if s.lo+1 >= s.hi {
			break
		}
	}
	if best == nil { // even the frame is too large, or nothing fits: every entry is on the page
		return composeFirst(draft, 0)
	}
	return best, nil
}

// sizeSearch is ComposeDigest's range: lo entries fit (0: the frame, the
// last resort), hi do not (n+1 until some version is too large), with
// their sizes when measured (0 when not).
type sizeSearch struct {
	lo, hi         int
	loSize, hiSize int64
	// halve says the last guess left more than half of the range: the
	// next try is its middle, so that the search takes at most twice the
	// tries of halving alone.
	halve bool
}

// record narrows the range by a version of try entries, of size bytes.
func (s *sizeSearch) record(try int, size int64) {
	before := s.hi - s.lo
	if size <= MaxSize {
		s.lo, s.loSize = try, size
	} else {
		s.hi, s.hiSize = try, size
	}
	// Halving is for a range both ends of which were measured: before,
	// its middle may be far more than fits.
	s.halve = s.hiSize != 0 && !s.halve && 2*(s.hi-s.lo) > before
}

// next is how many entries to try next, strictly between lo and hi; n is
// all there are.
func (s *sizeSearch) next(n int) int {
	guess := (s.lo + s.hi) / 2
	switch {
	case s.halve || s.loSize == 0 || s.lo == 0:
	case s.hiSize == 0:
		// Nothing too large yet: the size per entry so far, frame and
		// all, guesses low; an eighth more makes up for it.
		fit := int(int64(s.lo) * MaxSize / s.loSize)
		guess = min(n, fit+fit/8)
	default:
		guess = s.lo + int(int64(s.hi-s.lo)*(MaxSize-s.loSize)/(s.hiSize-s.loSize))
	}
	return max(s.lo+1, min(guess, s.hi-1))
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
