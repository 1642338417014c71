package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newsboat keeps articles by id across all its feeds: two installations
// with a user of the same name, both followed, show both digests, which
// ids shared by every installation merged into one. It also reads an
// export of all users whole.
func TestNewsboatTellsInstallationsApart(t *testing.T) {
	newsboat := requireTool(t, "newsboat", "newsboat")
	feeds := slowSite(t, 0, "/ada")
	post(feeds, "/ada", "ada-1")
	home := t.TempDir()
	var urls []string
	for range 2 {
		dir := t.TempDir()
		path := writeConfig(t, dir, fmt.Sprintf("[fetch]\nallow_private_networks = true\n"+
			"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", feeds.URL+"/ada"))
		if code, _, stderr := feeddigest(t, dir, nil, "run", "-config", path, "-now", "2026-11-21T00:05:00Z"); code != 0 {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		urls = append(urls, "file://"+filepath.Join(dir, "site", "ada", "feed.xml"))
	}
	urlFile := writeFile(t, home, "urls", strings.Join(urls, "\n")+"\n")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(newsboat, append([]string{"-u", urlFile, "-c", filepath.Join(home, "cache.db")}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("newsboat %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("-x", "reload", "print-unread"); !strings.Contains(out, "2 unread articles") {
		t.Errorf("newsboat shows %q of two installations' digests, want 2 unread articles", strings.TrimSpace(out))
	}

	dir := t.TempDir()
	path := writeConfig(t, dir, "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\", \"https://b.example/f\"]\n"+
		"[[users]]\nname = \"grace\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\", \"https://c.example/f\"]\n")
	code, exported, stderr := feeddigest(t, dir, nil, "export", "-config", path)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(urlFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run("-i", writeFile(t, dir, "all.opml", exported))
	imported, _ := os.ReadFile(urlFile)
	for _, url := range []string{"https://a.example/f", "https://b.example/f", "https://c.example/f"} {
		if strings.Count(string(imported), url) != 1 {
			t.Errorf("newsboat imported %s %d times:\n%s", url, strings.Count(string(imported), url), imported)
		}
	}
}
