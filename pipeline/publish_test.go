package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
)

// sitePages reads the digest pages, indexes and status page under dir,
// by path relative to it.
func sitePages(t *testing.T, dir string) map[string]string {
	t.Helper()
	pages := map[string]string{}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		pages[rel] = readFile(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// publish writes the whole site from the state into dir, and nothing
// else: the same pages, byte for byte, that the runs wrote.
func TestPublishWritesTheSiteTheRunsWrote(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		pub.Add("/b", entry("b-1", "2026-11-20T11:00:00Z"))
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	feeds = ["%[1]s", "%[2]s"]
	[[users]]
	name = "kenji"
	timezone = "Asia/Tokyo"
	feeds = ["%[2]s"]
	`, pub.URL+"/a", pub.URL+"/b"), "")
		start := at("2026-11-21T00:05:00Z")
		for h := range 50 {
			if h%7 == 0 {
				pub.Add("/a", entry(fmt.Sprintf("a-%d", h+2), start.Add(time.Duration(h)*time.Hour).Format(time.RFC3339)))
			}
			runAt(t, cfg, start.Add(time.Duration(h)*time.Hour).Format(time.RFC3339))
		}
		dir := filepath.Join(t.TempDir(), "public")
		out, err := Publish(context.Background(), cfg, dir, start.Add(50*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		want, got := sitePages(t, cfg.SiteDir), sitePages(t, dir)
		if out.Users != 2 || out.Pages != len(want)-3 || len(got) != len(want) {
			t.Errorf("published %+v: %d pages, the runs wrote %d (%v)", out, len(got), len(want), sortedKeys(want))
		}
		for path, page := range want {
			if got[path] != page {
				t.Errorf("published %s differs from the run's", path)
			}
		}
		for _, user := range []string{"ada", "kenji"} {
			if _, err := os.Stat(filepath.Join(dir, user, "feed.xml")); err != nil {
				t.Errorf("no Atom feed for %s: %v", user, err)
			}
		}
		if entries, _ := os.ReadDir(cfg.Email.Outbox); len(entries) == 0 {
			t.Fatal("the runs wrote no outbox: the test proves nothing about publish leaving it alone")
		}
		if _, err := os.Stat(filepath.Join(dir, "outbox")); !os.IsNotExist(err) {
			t.Errorf("publish wrote an outbox")
		}
	})
}

func sortedKeys(m map[string]string) []string {
	out := keysOf(m)
	slices.Sort(out)
	return out
}

// Runs that share a PostgreSQL state but no disk each write the pages of
// the digests they build; publish writes them all.
func TestPublishGathersWhatRunsWithoutASharedDiskBuilt(t *testing.T) {
	db := migratedDatabase(t)
	farm := newHostFarm(t, 4, 30*time.Millisecond)
	var users strings.Builder
	for i := range 8 {
		fmt.Fprintf(&users, "[[users]]\nname = \"u%d\"\ntimezone = \"UTC\"\nfeeds = [%q, %q]\n", i, farm.url(i%4, "/f"), farm.url((i+1)%4, "/g"))
		farm.post(farm.url(i%4, "/f"), fmt.Sprintf("f-%d", i))
	}
	var cfgs []*config.Config
	for range 2 {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		text := fmt.Sprintf("state = %q\n[fetch]\nallow_private_networks = true\nconcurrency = 2\nper_host = 1\nhost_rate = 50.0\n", db) + users.String()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, cfg)
	}
	farm.startPass("first")
	var wg sync.WaitGroup
	for _, cfg := range cfgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Run(context.Background(), cfg, Options{Now: at("2026-11-21T00:05:00Z"), Lease: 3 * time.Second}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	dir := filepath.Join(t.TempDir(), "public")
	if _, err := Publish(context.Background(), cfgs[0], dir, at("2026-11-21T01:00:00Z")); err != nil {
		t.Fatal(err)
	}
	published := sitePages(t, dir)
	written := 0
	for _, cfg := range cfgs {
		for path, page := range sitePages(t, cfg.SiteDir) {
			if strings.HasSuffix(path, "2026-11-21.html") {
				written++
				if published[path] != page {
					t.Errorf("published %s differs from the page its run wrote", path)
				}
			}
		}
	}
	for i := range 8 {
		page := published[filepath.Join(fmt.Sprintf("u%d", i), "2026-11-21.html")]
		if !strings.Contains(page, fmt.Sprintf("https://site.example/f-%d", i)) {
			t.Errorf("u%d's published digest lacks its entry", i)
		}
	}
	if written != 8 {
		t.Errorf("the runs wrote %d digest pages between them, want each of the 8 once", written)
	}
}
