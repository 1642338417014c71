package main

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
)

// cli runs the built feeddigest in dir with the environment extra added,
// and returns its exit code and output.
func cli(t *testing.T, dir string, extra []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

func TestVersion(t *testing.T) {
	bin := binary(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := describeBuild(info)
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		code, stdout, stderr := cli(t, t.TempDir(), nil, args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if stdout != want {
			t.Errorf("%v printed\n%s\nwant (from the binary's build info)\n%s", args, stdout, want)
		}
		if !strings.HasPrefix(stdout, "feeddigest ") || !strings.Contains(stdout, "go: "+runtime.Version()+" ") ||
			!strings.Contains(stdout, "revision: ") {
			t.Errorf("%v: want the name, version, revision and Go version, got\n%s", args, stdout)
		}
	}
}

func TestDescribeBuild(t *testing.T) {
	got := describeBuild(&debug.BuildInfo{
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
	got = describeBuild(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "feeddigest", Version: "(devel)"}})
	if !strings.HasPrefix(got, "feeddigest devel\nrevision: unknown") {
		t.Errorf("a build without a version or VCS facts: got\n%s", got)
	}
}

func TestHelp(t *testing.T) {
	dir := t.TempDir()
	code, overview, stderr := cli(t, dir, nil, "help")
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
	if code, stdout, _ := cli(t, dir, nil, "-h"); code != 0 || stdout != overview {
		t.Errorf("-h: exit %d, want the same overview as help", code)
	}
	// Without a command: the overview on stderr, and a usage error.
	if code, stdout, stderr := cli(t, dir, nil); code != 2 || stdout != "" || stderr != overview {
		t.Errorf("no command: exit %d, stdout %q", code, stdout)
	}

	code, runHelp, stderr := cli(t, dir, nil, "help", "run")
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
		if code, stdout, stderr := cli(t, dir, nil, "run", h); code != 0 || stdout != runHelp || stderr != "" {
			t.Errorf("run %s: exit %d, stderr %q; want help run's text on stdout", h, code, stderr)
		}
	}
	// Every command has its help, with an example.
	for _, c := range commands {
		code, stdout, _ := cli(t, dir, nil, c.name, "-h")
		if code != 0 || !strings.Contains(stdout, "Usage:\n  feeddigest "+c.name) || !strings.Contains(stdout, "Example:\n  feeddigest ") {
			t.Errorf("%s -h: exit %d\n%s", c.name, code, stdout)
		}
	}

	for _, args := range [][]string{{"help", "frobnicate"}, {"frobnicate"}, {"run", "-frobnicate"}, {"help", "run", "status"}} {
		code, stdout, stderr := cli(t, dir, nil, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "help") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and a pointer to help", args, code, stdout, stderr)
		}
	}
	if _, _, stderr := cli(t, dir, nil, "run", "-frobnicate"); !strings.Contains(stderr, "-frobnicate") ||
		!strings.Contains(stderr, "usage: feeddigest run [flags] [CONFIG]") {
		t.Errorf("a bad flag: %q", stderr)
	}
	if _, _, stderr := cli(t, dir, nil, "stauts"); !strings.Contains(stderr, `Did you mean "status"?`) {
		t.Errorf("a mistyped command gets no suggestion: %q", stderr)
	}
}

// initFeeds serves one RSS feed on 127.0.0.1, at /feed.xml and at
// /other.xml.
func initFeeds(t *testing.T) *feedtest.Server {
	ts := feedtest.Start(t)
	news := feedtest.Feed{Title: "Local news",
		Entries: []feedtest.Entry{{ID: "n1", Title: "First light", Link: "https://news.example/1", Body: "It begins."}}}
	ts.Publish("/feed.xml", news)
	ts.Publish("/other.xml", news)
	return ts
}

func TestInitTwice(t *testing.T) {
	dir := t.TempDir()
	env := []string{"TZ=Asia/Tokyo"}
	code, stdout, stderr := cli(t, dir, env, "init", "https://go.dev/blog/feed.atom", "https://xkcd.com/atom.xml")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	path := filepath.Join(dir, "config.toml")
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("the file init wrote does not load: %v\n%s", err, written)
	}
	name := "me"
	if u, err := user.Current(); err == nil {
		name = userName(u.Username)
	}
	if len(cfg.Users) != 1 || cfg.Users[0].Name != name || cfg.Users[0].Timezone != "Asia/Tokyo" ||
		strings.Join(cfg.Users[0].FeedURLs(), " ") != "https://go.dev/blog/feed.atom https://xkcd.com/atom.xml" || cfg.Users[0].Email == "" {
		t.Errorf("user %+v; want %q in Asia/Tokyo (from TZ) with an address and the two feeds", cfg.Users, name)
	}
	if cfg.Email.Outbox != filepath.Join(dir, "outbox") || cfg.Email.SMTP != nil || cfg.Email.From == "" ||
		cfg.Fetch.StartDelayMax != 0 || cfg.State != filepath.Join(dir, "state.db") || cfg.SiteDir != filepath.Join(dir, "site") {
		t.Errorf("config %+v; want an outbox, a from address, no SMTP, no start delay, state.db and site", cfg)
	}
	if strings.Count(string(written), "\n#") < 10 {
		t.Errorf("the starter config is hardly commented:\n%s", written)
	}
	for _, want := range []string{"feeddigest check", "feeddigest run", filepath.Join("site", name, "index.html"), "outbox"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("init does not say what to do next (%q):\n%s", want, stdout)
		}
	}

	code, stdout, stderr = cli(t, dir, env, "init", "https://example.org/other.xml")
	if code != 1 || !strings.Contains(stderr, "config.toml already exists") || stdout != "" {
		t.Errorf("second init: exit %d, stdout %q, stderr %q; want 1 and a clear refusal", code, stdout, stderr)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, written) {
		t.Errorf("the second init changed the file:\n%s", again)
	}

	if code, _, _ := cli(t, dir, env, "init", "-config", "work.toml"); code != 0 {
		t.Errorf("init -config work.toml: exit %d", code)
	}
	if _, err := config.Load(filepath.Join(dir, "work.toml")); err != nil {
		t.Errorf("init -config wrote no loadable file: %v", err)
	}
	code, _, stderr = cli(t, dir, env, "init", "ftp://files.example/feed")
	if code == 0 || !strings.Contains(stderr, "ftp://files.example/feed") {
		t.Errorf("a bad URL: exit %d, %q", code, stderr)
	}
	if code, _, stderr := cli(t, dir, env, "init", "mine.toml"); code != 2 || !strings.Contains(stderr, "-config mine.toml") {
		t.Errorf("init FILE.toml: exit %d, %q; want a usage error pointing at -config", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "mine.toml")); !os.IsNotExist(err) {
		t.Error("a refused init wrote a file")
	}
}

// TestInitConfigWorksAsWritten follows the README: init with a feed,
// check, status, run; the first digest is in the outbox at once.
func TestInitConfigWorksAsWritten(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	env := []string{"TZ=Europe/London"}
	if code, stdout, stderr := cli(t, dir, env, "init", ts.URL+"/feed.xml"); code != 0 || !strings.Contains(stdout, "allow_private_networks = true") {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := cli(t, dir, env, "check"); code != 0 || !strings.Contains(stdout, "1 feed: 1 ok, 0 failed") {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := cli(t, dir, env, "status"); code != 0 || !strings.Contains(stdout, ts.URL+"/feed.xml") || !strings.Contains(stdout, "new") {
		t.Errorf("status before the first run: exit %d\n%s%s", code, stdout, stderr)
	}
	start := time.Now()
	code, stdout, stderr := cli(t, dir, env, "run")
	if code != 0 || !strings.Contains(stdout, "digests built  1") {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the first run took %s: something waits", took)
	}
	mails, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
	if len(mails) != 1 {
		t.Fatalf("outbox holds %v, want one digest", mails)
	}
	if b, _ := os.ReadFile(mails[0]); !strings.Contains(string(b), "First light") {
		t.Errorf("the digest email lacks the entry:\n%s", b)
	}
	if code, stdout, _ := cli(t, dir, env, "status"); code != 0 || !strings.Contains(stdout, "1 feed: 1 ok.") {
		t.Errorf("status after the run: exit %d\n%s", code, stdout)
	}
}

func TestPositionalConfig(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	text := fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/feed.xml")
	if err := os.WriteFile(filepath.Join(dir, "my.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	now := "-now=2026-11-22T00:05:00Z"
	code, stdout, stderr := cli(t, dir, nil, "run", "my.toml", now)
	if code != 0 || !strings.Contains(stdout, "digests built  1") {
		t.Fatalf("run my.toml: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "ada", "2026-11-22.html")); err != nil {
		t.Errorf("run my.toml wrote no page: %v", err)
	}
	for _, cmd := range []string{"status", "check", "export"} {
		if code, _, stderr := cli(t, dir, nil, cmd, "my.toml"); code != 0 {
			t.Errorf("%s my.toml: exit %d, %s", cmd, code, stderr)
		}
	}
	// The same file twice is one config; two files are a usage error.
	if code, _, stderr := cli(t, dir, nil, "run", "-config", "my.toml", "my.toml", now); code != 0 {
		t.Errorf("-config my.toml my.toml: exit %d, %s", code, stderr)
	}
	code, _, stderr = cli(t, dir, nil, "run", "-config", "other.toml", "my.toml", now)
	if code != 2 || !strings.Contains(stderr, "two different configs") {
		t.Errorf("-config other.toml my.toml: exit %d, %q", code, stderr)
	}
	if code, _, stderr := cli(t, dir, nil, "status", "my.toml", "other.toml"); code != 2 || !strings.Contains(stderr, "at most one config") {
		t.Errorf("two positional configs: exit %d, %q", code, stderr)
	}
}

func TestConfigDefaultsToConfigToml(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	text := fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/feed.xml")
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := cli(t, dir, nil, "run", "-now", "2026-11-22T00:05:00Z"); code != 0 || !strings.Contains(stdout, "digests built  1") {
		t.Fatalf("run without -config: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "ada", "2026-11-22.html")); err != nil {
		t.Errorf("run without -config did not use ./config.toml: %v", err)
	}
	if code, stdout, _ := cli(t, dir, nil, "status"); code != 0 || !strings.Contains(stdout, ts.URL) {
		t.Errorf("status without -config: exit %d\n%s", code, stdout)
	}
	empty := t.TempDir()
	code, _, stderr := cli(t, empty, nil, "run")
	if code != 1 || !strings.Contains(stderr, "no config.toml in "+empty) || !strings.Contains(stderr, "init") {
		t.Errorf("no config.toml: exit %d, %q; want 1, where it looked and how to make one", code, stderr)
	}
}

func TestRunSummaryIsMarkdown(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	text := fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q, %q]\n", ts.URL+"/feed.xml", ts.URL+"/other.xml")
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	if code, _, stderr := cli(t, dir, nil, "run", "-now", "2026-11-22T00:05:00Z", "-summary", summary); code != 0 {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	b, _ := os.ReadFile(summary)
	for _, want := range []string{"earlier step\n## feeddigest: 1 digest built\n", "| digests built | 1 |", "### Feeds\n",
		"| Feed | State |", "| " + ts.URL + "/feed.xml | ok |"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("summary lacks %q:\n%s", want, b)
		}
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[[users]]\nname = \"ada\"\ntimezone = \"Mars/Base\"\n"), 0o644)
	if code, _, _ := cli(t, dir, nil, "run", bad, "-summary", summary); code != 1 {
		t.Errorf("bad config: exit %d", code)
	}
	if b, _ := os.ReadFile(summary); !strings.Contains(string(b), "## feeddigest: the pass failed\n\n") || !strings.Contains(string(b), "Mars/Base") {
		t.Errorf("a failed pass is not in the summary:\n%s", b)
	}
}

// A misspelt time zone names the closest IANA names, and a user without
// feeds is a warning, as the built binary prints them.
func TestMisspeltZoneAndUserWithoutFeeds(t *testing.T) {
	dir := t.TempDir()
	text := "[[users]]\nname = \"ada\"\ntimezone = \"Europe/Londn\"\nfeeds = [\"https://a.example/feed\"]\n" +
		"[[users]]\nname = \"bob\"\ntimezone = \"new york\"\nfeeds = [\"https://a.example/feed\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, dir, nil, "check")
	if code != 1 || !strings.Contains(stderr, `"Europe/London"`) || !strings.Contains(stderr, `"America/New_York"`) ||
		!strings.Contains(stderr, "2 errors") {
		t.Errorf("check with misspelt zones: exit %d, stderr:\n%s", code, stderr)
	}
	text = "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = []\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, stderr := cli(t, dir, nil, "status"); !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "ada") {
		t.Errorf("status with a user without feeds warns of nothing:\n%s", stderr)
	}
}
