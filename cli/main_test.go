package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
	"feeddigest/sqlite"
)

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// mainCLI runs a whole command line as Main does, args[0] included.
func mainCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		names = append(names, path)
		return nil
	})
	return names
}

func TestBadConfigExitsNonZeroAndTouchesNothing(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"unknown key", "stat = \"x.db\"\n[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n", `unknown key "stat"`},
		{"bad zone", "[[users]]\nname = \"a\"\ntimezone = \"Mars/Base\"\n", `"Mars/Base"`},
		{"duplicate user", "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n", `"a"`},
		{"not http", "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\nfeeds = [\"ftp://x.example/f\"]\n", "ftp://x.example/f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.config)
			before := listDir(t, filepath.Dir(path))
			code, _, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z")
			if code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want non-zero naming %s", code, stderr, tt.want)
			}
			if after := listDir(t, filepath.Dir(path)); len(after) != len(before) {
				t.Errorf("a bad config changed the disk: %v -> %v", before, after)
			}
		})
	}
}

func TestBadNowAndUsage(t *testing.T) {
	path := writeConfig(t, "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n")
	if code, _, stderr := runCLI("run", "-config", path, "-now", "yesterday"); code == 0 || !strings.Contains(stderr, "RFC 3339") {
		t.Errorf("bad -now: exit %d %q", code, stderr)
	}
	if code, _, _ := runCLI("frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
	if code, stdout, _ := runCLI("-h"); code != 0 || !strings.Contains(stdout, "feeddigest demo") {
		t.Errorf("help: exit %d %q", code, stdout)
	}
	if code, _, stderr := runCLI("run"); code == 0 || !strings.Contains(stderr, "-config") {
		t.Errorf("missing -config: exit %d %q", code, stderr)
	}
}

// feedServer serves one RSS feed, titled T, at /feed; anything else is
// 404.
func feedServer(t *testing.T) *feedtest.Server {
	ts := feedtest.Start(t)
	ts.Publish("/feed", feedtest.Feed{Title: "T", Entries: []feedtest.Entry{{ID: "g1", Title: "Hello", Link: "https://site.example/hello"}}})
	return ts
}

func TestRunThenStatus(t *testing.T) {
	ts := feedServer(t)
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [%q, %q]\n",
		ts.URL+"/feed", ts.URL+"/missing"))
	code, stdout, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z")
	if code != 0 {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	if !strings.Contains(stdout, "digests built  1") {
		t.Errorf("summary: %s", stdout)
	}
	page, err := os.ReadFile(filepath.Join(filepath.Dir(path), "site", "ada", "2026-11-22.html"))
	if err != nil || !strings.Contains(string(page), "https://site.example/hello") {
		t.Fatalf("page: %v", err)
	}
	code, stdout, stderr = runCLI("status", "-config", path, "-now", "2026-11-22T00:10:00Z")
	if code != 0 || !strings.Contains(stdout, ts.URL+"/missing") || !strings.Contains(stdout, "404") {
		t.Errorf("status: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI("run", "-config", path, "-now", "2026-11-22T00:35:00Z", "-json")
	if code != 0 || !strings.Contains(stdout, `"digests_built": 0`) {
		t.Errorf("second run in the same hour: exit %d %s", code, stdout)
	}
}

func TestOverlappingRunExitsAtOnce(t *testing.T) {
	ts := feedServer(t)
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/feed"))
	held, err := sqlite.Open(context.Background(), filepath.Join(filepath.Dir(path), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, stderr := runCLI("run", "-config", path)
	if code == 0 || !strings.Contains(stderr, "another feeddigest run") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("overlapping run: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "site")); !os.IsNotExist(err) {
		t.Errorf("overlapping run wrote the site")
	}
}

func TestDemo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "demo")
	t.Cleanup(func() { progName = "feeddigest" })
	// Started by `go run . demo`: there is no feeddigest binary, so the
	// command the demo suggests is one that works where the reader stands.
	code, stdout, stderr := mainCLI("/tmp/go-build2841/b001/exe/feeddigest", "demo", "-out", out)
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if want := "`go run . status -config " + filepath.Join(out, "config.toml") + "`"; !strings.Contains(stdout, want) {
		t.Errorf("after go run, the demo's last line lacks %s:\n%s", want, stdout)
	}
	// And the command works as printed: what follows "go run ." is
	// feeddigest's own command line.
	_, suggested, _ := strings.Cut(stdout, "`go run . ")
	suggested, _, _ = strings.Cut(suggested, "`")
	if code, status, stderr := runCLI(strings.Fields(suggested)...); code != 0 || !strings.Contains(status, "9 feeds:") {
		t.Errorf("the demo's suggested `go run . %s`: exit %d\n%s%s", suggested, code, status, stderr)
	}
	if !strings.Contains(stdout, filepath.Join(out, "site", "ada", "index.html")) {
		t.Errorf("demo does not say where to look:\n%s", stdout)
	}
	for _, want := range []struct{ file, text string }{
		{"site/ada/index.html", "A Calm Blog"},
		{"site/kenji/2026-11-23.html", "First frost"},
		{"site/status.html", "broken.xml"},
		{"outbox/grace-2026-11-21.eml", "Auto-Submitted: auto-generated"},
		// Ada's folders, her title for a feed, a feed in Arabic, a
		// podcast, and a feed that answers 404.
		{"site/ada/2026-11-20.html", `<h2 class="d" dir="auto">الحديقة</h2>`},
		{"site/ada/2026-11-20.html", "A librarian&#39;s notes"},
		{"site/ada/2026-11-20.html", `lang="ar"`},
		{"site/ada/2026-11-20.html", "Slow Radio"},
		{"site/ada/2026-11-20.html", "/missing.xml</strong>: not found (404)"},
		// ...named in the first digest, then not every day (see
		// store.RemindEvery).
		// One story from two feeds: shown once, under the first of them.
		{"site/ada/2026-11-22.html", `Also in: <span dir="auto">Good Links</span>`},
		// Grace mutes the blog's repair posts: her first digest counts it.
		{"site/grace/2026-11-20.html", "<summary>1 left out by your rules</summary>"},
		{"outbox/grace-2026-11-20.eml", "1 left out by your rules."},
		// A teaser feed made whole: the article from the story's page.
		{"site/ada/2026-11-20.html", "The masons came in September"},
		// Kenji is weekly, from Friday 20th: his first digest, dated the
		// Monday before, covers that week up to the day it was built; the
		// next, from then on. He reads Japanese.
		{"site/kenji/2026-11-16.html", "<h1>2026年11月16日～20日のダイジェスト</h1>"},
		{"site/kenji/2026-11-23.html", "<h1>2026年11月20日～23日のダイジェスト</h1>"},
		{"site/kenji/2026-11-23.html", `<html lang="ja">`},
		{"site/kenji/feed.xml", `xml:lang="ja"`},
	} {
		b, err := os.ReadFile(filepath.Join(out, want.file))
		if err != nil || !strings.Contains(string(b), want.text) {
			t.Errorf("%s lacks %q (%v)", want.file, want.text, err)
		}
	}
	// A second demo into the same folder starts afresh; from a built
	// binary, it suggests that binary.
	code, stdout, stderr = mainCLI("./feeddigest", "demo", "-out", out)
	if code != 0 {
		t.Errorf("second demo: %s", stderr)
	}
	if want := "`./feeddigest status -config "; !strings.Contains(stdout, want) {
		t.Errorf("from ./feeddigest, the demo's last line lacks %s:\n%s", want, stdout)
	}
	// But it refuses a folder it did not make.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "precious.txt"), []byte("keep"), 0o644)
	if code, _, _ := runCLI("demo", "-out", other); code == 0 {
		t.Error("demo cleared a folder it did not make")
	}
}

// TestConfigWarningsAndErrorCount: a user without feeds is a warning on
// stderr that does not stop the command; several config errors come
// under a count; a misspelt time zone names the closest one.
func TestConfigWarningsAndErrorCount(t *testing.T) {
	path := writeConfig(t, "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = []\n")
	code, stdout, stderr := runCLI("check", "-config", path)
	if code != 0 || !strings.Contains(stderr, `feeddigest: warning: `+path+`: users[0] "ada" has no feeds`) || !strings.Contains(stdout, "configuration is valid") {
		t.Errorf("no feeds: exit %d\n%s\n%s", code, stdout, stderr)
	}

	path = writeConfig(t, "stat = \"x.db\"\n[[users]]\nname = \"ada\"\ntimezone = \"london\"\n")
	code, _, stderr = runCLI("check", "-config", path)
	if code != 1 || !strings.Contains(stderr, "feeddigest: 2 errors in the configuration:\n") ||
		!strings.Contains(stderr, `unknown time zone "london"; did you mean "Europe/London"? (line 4)`) {
		t.Errorf("two errors: exit %d\n%s", code, stderr)
	}

	path = writeConfig(t, "stat = \"x.db\"\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n")
	if code, _, stderr = runCLI("check", "-config", path); code != 1 || strings.Contains(stderr, "error in the configuration") || strings.Contains(stderr, "1 errors") {
		t.Errorf("one error: exit %d\n%s", code, stderr)
	}
}
