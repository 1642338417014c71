package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"feeddigest/cli/demo"
	"feeddigest/config"
	"feeddigest/internal/english"
	"feeddigest/pages"
	"feeddigest/pipeline"
	"feeddigest/render"
)

// runCmd: `feeddigest run`, the hourly pass.
func runCmd(ctx context.Context, inv *invocation) error {
	cfg, err := inv.loadConfigWarn()
	var sum *pipeline.Summary
	if err == nil {
		sum, err = pass(ctx, inv, cfg)
	}
	if inv.opts.summary != "" {
		if serr := appendSummary(ctx, inv.opts.summary, cfg, sum, err); err == nil {
			err = serr
		}
	}
	return err
}

// pass runs the pipeline once and prints its summary. The summary is
// returned also when the pass failed half-way.
func pass(ctx context.Context, inv *invocation, cfg *config.Config) (*pipeline.Summary, error) {
	now, err := clock(inv.opts.now)
	if err != nil {
		return nil, err
	}
	level := slog.LevelWarn
	if inv.opts.verbose {
		level = slog.LevelInfo
	}
	opts := pipeline.Options{
		Now:          now,
		Log:          slog.New(slog.NewTextHandler(inv.stderr, &slog.HandlerOptions{Level: level})),
		SMTPPassword: os.Getenv("FEEDDIGEST_SMTP_PASSWORD"),
		Progress:     progressPrinter(inv.stderr),
		Lease:        inv.opts.lease,
	}
	sum, err := pipeline.Run(ctx, cfg, opts)
	// Found by the polls, said as the config's own warnings are.
	for _, w := range sum.SameFeeds {
		fmt.Fprintf(inv.stderr, "feeddigest: warning: %s\n", w)
	}
	if err != nil {
		return &sum, err
	}
	if inv.opts.json {
		enc := json.NewEncoder(inv.stdout)
		enc.SetIndent("", "  ")
		return &sum, enc.Encode(sum)
	}
	return &sum, writeSummary(inv.stdout, sum)
}

// appendSummary appends to file, as Markdown, what the pass did (or why
// it failed) and the feeds' health. GitHub's $GITHUB_STEP_SUMMARY is such
// a file: it is shown on the run's page.
func appendSummary(ctx context.Context, file string, cfg *config.Config, sum *pipeline.Summary, runErr error) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("-summary: %w", err)
	}
	err = writeMarkdownSummary(ctx, f, cfg, sum, runErr)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("-summary %s: %w", file, err)
	}
	return nil
}

func writeMarkdownSummary(ctx context.Context, w io.Writer, cfg *config.Config, sum *pipeline.Summary, runErr error) error {
	if runErr != nil {
		if err := writeFailureMarkdown(w, runErr); err != nil {
			return err
		}
	}
	if sum != nil && !sum.Now.IsZero() {
		if err := writeSummaryMarkdown(w, *sum); err != nil {
			return err
		}
	}
	if cfg == nil {
		return nil // no config: no state to show
	}
	now := time.Now()
	if sum != nil && !sum.Now.IsZero() {
		now = sum.Now
	}
	rows, err := feedRows(ctx, cfg, now)
	if err != nil {
		_, err = fmt.Fprintf(w, "\nFeed status unavailable: %s\n", errorText(err))
		return err
	}
	return writeStatusMarkdown(w, rows, now)
}

// nowForms says what -now takes, in the flags' help.
const nowForms = "RFC 3339, or a date: that day at 00:00 UTC"

// clock is the time a pass uses: -now when given, else the wall clock.
//
// A plain date is that day at 00:00 UTC, not in the machine's zone: one
// pass decides for users in many zones, each seeing the instant in their
// own, so the instant must not depend on the machine that runs the
// command (a laptop, a CI runner): 2026-11-30 replays the same pass
// everywhere. A local time is written with its offset
// (2026-11-30T00:00:00+01:00).
func clock(nowFlag string) (time.Time, error) {
	if nowFlag == "" {
		return time.Now(), nil
	}
	if now, err := time.Parse(time.RFC3339, nowFlag); err == nil {
		return now, nil
	}
	if day, err := time.Parse(time.DateOnly, nowFlag); err == nil {
		return day, nil // UTC: time.Parse without a zone
	}
	return time.Time{}, fmt.Errorf("-now %q is neither an RFC 3339 time (2026-11-30T06:00:00Z, 2026-11-30T07:00:00+01:00) "+
		"nor a date (2026-11-30, that day at 00:00 UTC)", nowFlag)
}

// statusCmd: `feeddigest status`. Before the first run there is no
// state file: then the config's feeds are listed as new.
func statusCmd(ctx context.Context, inv *invocation) error {
	now, err := clock(inv.opts.now)
	if err != nil {
		return err
	}
	cfg, err := inv.loadConfigWarn()
	if err != nil {
		return err
	}
	rep := statusReport{now: now, zone: time.UTC}
	if len(cfg.Users) > 0 && cfg.Users[0].Location != nil {
		rep.zone, rep.whose = cfg.Users[0].Location, cfg.Users[0].Name
	}
	if rep.feeds, err = feedRows(ctx, cfg, now); err != nil {
		return err
	}
	if rep.users, err = pipeline.Users(ctx, cfg, now); err != nil {
		return err
	}
	if !pipeline.HasState(ctx, cfg) {
		what := "state file"
		if cfg.StateIsPostgres() {
			what = "state in the database"
		}
		rep.noState = fmt.Sprintf("No %s yet (%s): %s not polled yet; `%s run` polls them.",
			what, cfg.State, english.Count(len(rep.feeds), "feed"), progName)
	} else if rep.mail, err = pipeline.MailStatus(ctx, cfg, now); err != nil {
		return err
	}
	return writeStatus(inv.stdout, rep, terminalWidth(inv.stdout, os.Getenv))
}

// feedRows is the feeds' health from the state file, or, before the
// first run made one, the config's feeds, each new.
func feedRows(ctx context.Context, cfg *config.Config, now time.Time) ([]render.FeedStatus, error) {
	if !pipeline.HasState(ctx, cfg) {
		return pages.UnpolledRows(cfg, now), nil
	}
	return pipeline.Status(ctx, cfg, now)
}

// demoCmd: `feeddigest demo`.
func demoCmd(ctx context.Context, inv *invocation) error {
	return demo.Run(ctx, demo.Feeds, inv.opts.out, progName, inv.stdout)
}
