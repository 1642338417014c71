package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// helpCmd: `feeddigest help [COMMAND]`.
func helpCmd(_ context.Context, inv *invocation) error {
	switch len(inv.args) {
	case 0:
		writeOverview(inv.stdout)
		return nil
	case 1:
		cmd := lookup(inv.args[0])
		if cmd == nil {
			msg := fmt.Sprintf("unknown command %q", inv.args[0])
			if near := closestCommand(inv.args[0]); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			return usageError{msg}
		}
		writeHelp(inv.stdout, cmd)
		return nil
	}
	return usagef("help takes one command, got %d arguments", len(inv.args))
}

// writeOverview is `feeddigest help`: what the program is, where to
// start, and every command in one line.
func writeOverview(w io.Writer) {
	fmt.Fprint(w, fill("feeddigest builds one calm digest a day of the web feeds you follow: "+
		"a static HTML page and an email, from a job that runs every hour.", ""))
	fmt.Fprint(w, `
Usage:
  feeddigest COMMAND [flags] [arguments]

Start here:
  feeddigest demo               see it work, offline, on sample feeds
  feeddigest init URL...        write config.toml with your feeds
  feeddigest check              poll each feed once and say what it found
  feeddigest run                build your first digest (then run it hourly)

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Commands that read a config take -config FILE (default config.toml in the
working folder) or the file as their one argument: feeddigest run my.toml.

Run 'feeddigest help COMMAND' (or feeddigest COMMAND -h) for what a command
does, an example and its flags. README.md tells the rest.
`)
}

// writeHelp is `feeddigest help COMMAND`: what it does, its synopsis, an
// example, then its flags.
func writeHelp(w io.Writer, c *command) {
	fmt.Fprint(w, fill(c.about, ""))
	fmt.Fprintf(w, "\nUsage:\n  %s\n", synopsis(c))
	fmt.Fprintf(w, "\nExample:\n%s", indent(c.example, "  "))
	fs := c.flagSet(&options{})
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if c.configArg {
		fmt.Fprintf(w, "\nThe config is config.toml in the working folder unless -config or\nthe one argument names another file.\n")
	}
}

func synopsis(c *command) string {
	s := "feeddigest " + c.name
	if c.flags != nil {
		s += " [flags]"
	}
	if c.args != "" {
		s += " " + c.args
	}
	return s
}

func indent(text, prefix string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		b.WriteString(prefix + strings.TrimRight(line, "\n") + "\n")
	}
	return b.String()
}

// fill wraps text into lines of at most 76 characters.
func fill(text, prefix string) string {
	const width = 76
	var b strings.Builder
	line := 0
	for _, word := range strings.Fields(text) {
		switch {
		case line == 0:
			b.WriteString(prefix)
			line = len(prefix)
		case line+1+len(word) > width:
			b.WriteString("\n" + prefix)
			line = len(prefix)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String() + "\n"
}

// versionCmd: `feeddigest version`, also -version and --version.
func versionCmd(_ context.Context, inv *invocation) error {
	info, _ := debug.ReadBuildInfo()
	fmt.Fprint(inv.stdout, DescribeBuild(info))
	return nil
}

// DescribeBuild says which feeddigest this is, as `feeddigest version`
// prints it: its version (the module version, else "devel"), the VCS
// revision it was built from, and the Go version and platform. info is
// nil when the binary carries no build information.
func DescribeBuild(info *debug.BuildInfo) string {
	version, revision, modified, goVersion := "devel", "", false, runtime.Version()
	if info != nil {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	switch {
	case revision == "":
		revision = "unknown (not built from a version-controlled checkout)"
	case modified:
		revision += " (modified: built with uncommitted changes)"
	}
	return fmt.Sprintf("feeddigest %s\nrevision: %s\ngo: %s %s/%s\n", version, revision, goVersion, runtime.GOOS, runtime.GOARCH)
}
