package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/store"
)

// oneUser is the users block of one London user following urls.
func oneUser(t *testing.T, urls ...string) string {
	var quoted []string
	for _, u := range urls {
		quoted = append(quoted, fmt.Sprintf("%q", u))
	}
	return fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [%s]\n", strings.Join(quoted, ", "))
}

// testConfig writes a config with a fresh state of the given kind (see
// forEachState) and the given users block into a temp folder.
func testConfig(t *testing.T, state backend, users, extra string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	text := `state = "` + state.newState(t) + `"
site_dir = "site"
` + extra + `
[fetch]
allow_private_networks = true
host_rate = 1000.0
per_host = 8
[email]
from = "Digest <digest@example.org>"
outbox = "outbox"
` + users
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// freshSQLite opens a new SQLite state in a temp folder, closed when the
// test ends.
func freshSQLite(t *testing.T) store.Store {
	t.Helper()
	st, err := openState(context.Background(), &config.Config{State: filepath.Join(t.TempDir(), "state.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// pass runs one pass at now and fails the test on error.
func runAt(t *testing.T, cfg *config.Config, now string) Summary {
	t.Helper()
	sum, err := Run(context.Background(), cfg, Options{Now: at(now)})
	if err != nil {
		t.Fatalf("run at %s: %v", now, err)
	}
	return sum
}

var entryLink = regexp.MustCompile(`href="https://site\.example/([a-z]+-[0-9]+)"`)

// delivered returns, per entry id, how many of user's daily pages link it.
func delivered(t *testing.T, cfg *config.Config, user string) map[string]int {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(cfg.SiteDir, user, "????-??-??.html"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		perPage := map[string]bool{}
		for _, m := range entryLink.FindAllStringSubmatch(string(b), -1) {
			perPage[m[1]] = true
		}
		for id := range perPage {
			counts[id]++
		}
	}
	return counts
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
