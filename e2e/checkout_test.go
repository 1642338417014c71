package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's commands, run in a checkout, write nothing git would
// commit: the config init writes (subscribers' addresses, private feed
// URLs), the state with its log and lock, the site, the outbox and the
// demo's folder are all covered by the repository's .gitignore. And the
// default output folder, site/, holds no source of the program.
func TestReadmeCommandsLeaveTheCheckoutClean(t *testing.T) {
	if sources, _ := filepath.Glob("../site/*.go"); len(sources) > 0 {
		t.Errorf("site/, the default output folder, holds sources: %v", sources)
	}
	git := requireTool(t, "git", "git")
	ts := initFeeds(t)
	checkout := t.TempDir()
	gitignore, err := os.ReadFile("../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, checkout, ".gitignore", string(gitignore))
	if out, err := exec.Command(git, "init", "-q", checkout).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	env := []string{"TZ=Europe/London"}
	for _, args := range [][]string{{"init", ts.URL + "/feed.xml"}, {"check"}, {"run"}, {"status"}, {"demo"}} {
		if code, stdout, stderr := feeddigest(t, checkout, env, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	for _, written := range []string{"config.toml", "state.db", "site/status.html", "outbox", "feeddigest-demo"} {
		if _, err := os.Stat(filepath.Join(checkout, written)); err != nil {
			t.Errorf("the commands wrote no %s (the test would prove nothing of it): %v", written, err)
		}
	}
	cmd := exec.Command(git, "status", "--porcelain", "--untracked-files=all")
	cmd.Dir = checkout
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	if untracked := strings.TrimSpace(string(out)); untracked != "?? .gitignore" {
		t.Errorf("git would commit what the commands wrote:\n%s", untracked)
	}
}
