// Package cli is feeddigest's command layer: the table of commands
// (this file), their help and flag parsing, one file per command, the
// text they print (report.go, status.go) and the advice they add to
// errors (advice.go). States are opened by name (store.Open, through
// pipeline): which back ends exist is main's to register.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"feeddigest/config"
	"feeddigest/internal/english"
	"feeddigest/pipeline"
)

// command is one feeddigest command: what help says about it, the flags
// it takes, and what it does.
type command struct {
	name    string
	args    string // what follows [flags] in the synopsis; "" means no arguments
	summary string // one line in the command list
	about   string // what the command does, in a sentence or two
	example string // command lines, one per line
	// configArg: a lone positional argument names the config, as -config
	// does (feeddigest run my.toml).
	configArg bool
	flags     func(fs *flag.FlagSet, o *options) // nil: no flags
	run       func(ctx context.Context, inv *invocation) error
}

// options holds the flag values of one invocation. Each command's flags
// func binds the fields it takes, so no value outlives its invocation.
type options struct {
	config  string
	now     string
	verbose bool
	json    bool
	summary string
	out     string
	user    string
	lease   time.Duration
	to      string
}

// invocation is one command as it was typed.
type invocation struct {
	cmd            *command
	opts           options
	configGiven    bool     // -config or a positional config was given
	args           []string // positional arguments, the config's removed
	stdout, stderr io.Writer
}

const defaultConfig = "config.toml"

// commands is the one table of commands, in the order help lists them:
// first what a newcomer needs, then the hourly job, then the tools.
// (Filled in init: help's run reads the table.)
var commands []*command

func init() {
	commands = []*command{
		{
			name: "demo", summary: "the whole pipeline offline, on sample feeds: start here",
			about: "Serves sample feeds on 127.0.0.1, writes a config for three users (London, New York, Tokyo), " +
				"runs the real pipeline hour by hour over two simulated days, and prints where the pages and emails are. " +
				"Needs no network and no config.",
			example: "feeddigest demo\nfeeddigest demo -out /tmp/demo",
			flags: func(fs *flag.FlagSet, o *options) {
				fs.StringVar(&o.out, "out", "feeddigest-demo", "write the demo's config, state, site and outbox to `DIR` (one the demo made, or a new one)")
			},
			run: demoCmd,
		},
		{
			name: "init", args: "[URL...]", summary: "write a commented starter config: you, your time zone, your feeds",
			about: "Writes a commented starter config (config.toml unless -config names another file) that works as written: " +
				"one user named after your login, your machine's time zone, the feed URLs given, pages in site/ and " +
				"each digest email in outbox/ (nothing is mailed, nothing waits). It never overwrites a file.",
			example: "feeddigest init https://go.dev/blog/feed.atom https://xkcd.com/atom.xml\nfeeddigest init -config work.toml",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "write the config to `FILE`")
			},
			run: initCmd,
		},
		{
			name: "check", args: "[CONFIG]", configArg: true, summary: "validate a config and poll each feed once; writes nothing",
			about: "Validates the config, then polls each feed once (with the same client and limits as run) and shows, in the config's order, " +
				"what it found: status, format, title, entries, validators, freshness hints, redirects, Retry-After " +
				"or the error (a network failure in words, with what to do). Opens no state file and writes nothing. Exit 0 when every feed answered with a feed, " +
				"1 when the config is invalid or a feed failed.",
			example: "feeddigest check\nfeeddigest check my.toml",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "read the configuration from `FILE` (TOML)")
			},
			run: checkCmd,
		},
		{
			name: "run", args: "[CONFIG]", configArg: true, summary: "one scheduled pass: poll, build the digests that are due, write, mail",
			about: "One scheduled pass, the job to run every hour (cron, a systemd timer, GitHub Actions): polls, politely, " +
				"the feeds of the users whose digest hour has come, builds their digests, writes the pages and the outbox, " +
				"and sends mail. A second run in the same hour does nothing. Exit 0 when the pass completed, even if feeds failed. " +
				"With a PostgreSQL state, runs started at once (on one machine or many) share the pass instead of excluding each other.",
			example: "feeddigest run\nfeeddigest run -v my.toml\nfeeddigest run -now 2026-11-22T00:05:00Z -summary \"$GITHUB_STEP_SUMMARY\"",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "read the configuration from `FILE` (TOML)")
				fs.StringVar(&o.now, "now", "", "use `TIME` ("+nowForms+") instead of the clock for every decision")
				fs.BoolVar(&o.verbose, "v", false, "log each step (log/slog) on stderr")
				fs.BoolVar(&o.json, "json", false, "print the summary as JSON on stdout")
				fs.StringVar(&o.summary, "summary", "", "also append the summary and the feeds' status as Markdown to `FILE` (e.g. $GITHUB_STEP_SUMMARY)")
				fs.DurationVar(&o.lease, "lease", pipeline.DefaultLease, "with a PostgreSQL state, runs share each pass: a run that dies leaves its work "+
					"to the others after `DURATION`")
			},
			run: runCmd,
		},
		{
			name: "publish", args: "[CONFIG]", configArg: true, summary: "write the whole site from the state: every page, index, feed and status",
			about: "Writes the whole site from the state: every digest's page, each user's index.html and feed.xml, and " +
				"status.html, into site_dir or -out. Reads the state without changing it. For runs that share no disk " +
				"(several machines on one PostgreSQL state, a CI matrix): they build the digests, one publish writes the site.",
			example: "feeddigest publish\nfeeddigest publish -config my.toml -out public",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "read the configuration from `FILE` (TOML)")
				fs.StringVar(&o.out, "out", "", "write the site to `DIR` instead of the config's site_dir")
				fs.StringVar(&o.now, "now", "", "write the status page as at `TIME` ("+nowForms+") instead of the clock")
			},
			run: publishCmd,
		},
		{
			name: "migrate", args: "[CONFIG]", configArg: true, summary: "copy the SQLite state into an empty PostgreSQL database",
			about: "Copies the config's SQLite state (feeds and what was learned about them, entries, subscriptions, digests, " +
				"what each user was given) into an empty PostgreSQL database, in one transaction, holding the run lock " +
				"meanwhile. The next run with state set to that URL goes on where the last one stopped. The file is not changed. " +
				"The password comes from PGPASSWORD or ~/.pgpass, never the URL.",
			example: "feeddigest migrate -to postgres://feeddigest@db.example.org/feeddigest?sslmode=verify-full",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "read the configuration from `FILE` (TOML)")
				fs.StringVar(&o.to, "to", "", "copy into the empty PostgreSQL database at `URL` (postgres://user@host:port/db)")
			},
			run: migrateCmd,
		},
		{
			name: "status", args: "[CONFIG]", configArg: true, summary: "a table of the feeds' health, from the state file",
			about: "Prints the feeds by title (URL where there is none): URL (and the new URL after a permanent redirect), state, " +
				"last poll, HTTP status, next poll (\"due\" once it has passed), error count, the last error, why it waits and " +
				"what was learned of the server; then each user's rhythm and next digest. Every time is in one zone, the first " +
				"user's, named in the header. Fits the terminal's width ($COLUMNS, else the terminal's, else 80): the full table, " +
				"a line per feed, where there is room, else the long facts under each feed. Reads the state file only; works while " +
				"a run is in progress.",
			example: "feeddigest status\nfeeddigest status my.toml\nfeeddigest status -now 2026-11-22T00:05:00Z\nCOLUMNS=400 feeddigest status | grep failing",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "read the configuration from `FILE` (TOML)")
				fs.StringVar(&o.now, "now", "", "show the state as at `TIME` ("+nowForms+") instead of the clock: what is due, what waits, what mail was given up")
			},
			run: statusCmd,
		},
		{
			name: "import", args: "OPMLFILE", summary: "add the feeds of an OPML file to a user's feeds",
			about: "Adds the http(s) feeds of an OPML file to one user's feeds in the config, with their folders (nested ones " +
				"as \"A / B\") and titles, editing only that array so comments and layout stay. URLs are compared in a normal " +
				"form (scheme and host in lower case, feed: URIs as http(s), no default port). Lists what was added, then every " +
				"outline left out, by name, and why. A bad OPML file or an unknown user changes nothing.",
			example: "feeddigest import -user ada subscriptions.opml",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "add the feeds to the configuration in `FILE` (TOML)")
				fs.StringVar(&o.user, "user", "", "give the feeds to the user named `NAME` (default: the only user)")
			},
			run: importCmd,
		},
		{
			name: "export", args: "[CONFIG]", configArg: true, summary: "write the feeds as OPML on stdout",
			about: "Writes OPML 2.0 on stdout: one user's feeds, or every user's with a folder per user (a config of " +
				"one user has no such folder); config folders as (nested) folders, feeds without one at the top level. Feed titles come from the config, else from the state file when there is one (read only).",
			example: "feeddigest export -user ada > ada.opml",
			flags: func(fs *flag.FlagSet, o *options) {
				configFlag(fs, o, "read the configuration from `FILE` (TOML)")
				fs.StringVar(&o.user, "user", "", "export only the feeds of the user named `NAME` (default: every user, one folder each when there are several)")
			},
			run: exportCmd,
		},
		{
			name: "help", args: "[COMMAND]", summary: "what a command does, an example, and its flags",
			about:   "Without a command, lists the commands; with one, says what it does, shows an example and lists its flags. `feeddigest COMMAND -h` does the same.",
			example: "feeddigest help\nfeeddigest help run",
			run:     helpCmd,
		},
		{
			name: "version", summary: "the program's version, VCS revision and Go version",
			about:   "Prints the program's name and version (the module version, else \"devel\"), the VCS revision it was built from, and the Go version. Also: feeddigest -version, feeddigest --version.",
			example: "feeddigest version",
			run:     versionCmd,
		},
	}
}

func configFlag(fs *flag.FlagSet, o *options, usage string) {
	fs.StringVar(&o.config, "config", defaultConfig, usage)
}

// progName is how the user started feeddigest, for the commands we
// suggest they type next.
var progName = "feeddigest"

// invokedAs names the program as the user typed it: "./feeddigest" or
// "feeddigest", or "go run ." for a binary go run built.
func invokedAs(arg0 string) string {
	switch {
	case strings.Contains(arg0, "go-build"):
		return "go run ."
	case arg0 == "":
		return "feeddigest"
	}
	return arg0
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Main runs the command line args, as os.Args holds it (args[0] is how
// the program was started), and returns the exit code: 0 for success and
// help, 1 for a failure, 2 for a command line that makes no sense.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return run(ctx, nil, stdout, stderr)
	}
	progName = invokedAs(args[0])
	return run(ctx, args[1:], stdout, stderr)
}

// run runs one command line, the program's name removed, and returns
// Main's exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeOverview(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "feeddigest: unknown command %q\n", name)
		if near := closestCommand(name); near != "" {
			fmt.Fprintf(stderr, "Did you mean %q?\n", near)
		}
		fmt.Fprintln(stderr, "Run 'feeddigest help' for the list of commands.")
		return 2
	}
	inv, err := parseCommandLine(cmd, rest, stdout, stderr)
	if err == nil {
		err = cmd.run(ctx, inv)
	}
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		writeHelp(stdout, cmd)
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "feeddigest %s: %s\nusage: %s\nRun 'feeddigest help %s' for details.\n", cmd.name, usage.msg, synopsis(cmd), cmd.name)
		return 2
	}
	var cfgErr *config.Error
	if errors.As(err, &cfgErr) && len(cfgErr.Problems) > 1 {
		fmt.Fprintf(stderr, "feeddigest: %s in the configuration:\n", cfgErr.Count())
	}
	fmt.Fprintf(stderr, "feeddigest: %v\n", advise(err))
	return 1
}

// usageError is a command line that does not make sense (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// parseCommandLine parses the flags, which may come before or after the
// arguments, and takes a positional config where the command allows one.
func parseCommandLine(cmd *command, args []string, stdout, stderr io.Writer) (*invocation, error) {
	inv := &invocation{cmd: cmd, stdout: stdout, stderr: stderr}
	fs := cmd.flagSet(&inv.opts)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError{err.Error()}
	}
	fs.Visit(func(f *flag.Flag) { inv.configGiven = inv.configGiven || f.Name == "config" })
	inv.args = pos
	switch {
	case cmd.configArg && len(pos) > 1:
		return nil, usagef("want at most one config file, got %d arguments: %s", len(pos), strings.Join(pos, " "))
	case cmd.configArg && len(pos) == 1:
		if inv.configGiven && filepath.Clean(inv.opts.config) != filepath.Clean(pos[0]) {
			return nil, usagef("-config %s and %s name two different configs; give one", inv.opts.config, pos[0])
		}
		inv.opts.config, inv.configGiven, inv.args = pos[0], true, nil
	case cmd.args == "" && len(pos) > 0:
		return nil, usagef("takes no arguments, got %q", pos[0])
	}
	return inv, nil
}

func (c *command) flagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	// Errors are reported by run, help by writeHelp: the flag package
	// itself prints nothing.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if c.flags != nil {
		c.flags(fs, o)
	}
	return fs
}

// parseInterleaved parses flags anywhere among the arguments, as gh and
// hugo do: "run my.toml -v" and "run -v my.toml" are the same. After
// "--" everything is an argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// loadConfigWarn loads the config and shows its warnings (things that do
// not stop a command, like a user without feeds) on stderr.
func (inv *invocation) loadConfigWarn() (*config.Config, error) {
	cfg, err := inv.loadConfig()
	if err == nil {
		for _, w := range cfg.Warnings {
			fmt.Fprintf(inv.stderr, "feeddigest: warning: %s\n", w)
		}
	}
	return cfg, err
}

// loadConfig loads the invocation's config. A missing one gets a message
// that says how to make one.
func (inv *invocation) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(inv.opts.config)
	if errors.Is(err, fs.ErrNotExist) {
		if !inv.configGiven {
			wd, _ := os.Getwd()
			return nil, fmt.Errorf("no %s in %s: write one with `%s init`, or name another with -config FILE", defaultConfig, wd, progName)
		}
		return nil, fmt.Errorf("%w (`%s init -config %s` writes a starter config)", err, progName, inv.opts.config)
	}
	return cfg, err
}

// closestCommand is the command a mistyped name most likely meant, or "".
func closestCommand(name string) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return english.Closest(name, names)
}
