package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"feeddigest/render"
)

// The feeds' and users' status as `status` prints it and as `run
// -summary` writes it in Markdown: the rows come from pipeline.Status,
// pipeline.Users and pipeline.MailStatus.

// writeUsersTable prints each user's rhythm and next digest (in the
// user's time) as an aligned text table.
func writeUsersTable(w io.Writer, users []render.UserStatus) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "USER\tRHYTHM\tNEXT DIGEST")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", u.Name, u.Rhythm, render.NextDigestLabel(u))
	}
	return tw.Flush()
}

// writeMailStatus prints a line per user whose mail did not go out,
// under a heading; nothing when all mail went out.
func writeMailStatus(w io.Writer, rows []render.MailStatus, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nMAIL NOT SENT")
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%s: %s\n", r.User, r.Text(now)); err != nil {
			return err
		}
	}
	return nil
}

// writeStatusTable prints the rows as an aligned text table. A next poll
// that is not after now reads "due".
func writeStatusTable(w io.Writer, rows []render.FeedStatus, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FEED\tSTATE\tLAST POLL\tSTATUS\tNEXT POLL\tERRORS\tWHY\tSERVER")
	for _, r := range rows {
		c := statusCells(r, now)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", c.feed, r.State, c.lastPoll, c.status, c.nextPoll, r.ErrorCount, c.why, r.Server)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, render.StatusSummary(rows))
	return err
}

// writeStatusMarkdown writes the rows as a GitHub-flavoured Markdown
// table under a heading, for a CI job's summary page.
func writeStatusMarkdown(w io.Writer, rows []render.FeedStatus, now time.Time) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Feeds\n\n%s\n", mdEscape(render.StatusSummary(rows)))
	if len(rows) > 0 {
		b.WriteString("\n| Feed | State | Last poll | Status | Next poll | Errors | Why | Server |\n| --- | --- | --- | --- | --- | ---: | --- | --- |\n")
		for _, r := range rows {
			c := statusCells(r, now)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %s | %s |\n",
				mdEscape(c.feed), mdEscape(string(r.State)), c.lastPoll, c.status, c.nextPoll, r.ErrorCount, mdEscape(c.why),
				mdEscape(r.Server))
		}
		b.WriteString("\nTimes are in UTC.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// statusCells are one feed's facts as the text and Markdown tables show
// them.
type cells struct{ feed, lastPoll, status, nextPoll, why string }

func statusCells(r render.FeedStatus, now time.Time) cells {
	c := cells{feed: r.URL, lastPoll: stamp(r.LastPoll), status: "-", nextPoll: nextPoll(r, now), why: r.Reason}
	if r.EffectiveURL != "" {
		c.feed += " -> " + r.EffectiveURL
	}
	if r.LastPoll.IsZero() {
		c.lastPoll = "never"
	}
	if r.LastStatus != 0 {
		c.status = fmt.Sprint(r.LastStatus)
	}
	switch {
	case r.LastError == "":
	case c.why == "":
		c.why = r.LastError
	default:
		c.why = r.LastError + "; " + c.why
	}
	return c
}

// nextPoll says when a feed may be polled again: never for a gone or
// dead feed, "due" once that time has come, and for a feed without a
// deadline at its subscribers' next digest.
func nextPoll(r render.FeedStatus, now time.Time) string {
	switch {
	case r.State.Stopped():
		return "never"
	case r.NextPoll.IsZero():
		return "when a subscriber is due"
	case !r.NextPoll.After(now):
		return "due"
	}
	return stamp(r.NextPoll)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// mdEscape makes feed-supplied text (URLs, error messages) plain text in
// a Markdown table cell: no formatting, links or HTML of its own, and no
// cell break.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#~!&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
