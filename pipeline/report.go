package pipeline

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"feeddigest/internal/english"
)

// ProgressPrinter reports a pass's progress on w: a progress bar when w
// is a terminal, plain lines otherwise (a CI log, a cron mail).
func ProgressPrinter(w io.Writer) func(Event) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return progressBar(w)
	}
	return plainProgress(w)
}

// progressBar draws one bar for the polls and prints the other events
// as lines under it.
func progressBar(w io.Writer) func(Event) {
	var bar *progressbar.ProgressBar
	return func(e Event) {
		switch {
		case e.Kind == EventDue && e.Total > 0:
			bar = progressbar.NewOptions(e.Total, progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("polling"), progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish())
		case e.Kind == EventPolled && bar != nil:
			bar.Describe(fmt.Sprintf("polling (%d failed)", e.Failed))
			bar.Set(e.Done)
			if e.Done == e.Total {
				bar.Finish()
				fmt.Fprintf(w, "polled %s (%d failed)\n", english.Count(e.Total, "feed"), e.Failed)
			}
		default:
			plainProgress(w)(e)
		}
	}
}

func plainProgress(w io.Writer) func(Event) {
	return func(e Event) {
		switch e.Kind {
		case EventDue:
			if e.Total > 0 {
				fmt.Fprintf(w, "polling %s\n", english.Count(e.Total, "feed"))
			}
		case EventPolled:
			if e.Done == e.Total || e.Done%progressEvery == 0 {
				fmt.Fprintf(w, "polled %d/%s (%d failed)\n", e.Done, english.Count(e.Total, "feed"), e.Failed)
			}
		case EventDigest:
			fmt.Fprintf(w, "digest built: %s\n", e.Detail)
		case EventSent:
			fmt.Fprintf(w, "digest sent: %s\n", e.Detail)
		}
	}
}

const progressEvery = 50

// WriteSummary prints what a pass did, on one screen.
func WriteSummary(w io.Writer, s Summary) error {
	_, err := fmt.Fprintf(w, `feeddigest pass at %s
  users due      %d
  feeds polled   %d (new content %d, unchanged %d, failed %d)
  requests       %d, %s received
  new entries    %d
  digests built  %d, pages written %d
  emails sent    %d (failed %d)
`, s.Now.Format("2006-01-02 15:04:05Z07:00"), s.UsersDue, s.FeedsPolled, s.Fresh, s.Unchanged, s.Failed,
		s.Requests, english.Count(int(s.Bytes), "byte"), s.NewEntries, s.DigestsBuilt, s.PagesWritten, s.EmailsSent, s.SendFailures)
	if err != nil {
		return err
	}
	for _, e := range s.FeedErrors {
		if _, err := fmt.Fprintf(w, "  feed error: %s\n", e); err != nil {
			return err
		}
	}
	for _, m := range s.MailProblems {
		if _, err := fmt.Fprintf(w, "  mail not sent: %s\n", m); err != nil {
			return err
		}
	}
	return nil
}

// WriteSummaryMarkdown writes what a pass did as GitHub-flavoured
// Markdown: a heading that says the outcome, then the figures.
func WriteSummaryMarkdown(w io.Writer, s Summary) error {
	var b strings.Builder
	headline := "nothing was due"
	switch {
	case s.DigestsBuilt > 0:
		headline = english.Count(s.DigestsBuilt, "digest") + " built"
	case s.FeedsPolled > 0:
		headline = english.Count(s.FeedsPolled, "feed") + " polled"
	}
	fmt.Fprintf(&b, "## feeddigest: %s\n\nPass at %s.\n\n", headline, s.Now.UTC().Format("2006-01-02 15:04 UTC"))
	b.WriteString("| | |\n| --- | ---: |\n")
	row := func(label string, value any) { fmt.Fprintf(&b, "| %s | %v |\n", label, value) }
	row("users due", s.UsersDue)
	row("feeds polled", s.FeedsPolled)
	row("with new content", s.Fresh)
	row("unchanged", s.Unchanged)
	row("failed", s.Failed)
	row("requests", s.Requests)
	row("bytes received", s.Bytes)
	row("new entries", s.NewEntries)
	row("digests built", s.DigestsBuilt)
	row("pages written", s.PagesWritten)
	row("emails sent", s.EmailsSent)
	row("emails failed (retried next run)", s.SendFailures)
	if len(s.FeedErrors) > 0 {
		fmt.Fprintf(&b, "\n%s in this pass:\n\n", english.Count(len(s.FeedErrors), "feed error"))
		for _, e := range s.FeedErrors {
			fmt.Fprintf(&b, "- %s\n", mdEscape(e))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFailureMarkdown says in Markdown that a pass could not complete,
// and why.
func WriteFailureMarkdown(w io.Writer, runErr error) error {
	_, err := fmt.Fprintf(w, "## feeddigest: the pass failed\n\n%s\n\n", mdEscape(runErr.Error()))
	return err
}
