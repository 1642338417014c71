// Command feeddigest builds one calm digest a day of the feeds each user
// follows: a static HTML page and an email, from an hourly cron or CI job.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"feeddigest/config"
	"feeddigest/demo"
	"feeddigest/pipeline"
)

const usage = `feeddigest: one calm digest a day of the feeds you follow.

Usage:
  feeddigest run -config FILE [-now TIME] [-v] [-json]
      One scheduled pass; run it every hour from cron or CI. Polls the feeds
      of users whose digest hour has come (politely), builds their digests,
      writes the pages, the outbox and sends mail. TIME (RFC 3339) replaces
      the clock, e.g. -now 2026-11-22T00:05:00Z.
  feeddigest status -config FILE
      A table of feeds: last poll, status, next allowed poll, errors, why.
  feeddigest check -config FILE
      Validates the config, then polls each feed once and shows what it
      found: status, format, title, entries, validators, freshness hints,
      redirects, Retry-After or the error. Opens no state and writes
      nothing. Exit 0 when every feed answered with a feed; 1 when the
      config is invalid or any feed failed.
  feeddigest import -config FILE -user NAME OPMLFILE
      Adds the http(s) feeds of an OPML file to NAME's feeds in FILE,
      keeping its comments and layout; lists what was added and skipped.
  feeddigest export -config FILE [-user NAME]
      Writes OPML on stdout: NAME's feeds, or every user's (a folder each),
      titled from the state file when there is one.
  feeddigest demo [-out DIR]
      The whole pipeline offline, on sample feeds served on 127.0.0.1.
      Start here.

See README.md and config.example.toml.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		err = runCmd(ctx, rest, stdout, stderr)
	case "status":
		err = statusCmd(ctx, rest, stdout, stderr)
	case "demo":
		err = demoCmd(ctx, rest, stdout, stderr)
	case "check":
		err = checkCmd(ctx, rest, stdout, stderr)
	case "import":
		err = importCmd(ctx, rest, stdout, stderr)
	case "export":
		err = exportCmd(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "feeddigest: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	var cfgErr *config.Error
	if errors.As(err, &cfgErr) && len(cfgErr.Problems) > 1 {
		fmt.Fprintf(stderr, "feeddigest: %s in the configuration:\n", cfgErr.Count())
	}
	fmt.Fprintf(stderr, "feeddigest: %v\n", err)
	return 1
}

var errUsage = errors.New("usage")

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage of feeddigest %s:\n", name)
		fs.PrintDefaults()
	}
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	return nil
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	cfgPath := fs.String("config", "", "configuration file (TOML)")
	nowFlag := fs.String("now", "", "RFC 3339 time to use instead of the clock")
	verbose := fs.Bool("v", false, "log each step (log/slog) on stderr")
	asJSON := fs.Bool("json", false, "print the summary as JSON on stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, now, err := loadConfigAndClock(*cfgPath, *nowFlag)
	if err != nil {
		return err
	}
	printWarnings(stderr, cfg)
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	opts := pipeline.Options{
		Now:          now,
		Log:          slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		SMTPPassword: os.Getenv("FEEDDIGEST_SMTP_PASSWORD"),
		Progress:     pipeline.ProgressPrinter(stderr),
	}
	sum, err := pipeline.Run(ctx, cfg, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return pipeline.WriteSummary(stdout, sum)
}

func loadConfigAndClock(path, nowFlag string) (*config.Config, time.Time, error) {
	if path == "" {
		return nil, time.Time{}, errors.New("-config FILE is required")
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	now := time.Now()
	if nowFlag != "" {
		if now, err = time.Parse(time.RFC3339, nowFlag); err != nil {
			return nil, time.Time{}, fmt.Errorf("-now %q is not an RFC 3339 time (like 2026-11-22T00:05:00Z)", nowFlag)
		}
	}
	return cfg, now, nil
}

// configOnly parses the flags of a command whose only flag is -config,
// and loads the configuration.
func configOnly(name string, args []string, stderr io.Writer) (*config.Config, time.Time, error) {
	fs := newFlags(name, stderr)
	cfgPath := fs.String("config", "", "configuration file (TOML)")
	if err := parseFlags(fs, args); err != nil {
		return nil, time.Time{}, err
	}
	cfg, now, err := loadConfigAndClock(*cfgPath, "")
	if err == nil {
		printWarnings(stderr, cfg)
	}
	return cfg, now, err
}

// printWarnings shows what in the configuration does not stop a command
// but may surprise (a user without feeds). Commands that only read or
// edit the feeds lists (export, import) leave them out.
func printWarnings(stderr io.Writer, cfg *config.Config) {
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "feeddigest: warning: %s\n", w)
	}
}

func statusCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, now, err := configOnly("status", args, stderr)
	if err != nil {
		return err
	}
	rows, err := pipeline.Status(ctx, cfg, now)
	if err != nil {
		return err
	}
	if err := pipeline.WriteStatusTable(stdout, rows); err != nil {
		return err
	}
	mail, err := pipeline.MailStatus(ctx, cfg, now)
	if err != nil {
		return err
	}
	return pipeline.WriteMailStatus(stdout, mail, now)
}

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stderr)
	out := fs.String("out", "feeddigest-demo", "folder for the demo's config, state, site and outbox")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return demo.Run(ctx, demoFeeds, *out, stdout)
}
