package pipeline

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
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
		case e.Kind == "due" && e.Total > 0:
			bar = progressbar.NewOptions(e.Total, progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("polling"), progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish())
		case e.Kind == "polled" && bar != nil:
			bar.Describe(fmt.Sprintf("polling (%d failed)", e.Failed))
			bar.Set(e.Done)
			if e.Done == e.Total {
				bar.Finish()
				fmt.Fprintf(w, "polled %d feeds (%d failed)\n", e.Total, e.Failed)
			}
		default:
			plainProgress(w)(e)
		}
	}
}

func plainProgress(w io.Writer) func(Event) {
	return func(e Event) {
		switch e.Kind {
		case "due":
			if e.Total > 0 {
				fmt.Fprintf(w, "polling %d feeds\n", e.Total)
			}
		case "polled":
			if e.Done == e.Total || e.Done%progressEvery == 0 {
				fmt.Fprintf(w, "polled %d/%d feeds (%d failed)\n", e.Done, e.Total, e.Failed)
			}
		case "digest":
			fmt.Fprintf(w, "digest built: %s\n", e.Detail)
		case "sent":
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
  requests       %d, %d bytes received
  new entries    %d
  digests built  %d, pages written %d
  emails sent    %d (failed %d)
`, s.Now.Format("2006-01-02 15:04:05Z07:00"), s.UsersDue, s.FeedsPolled, s.Fresh, s.Unchanged, s.Failed,
		s.Requests, s.Bytes, s.NewEntries, s.DigestsBuilt, s.PagesWritten, s.EmailsSent, s.SendFailures)
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
