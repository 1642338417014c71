package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"feeddigest/internal/english"
	"feeddigest/pipeline"
)

// progressPrinter reports a pass's progress on w: a progress bar when w
// is a terminal, plain lines otherwise (a CI log, a cron mail).
func progressPrinter(w io.Writer) func(pipeline.Event) {
	if isTerminal(w) {
		return progressBar(w)
	}
	return plainProgress(w)
}

// isTerminal says whether w is a terminal, where a line may be drawn
// again in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar draws one bar for the polls and prints the other events
// as lines under it.
func progressBar(w io.Writer) func(pipeline.Event) {
	var bar *progressbar.ProgressBar
	return func(e pipeline.Event) {
		switch {
		case e.Kind == pipeline.EventDue && e.Total > 0:
			bar = progressbar.NewOptions(e.Total, progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("polling"), progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish())
		case e.Kind == pipeline.EventPolled && bar != nil:
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

func plainProgress(w io.Writer) func(pipeline.Event) {
	return func(e pipeline.Event) {
		switch e.Kind {
		case pipeline.EventDue:
			if e.Total > 0 {
				fmt.Fprintf(w, "polling %s\n", english.Count(e.Total, "feed"))
			}
		case pipeline.EventPolled:
			if e.Done == e.Total || e.Done%progressEvery == 0 {
				fmt.Fprintf(w, "polled %d/%s (%d failed)\n", e.Done, english.Count(e.Total, "feed"), e.Failed)
			}
		case pipeline.EventDigest:
			fmt.Fprintf(w, "digest built: %s\n", e.Detail)
		case pipeline.EventSent:
			fmt.Fprintf(w, "digest sent: %s\n", e.Detail)
		}
	}
}

const progressEvery = 50

// writeSummary prints what a pass did, on one screen.
func writeSummary(w io.Writer, s pipeline.Summary) error {
	_, err := fmt.Fprintf(w, `feeddigest pass at %s
  users due      %d
  feeds polled   %d (new content %d, unchanged %d, failed %d)
  requests       %d, %s received
  entries        %d first seen, %d in the digests built
  digests built  %d, pages written %d
`, s.Now.Format("2006-01-02 15:04:05Z07:00"), s.UsersDue, s.FeedsPolled, s.Fresh, s.Unchanged, s.Failed,
		s.Requests, english.Count(int(s.Bytes), "byte"), s.NewEntries, s.DigestEntries, s.DigestsBuilt, s.PagesWritten)
	if err != nil {
		return err
	}
	if err := writeMailSummary(w, s); err != nil {
		return err
	}
	if s.Articles > 0 {
		// Whole articles of full_text feeds: their requests are counted above.
		if _, err := fmt.Fprintf(w, "  article pages  %d asked, %d read whole\n", s.Articles, s.ArticlesRead); err != nil {
			return err
		}
	}
	for _, e := range s.FeedErrors {
		if _, err := fmt.Fprintf(w, "  feed error: %s\n", e); err != nil {
			return err
		}
	}
	for _, u := range s.Waiting {
		if _, err := fmt.Fprintf(w, "  waiting: %s\n", u); err != nil {
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

// writeMailSummary says where the pass's emails went: the outbox, named,
// and what was mailed only when a mail server is set, so that an email
// written to the outbox never reads as "sent 0", a failure.
func writeMailSummary(w io.Writer, s pipeline.Summary) error {
	if s.Outbox != "" {
		unsent := ""
		if !s.MailServer {
			unsent = " (no smtp set: none mailed)"
		}
		if _, err := fmt.Fprintf(w, "  outbox         %s written to %s%s\n", english.Count(s.OutboxWritten, "email"), s.Outbox, unsent); err != nil {
			return err
		}
	}
	if s.MailServer {
		if _, err := fmt.Fprintf(w, "  emails sent    %d (failed %d)\n", s.EmailsSent, s.SendFailures); err != nil {
			return err
		}
	}
	return nil
}

// writeSummaryMarkdown writes what a pass did as GitHub-flavoured
// Markdown: a heading that says the outcome, then the figures.
func writeSummaryMarkdown(w io.Writer, s pipeline.Summary) error {
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
	if s.Articles > 0 {
		row("article pages asked, read whole", fmt.Sprintf("%d, %d", s.Articles, s.ArticlesRead))
	}
	row("bytes received", s.Bytes)
	row("entries first seen", s.NewEntries)
	row("entries in the digests built", s.DigestEntries)
	row("digests built", s.DigestsBuilt)
	row("pages written", s.PagesWritten)
	if s.Outbox != "" {
		row("emails written to the outbox, "+mdEscape(s.Outbox), s.OutboxWritten)
	}
	if s.MailServer {
		row("emails sent", s.EmailsSent)
		row("emails failed (retried next run)", s.SendFailures)
	}
	if len(s.FeedErrors) > 0 {
		fmt.Fprintf(&b, "\n%s in this pass:\n\n", english.Count(len(s.FeedErrors), "feed error"))
		for _, e := range s.FeedErrors {
			fmt.Fprintf(&b, "- %s\n", mdEscape(e))
		}
	}
	if len(s.SameFeeds) > 0 {
		b.WriteString("\nFeeds listed twice (read once):\n\n")
		for _, w := range s.SameFeeds {
			fmt.Fprintf(&b, "- %s\n", mdEscape(w))
		}
	}
	if len(s.Waiting) > 0 {
		b.WriteString("\nFirst digests waiting for a feed that reads:\n\n")
		for _, u := range s.Waiting {
			fmt.Fprintf(&b, "- %s\n", mdEscape(u))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFailureMarkdown says in Markdown that a pass could not complete,
// and why.
func writeFailureMarkdown(w io.Writer, runErr error) error {
	_, err := fmt.Fprintf(w, "## feeddigest: the pass failed\n\n%s\n\n", mdEscape(runErr.Error()))
	return err
}
