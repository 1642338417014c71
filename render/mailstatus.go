package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/dustin/go-humanize/english"

	"feeddigest/ingest"
)

// MailStatus is one user's mail that did not go out: what is still to be
// sent and why it was not, and what was given up.
type MailStatus struct {
	User       string
	Unsent     []string  // dates of the digests still to be sent, oldest first
	LastError  string    // why the last attempt failed; "" when none has
	Permanent  bool      // that failure was permanent (a 5xx answer, a refused login)
	Attempts   int       // failed attempts of the digest that failed last
	OnlyNewest bool      // after a permanent failure only the newest digest is tried, once a day
	NextTry    time.Time // when the next attempt may be made; zero or past: at the next run
	GivenUp    []string  // dates of digests given up lately
	GivenUpWhy string    // why the last of them was
	// Interrupted are dates whose send was cut off between the end of the
	// message's data and the server's answer: the mail may have gone, so
	// it is not sent again (a duplicate is worse).
	Interrupted []string
}

// Text says it in a few sentences, for the status table, status.html and
// the run summary.
func (m MailStatus) Text(now time.Time) string {
	return m.TextAt(now, func(t time.Time) string { return t.UTC().Format(statusLayout) })
}

// TextAt is Text with its time (the next try) written by when: `status`
// shows every time in one zone.
func (m MailStatus) TextAt(now time.Time, when func(time.Time) string) string {
	var parts []string
	if n := len(m.Unsent); n > 0 {
		s := fmt.Sprintf("%d %s not sent (%s)", n, english.PluralWord(n, "digest", "digests"), strings.Join(m.Unsent, ", "))
		switch {
		case m.LastError == "":
			s += ": not tried yet."
		case m.Permanent:
			s += fmt.Sprintf(": refused for good: %s.", oneLine(m.LastError))
		default:
			s += fmt.Sprintf(": a passing failure (%d %s): %s.", m.Attempts, english.PluralWord(m.Attempts, "attempt", "attempts"), oneLine(m.LastError))
		}
		if m.OnlyNewest {
			s += " Only the newest is tried, once a day, until one goes through;"
		}
		next := "next try at the next run."
		if m.NextTry.After(now) {
			next = "next try " + when(m.NextTry) + "."
		}
		if !m.OnlyNewest {
			next = strings.ToUpper(next[:1]) + next[1:]
		}
		parts = append(parts, s+" "+next)
	}
	if n := len(m.GivenUp); n > 0 {
		parts = append(parts, fmt.Sprintf("Given up: %s (%s); %s on the site.", strings.Join(m.GivenUp, ", "), m.GivenUpWhy,
			english.PluralWord(n, "its page is", "their pages are")))
	}
	if len(m.Interrupted) > 0 {
		parts = append(parts, fmt.Sprintf("May not have arrived (cut off before the mail server answered), not sent again to avoid a duplicate: %s.",
			strings.Join(m.Interrupted, ", ")))
	}
	return strings.Join(parts, " ")
}

// oneLine is a mail server's answer in a sentence of the page: no
// control characters, on one line, without its own full stop.
func oneLine(s string) string {
	return strings.TrimRight(ingest.OneLine(s), ".")
}
