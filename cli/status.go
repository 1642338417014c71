package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/english"
	"feeddigest/render"
)

// The feeds' and users' status as `status` prints it, laid out for the
// terminal's width, and as `run -summary` writes it in Markdown: the rows
// come from pipeline.Status, pipeline.Users and pipeline.MailStatus.

// statusReport is what `status` shows as of now, every time in zone.
type statusReport struct {
	now   time.Time
	zone  *time.Location
	whose string // the user whose time zone zone is; "" when none (UTC)
	feeds []render.FeedStatus
	users []render.UserStatus
	mail  []render.MailStatus
	// noState is said last before the first run made a state, "" after.
	noState string
	// fullDates writes every time with its year (the Markdown summary).
	fullDates bool
}

// writeStatus prints the report in lines of at most width columns: a
// header that names the time and the one time zone of every time shown,
// the feeds' counts, the feeds (one line each where the full table fits,
// else a table of the short facts with the long ones under each feed),
// the users' next digests, and the mail that did not go out.
func writeStatus(w io.Writer, rep statusReport, width int) error {
	var out []string
	say := func(lines ...string) { out = append(out, lines...) }
	zone := rep.zone.String()
	if rep.whose != "" {
		zone += " (" + rep.whose + "'s zone)"
	}
	say(wrap(fmt.Sprintf("Status at %s; times in %s.", rep.now.In(rep.zone).Format("Mon 2 Jan 2006 15:04 MST"), zone), "", "", width)...)
	say(wrap(render.StatusSummary(rep.feeds), "", "", width)...)
	if len(rep.feeds) > 0 {
		say("")
		say(feedLines(rep, width)...)
	}
	if len(rep.users) > 0 {
		say("")
		say(userLines(rep, width)...)
	}
	if len(rep.mail) > 0 {
		say("", "MAIL NOT SENT")
		for _, m := range rep.mail {
			say(wrap(ingest.OneLine(m.TextAt(rep.now, rep.when)), m.User+": ", "  ", width)...)
		}
	}
	if rep.noState != "" {
		say("")
		say(wrap(rep.noState, "", "", width)...)
	}
	for _, l := range out {
		if _, err := io.WriteString(w, strings.TrimRight(l, " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// when is a time as status shows it, in the report's zone: "23 Nov
// 00:00" in the year of now, "2027-11-23 00:00" in another.
func (rep statusReport) when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	t = t.In(rep.zone)
	if t.Year() == rep.now.In(rep.zone).Year() && !rep.fullDates {
		return t.Format("2 Jan 15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// feedFacts are one feed's facts as status prints them: the short ones
// that a table column holds, and the long ones.
type feedFacts struct {
	name, state, lastPoll, http, nextPoll, errors string
	url, moved                                    string // url: "" when name is the URL
	problem, why, server                          string
	errorCount                                    int
}

func factsOf(r render.FeedStatus, rep statusReport) feedFacts {
	f := feedFacts{
		name: ingest.OneLine(r.Title), state: stateLabel(r.State), lastPoll: rep.when(r.LastPoll), http: "-",
		nextPoll: nextPollLabel(r, rep), errors: fmt.Sprint(r.ErrorCount), errorCount: r.ErrorCount,
		url: ingest.OneLine(r.URL), moved: ingest.OneLine(r.EffectiveURL),
		problem: ingest.OneLine(r.LastError), why: ingest.OneLine(r.Reason), server: ingest.OneLine(r.Server),
	}
	if f.name == "" {
		f.name, f.url = f.url, ""
	}
	if r.LastPoll.IsZero() {
		f.lastPoll = "never"
	}
	if r.LastStatus != 0 {
		f.http = fmt.Sprint(r.LastStatus)
	}
	return f
}

// stateLabel is a feed's state in a column: a feed moved to another site
// is said to be in a word, and why under it (its why).
func stateLabel(s domain.FeedState) string {
	if s == domain.FeedMovedAway {
		return "moved?"
	}
	return string(s)
}

// nextPollLabel says when a feed may be polled again: never for a gone or
// dead feed, "due" once that time has come, and for a feed without a
// deadline with its subscribers' next digest.
func nextPollLabel(r render.FeedStatus, rep statusReport) string {
	switch {
	case r.State.Stopped():
		return "never"
	case r.NextPoll.IsZero():
		return "next digest"
	case !r.NextPoll.After(rep.now):
		return "due"
	}
	return rep.when(r.NextPoll)
}

// feedLines are the feeds' lines: the full table, one line a feed, when
// it fits width; else the short facts as a table, the feed's name cut to
// fit (and the columns that fit least left out, said under the feed
// instead), and under each feed its URL, problem, next poll's reason and
// server, wrapped.
func feedLines(rep statusReport, width int) []string {
	facts := make([]feedFacts, len(rep.feeds))
	for i, r := range rep.feeds {
		facts[i] = factsOf(r, rep)
	}
	if lines, ok := fullFeedTable(facts, width); ok {
		return lines
	}
	return narrowFeedTable(facts, width)
}

// fullFeedTable is every fact of every feed in a column, false when that
// is wider than width.
func fullFeedTable(facts []feedFacts, width int) ([]string, bool) {
	titled := false
	for _, f := range facts {
		titled = titled || f.url != ""
	}
	cols := []column{{head: "FEED"}}
	if titled {
		cols = append(cols, column{head: "URL"})
	}
	cols = append(cols, column{head: "STATE"}, column{head: "LAST POLL"}, column{head: "HTTP"}, column{head: "NEXT POLL"},
		column{head: "ERRORS", right: true}, column{head: "WHY"}, column{head: "SERVER"})
	rows := make([][]string, len(facts))
	for i, f := range facts {
		url := f.url
		if f.moved != "" {
			url = strings.TrimPrefix(url+" -> "+f.moved, " -> ")
		}
		row := []string{f.name}
		if titled {
			row = append(row, url)
		} else if f.moved != "" {
			row[0] += " -> " + f.moved
		}
		why := f.problem
		if f.why != "" {
			why = strings.TrimPrefix(why+"; "+f.why, "; ")
		}
		rows[i] = append(row, f.state, f.lastPoll, f.http, f.nextPoll, f.errors, why, f.server)
	}
	t := table{cols: cols, rows: rows}
	widths := t.naturalWidths()
	if t.lineWidth(widths) > width {
		return nil, false
	}
	head, body := t.lines(widths)
	for _, r := range body {
		head = append(head, r...)
	}
	return head, true
}

// narrowFeedTable is the short facts in columns, the long ones under each
// feed. The name's column takes what the others leave it, at least
// minName columns: to keep that, the columns HTTP, LAST POLL and ERRORS
// are left out, in that order, and said under the feed.
func narrowFeedTable(facts []feedFacts, width int) []string {
	const minName = 20
	optional := []string{"HTTP", "LAST POLL", "ERRORS"} // left out first to last
	shown := map[string]bool{"HTTP": true, "LAST POLL": true, "ERRORS": true}
	var t table
	var widths []int
	for dropped := 0; ; dropped++ {
		t = shortFeedTable(facts, shown)
		widths = t.naturalWidths()
		widths[0] = 0
		room := width - t.lineWidth(widths)
		if room >= minName || dropped == len(optional) {
			widths[0] = min(max(room, 4), t.naturalWidths()[0])
			break
		}
		shown[optional[dropped]] = false
	}
	for i, f := range facts {
		if f.url == "" && textWidth(f.name) > widths[0] {
			// A URL for a name: cut in its middle, and shown whole under it.
			t.rows[i][0], facts[i].url = cutURL(f.name, widths[0]), f.name
		}
	}
	head, body := t.lines(widths)
	out := head
	for i, f := range facts {
		out = append(out, body[i]...)
		out = append(out, feedDetails(f, shown, width)...)
	}
	return out
}

// shortFeedTable is the table of the short facts, its columns those of
// shown.
func shortFeedTable(facts []feedFacts, shown map[string]bool) table {
	cols := []column{{head: "FEED", cut: true}, {head: "STATE"}}
	if shown["LAST POLL"] {
		cols = append(cols, column{head: "LAST POLL"})
	}
	if shown["HTTP"] {
		cols = append(cols, column{head: "HTTP"})
	}
	cols = append(cols, column{head: "NEXT POLL"})
	if shown["ERRORS"] {
		cols = append(cols, column{head: "ERRORS", right: true})
	}
	rows := make([][]string, len(facts))
	for i, f := range facts {
		row := []string{f.name, f.state}
		if shown["LAST POLL"] {
			row = append(row, f.lastPoll)
		}
		if shown["HTTP"] {
			row = append(row, f.http)
		}
		row = append(row, f.nextPoll)
		if shown["ERRORS"] {
			row = append(row, f.errors)
		}
		rows[i] = row
	}
	return table{cols: cols, rows: rows}
}

// feedDetails are the lines under a feed's row: its URL (cut in its
// middle to fit) where the row names it by title, where it moved, the
// facts of the columns left out, its problem, why its next poll is when
// it is, and what was learned of its server.
func feedDetails(f feedFacts, shown map[string]bool, width int) []string {
	const indent = "  "
	var out []string
	if f.url != "" {
		out = append(out, indent+cutURL(f.url, width-len(indent)))
	}
	if f.moved != "" {
		out = append(out, indent+"now "+cutURL(f.moved, width-len(indent)-4))
	}
	var left []string // the facts of the columns left out
	if !shown["LAST POLL"] {
		left = append(left, f.lastPoll)
	}
	if !shown["HTTP"] && f.http != "-" {
		left = append(left, "HTTP "+f.http)
	}
	if !shown["ERRORS"] && f.errorCount > 0 {
		left = append(left, english.Count(f.errorCount, "error")+" in a row")
	}
	labelled := func(label, text string) {
		if text != "" {
			out = append(out, wrap(text, indent+label+": ", indent+"    ", width)...)
		}
	}
	labelled("last poll", strings.Join(left, ", "))
	labelled("error", f.problem)
	labelled("next poll", f.why)
	labelled("server", f.server)
	return out
}

// userLines are the users' rhythms and next digests, a line each, the
// rhythm wrapped in its column where the line would not fit.
func userLines(rep statusReport, width int) []string {
	t := table{cols: []column{{head: "USER", cut: true}, {head: "RHYTHM", wrap: true}, {head: "NEXT DIGEST"}}}
	for _, u := range rep.users {
		next := "due"
		if !u.Due && !u.NextDigest.IsZero() {
			next = rep.when(u.NextDigest)
		}
		t.rows = append(t.rows, []string{u.Name, u.Rhythm, next})
	}
	widths := t.naturalWidths()
	widths[0] = min(widths[0], 16)
	if over := t.lineWidth(widths) - width; over > 0 {
		widths[1] = max(widths[1]-over, 12)
	}
	head, body := t.lines(widths)
	for _, r := range body {
		head = append(head, r...)
	}
	return head
}

// column is a column of a table: its heading, whether its cells align
// right (numbers), and what becomes of a cell wider than the column: cut
// (with "…"), wrapped onto more lines, or (neither) left wide.
type column struct {
	head      string
	right     bool
	cut, wrap bool
}

type table struct {
	cols []column
	rows [][]string
}

const columnGap = "  "

// naturalWidths are the columns' widths that hold every cell.
func (t table) naturalWidths() []int {
	w := make([]int, len(t.cols))
	for i, c := range t.cols {
		w[i] = textWidth(c.head)
	}
	for _, r := range t.rows {
		for i, cell := range r {
			w[i] = max(w[i], textWidth(cell))
		}
	}
	return w
}

// lineWidth is the width of a line with the columns at widths.
func (t table) lineWidth(widths []int) int {
	n := len(columnGap) * (len(widths) - 1)
	for _, w := range widths {
		n += w
	}
	return n
}

// lines lays the table out with the columns at widths: the heading's line
// and each row's lines (more than one where a wrapped cell needs them).
func (t table) lines(widths []int) (head []string, rows [][]string) {
	heads := make([]string, len(t.cols))
	for i, c := range t.cols {
		heads[i] = c.head
	}
	head = []string{t.line(heads, widths)}
	for _, r := range t.rows {
		cells := make([][]string, len(r))
		height := 1
		for i, cell := range r {
			switch c := t.cols[i]; {
			case c.wrap && textWidth(cell) > widths[i]:
				cells[i] = wrap(cell, "", "", widths[i])
			case c.cut:
				cells[i] = []string{cutEnd(cell, widths[i])}
			default:
				cells[i] = []string{cell}
			}
			height = max(height, len(cells[i]))
		}
		var lines []string
		for k := range height {
			line := make([]string, len(r))
			for i := range r {
				if k < len(cells[i]) {
					line[i] = cells[i][k]
				}
			}
			lines = append(lines, t.line(line, widths))
		}
		rows = append(rows, lines)
	}
	return head, rows
}

// line is one line of cells, padded to widths.
func (t table) line(cells []string, widths []int) string {
	var b strings.Builder
	for i, cell := range cells {
		if i > 0 {
			b.WriteString(columnGap)
		}
		pad := strings.Repeat(" ", max(widths[i]-textWidth(cell), 0))
		if t.cols[i].right {
			b.WriteString(pad + cell)
		} else {
			b.WriteString(cell + pad)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// writeStatusMarkdown writes the rows as a GitHub-flavoured Markdown
// table under a heading, for a CI job's summary page, its times in UTC
// (as the summary's pass time).
func writeStatusMarkdown(w io.Writer, rows []render.FeedStatus, now time.Time) error {
	rep := statusReport{now: now, zone: time.UTC, fullDates: true}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Feeds\n\n%s\n", mdEscape(render.StatusSummary(rows)))
	if len(rows) > 0 {
		b.WriteString("\n| Feed | State | Last poll | Status | Next poll | Errors | Why | Server |\n| --- | --- | --- | --- | --- | ---: | --- | --- |\n")
		for _, r := range rows {
			f := factsOf(r, rep)
			feed := f.name
			if f.url != "" {
				feed += " (" + f.url + ")"
			}
			if f.moved != "" {
				feed += " -> " + f.moved
			}
			why := f.problem
			if f.why != "" {
				why = strings.TrimPrefix(why+"; "+f.why, "; ")
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
				mdEscape(feed), mdEscape(string(r.State)), f.lastPoll, f.http, f.nextPoll, f.errors, mdEscape(why), mdEscape(f.server))
		}
		b.WriteString("\nTimes are in UTC.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
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
