package e2e

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"feeddigest/cli"
	"feeddigest/internal/feedtest"
)

func TestVersion(t *testing.T) {
	bin := binary(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := cli.DescribeBuild(info)
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		code, stdout, stderr := feeddigest(t, t.TempDir(), nil, args...)
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

// TestInitConfigWorksAsWritten follows the README: init with a feed,
// check, status, run; the first digest is in the outbox at once.
func TestInitConfigWorksAsWritten(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	env := []string{"TZ=Europe/London"}
	if code, stdout, stderr := feeddigest(t, dir, env, "init", ts.URL+"/feed.xml"); code != 0 || !strings.Contains(stdout, "allow_private_networks = true") {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := feeddigest(t, dir, env, "check"); code != 0 || !strings.Contains(stdout, "1 feed: 1 ok, 0 failed") {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := feeddigest(t, dir, env, "status"); code != 0 || !strings.Contains(stdout, ts.URL+"/feed.xml") || !strings.Contains(stdout, "new") {
		t.Errorf("status before the first run: exit %d\n%s%s", code, stdout, stderr)
	}
	start := time.Now()
	code, stdout, stderr := feeddigest(t, dir, env, "run")
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
	if code, stdout, _ := feeddigest(t, dir, env, "status"); code != 0 || !strings.Contains(stdout, "1 feed: 1 ok.") {
		t.Errorf("status after the run: exit %d\n%s", code, stdout)
	}
}

func TestPositionalConfig(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	text := fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/feed.xml")
	writeFile(t, dir, "my.toml", text)
	now := "-now=2026-11-22T00:05:00Z"
	code, stdout, stderr := feeddigest(t, dir, nil, "run", "my.toml", now)
	if code != 0 || !strings.Contains(stdout, "digests built  1") {
		t.Fatalf("run my.toml: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "ada", "2026-11-22.html")); err != nil {
		t.Errorf("run my.toml wrote no page: %v", err)
	}
	for _, cmd := range []string{"status", "check", "export"} {
		if code, _, stderr := feeddigest(t, dir, nil, cmd, "my.toml"); code != 0 {
			t.Errorf("%s my.toml: exit %d, %s", cmd, code, stderr)
		}
	}
	// The same file twice is one config; two files are a usage error.
	if code, _, stderr := feeddigest(t, dir, nil, "run", "-config", "my.toml", "my.toml", now); code != 0 {
		t.Errorf("-config my.toml my.toml: exit %d, %s", code, stderr)
	}
	code, _, stderr = feeddigest(t, dir, nil, "run", "-config", "other.toml", "my.toml", now)
	if code != 2 || !strings.Contains(stderr, "two different configs") {
		t.Errorf("-config other.toml my.toml: exit %d, %q", code, stderr)
	}
	if code, _, stderr := feeddigest(t, dir, nil, "status", "my.toml", "other.toml"); code != 2 || !strings.Contains(stderr, "at most one config") {
		t.Errorf("two positional configs: exit %d, %q", code, stderr)
	}
}

func TestConfigDefaultsToConfigToml(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	text := fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/feed.xml")
	writeConfig(t, dir, text)
	if code, stdout, stderr := feeddigest(t, dir, nil, "run", "-now", "2026-11-22T00:05:00Z"); code != 0 || !strings.Contains(stdout, "digests built  1") {
		t.Fatalf("run without -config: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "ada", "2026-11-22.html")); err != nil {
		t.Errorf("run without -config did not use ./config.toml: %v", err)
	}
	if code, stdout, _ := feeddigest(t, dir, nil, "status"); code != 0 || !strings.Contains(stdout, ts.URL) {
		t.Errorf("status without -config: exit %d\n%s", code, stdout)
	}
	empty := t.TempDir()
	code, _, stderr := feeddigest(t, empty, nil, "run")
	if code != 1 || !strings.Contains(stderr, "no config.toml in "+empty) || !strings.Contains(stderr, "init") {
		t.Errorf("no config.toml: exit %d, %q; want 1, where it looked and how to make one", code, stderr)
	}
}

func TestRunSummaryIsMarkdown(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	text := fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q, %q]\n", ts.URL+"/feed.xml", ts.URL+"/other.xml")
	writeConfig(t, dir, text)
	summary := filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	if code, _, stderr := feeddigest(t, dir, nil, "run", "-now", "2026-11-22T00:05:00Z", "-summary", summary); code != 0 {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	b, _ := os.ReadFile(summary)
	for _, want := range []string{"earlier step\n## feeddigest: 1 digest built\n", "| digests built | 1 |", "### Feeds\n",
		"| Feed | State |", "| Local news (" + ts.URL + "/feed.xml) | ok |"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("summary lacks %q:\n%s", want, b)
		}
	}
	bad := writeFile(t, dir, "bad.toml", "[[users]]\nname = \"ada\"\ntimezone = \"Mars/Base\"\n")
	if code, _, _ := feeddigest(t, dir, nil, "run", bad, "-summary", summary); code != 1 {
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
	writeConfig(t, dir, text)
	code, _, stderr := feeddigest(t, dir, nil, "check")
	if code != 1 || !strings.Contains(stderr, `"Europe/London"`) || !strings.Contains(stderr, `"America/New_York"`) ||
		!strings.Contains(stderr, "2 errors") {
		t.Errorf("check with misspelt zones: exit %d, stderr:\n%s", code, stderr)
	}
	text = "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = []\n"
	writeConfig(t, dir, text)
	if _, _, stderr := feeddigest(t, dir, nil, "status"); !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "ada") {
		t.Errorf("status with a user without feeds warns of nothing:\n%s", stderr)
	}
}

// A new user whose every feed is mistyped gets no digest from the built
// binary, and each run says why, on the terminal and in the step
// summary; once the typo is fixed, the next run builds the first digest
// at once, though its digest hour has passed.
func TestFirstDigestWaitsForAFeedThatReads(t *testing.T) {
	ts := initFeeds(t)
	dir := t.TempDir()
	users := "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n"
	writeConfig(t, dir, "[fetch]\nallow_private_networks = true\n"+fmt.Sprintf(users, ts.URL+"/fed.xml"))
	summary := filepath.Join(dir, "summary.md")
	for _, now := range []string{"2026-11-22T00:05:00Z", "2026-11-22T01:05:00Z"} {
		code, stdout, stderr := feeddigest(t, dir, nil, "run", "-now", now, "-summary", summary)
		if code != 0 || !strings.Contains(stdout, "digests built  0") ||
			!strings.Contains(stdout, "waiting: ada: no first digest yet: none of the feeds could be read") {
			t.Errorf("run at %s: exit %d\n%s%s", now, code, stdout, stderr)
		}
	}
	if b, _ := os.ReadFile(summary); !strings.Contains(string(b), "First digests waiting for a feed that reads:\n\n- ada: no first digest yet") {
		t.Errorf("the step summary does not say why no digest came:\n%s", b)
	}
	if pages, _ := filepath.Glob(filepath.Join(dir, "site", "ada", "*-*-*.html")); len(pages) != 0 {
		t.Errorf("a first digest was used up while no feed could be read: %v", pages)
	}
	writeConfig(t, dir, "[fetch]\nallow_private_networks = true\n"+fmt.Sprintf(users, ts.URL+"/feed.xml"))
	code, stdout, stderr := feeddigest(t, dir, nil, "run", "-now", "2026-11-22T02:05:00Z")
	if code != 0 || !strings.Contains(stdout, "digests built  1") || strings.Contains(stdout, "waiting") {
		t.Fatalf("run after the fix: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "ada", "2026-11-22.html")); err != nil {
		t.Errorf("no first digest after the fix: %v", err)
	}
}
