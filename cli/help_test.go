package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	got := DescribeBuild(&debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "feeddigest", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0aba60d32207bda2a9edb32974cb59040f097aeb"}, {Key: "vcs.modified", Value: "true"},
		},
	})
	want := fmt.Sprintf("feeddigest v1.2.3\nrevision: 0aba60d32207bda2a9edb32974cb59040f097aeb (modified: built with uncommitted changes)\ngo: go1.26.8 %s/%s\n", runtime.GOOS, runtime.GOARCH)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = DescribeBuild(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "feeddigest", Version: "(devel)"}})
	if !strings.HasPrefix(got, "feeddigest devel\nrevision: unknown") {
		t.Errorf("a build without a version or VCS facts: got\n%s", got)
	}
}

func TestHelp(t *testing.T) {
	code, overview, stderr := runCLI("help")
	if code != 0 || stderr != "" {
		t.Fatalf("help: exit %d, stderr %q", code, stderr)
	}
	for _, c := range commands {
		if !strings.Contains(overview, "\n  "+c.name+" ") || !strings.Contains(overview, c.summary) {
			t.Errorf("help does not list %s with its summary:\n%s", c.name, overview)
		}
	}
	for _, want := range []string{"feeddigest demo", "feeddigest init", "help COMMAND"} {
		if !strings.Contains(overview, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if code, stdout, _ := runCLI("-h"); code != 0 || stdout != overview {
		t.Errorf("-h: exit %d, want the same overview as help", code)
	}
	// Without a command: the overview on stderr, and a usage error.
	if code, stdout, stderr := runCLI(); code != 2 || stdout != "" || stderr != overview {
		t.Errorf("no command: exit %d, stdout %q", code, stdout)
	}

	code, runHelp, stderr := runCLI("help", "run")
	if code != 0 || stderr != "" {
		t.Fatalf("help run: exit %d, stderr %q", code, stderr)
	}
	about := strings.Index(runHelp, "One scheduled pass")
	usage := strings.Index(runHelp, "Usage:\n  feeddigest run [flags] [CONFIG]\n")
	example := strings.Index(runHelp, "Example:\n  feeddigest run\n")
	flags := strings.Index(runHelp, "Flags:\n")
	if about != 0 || usage < about || example < usage || flags < example {
		t.Errorf("help run: want what it does, usage, an example, then the flags, in that order; got\n%s", runHelp)
	}
	for _, flag := range []string{"-config FILE", `(default "config.toml")`, "-now TIME", "-v\t", "-json", "-summary FILE"} {
		if !strings.Contains(runHelp[flags:], flag) {
			t.Errorf("help run lacks the flag %q", flag)
		}
	}
	for _, h := range []string{"-h", "-help", "--help"} {
		if code, stdout, stderr := runCLI("run", h); code != 0 || stdout != runHelp || stderr != "" {
			t.Errorf("run %s: exit %d, stderr %q; want help run's text on stdout", h, code, stderr)
		}
	}
	// Every command has its help, with an example.
	for _, c := range commands {
		code, stdout, _ := runCLI(c.name, "-h")
		if code != 0 || !strings.Contains(stdout, "Usage:\n  feeddigest "+c.name) || !strings.Contains(stdout, "Example:\n  feeddigest ") {
			t.Errorf("%s -h: exit %d\n%s", c.name, code, stdout)
		}
	}

	for _, args := range [][]string{{"help", "frobnicate"}, {"frobnicate"}, {"run", "-frobnicate"}, {"help", "run", "status"}} {
		code, stdout, stderr := runCLI(args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "help") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and a pointer to help", args, code, stdout, stderr)
		}
	}
	if _, _, stderr := runCLI("run", "-frobnicate"); !strings.Contains(stderr, "-frobnicate") ||
		!strings.Contains(stderr, "usage: feeddigest run [flags] [CONFIG]") {
		t.Errorf("a bad flag: %q", stderr)
	}
	if _, _, stderr := runCLI("stauts"); !strings.Contains(stderr, `Did you mean "status"?`) {
		t.Errorf("a mistyped command gets no suggestion: %q", stderr)
	}
}
