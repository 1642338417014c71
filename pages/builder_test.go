package pages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/sqlite"
	"feeddigest/store"
)

// stateWithDigests is a real SQLite state in which ada follows one feed
// and has a digest of each of days, each with the entries first seen the
// day before.
func stateWithDigests(t *testing.T, feedURL string, days ...string) store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	first, err := time.Parse(time.DateOnly, days[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SyncSubscriptions(ctx, map[string][]string{"ada": {feedURL}}, first.Add(-48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	feeds, err := st.Feeds(ctx)
	if err != nil || len(feeds) != 1 {
		t.Fatalf("feeds %v, %v", feeds, err)
	}
	f := feeds[0]
	f.Title = "Ada's reading"
	for i, day := range days {
		addDigest(t, st, f, i, day)
	}
	return st
}

// addDigest saves post i of ada's feed f, first seen the day before day,
// and builds ada's digest of day.
func addDigest(t *testing.T, st store.Store, f domain.Feed, i int, day string) {
	t.Helper()
	ctx := context.Background()
	built, _ := time.Parse(time.DateOnly, day)
	seen := built.Add(-12 * time.Hour)
	e := domain.Entry{Key: fmt.Sprintf("id:%d", i), Title: fmt.Sprintf("Post %d", i), FeedURL: f.URL,
		Link: fmt.Sprintf("https://a.example/%d", i), Content: fmt.Sprintf("<p>Words of post %d.</p>", i), Published: seen}
	e.Fragments = ingest.MakeFragments(f.URL, e)
	f.LastPoll = seen
	tx, err := st.BeginPoll(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.SaveEntries(ctx, []domain.Entry{e}, seen, 0); err != nil {
		t.Fatal(err)
	}
	if err := tx.UpdateFeed(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.BuildDigest(ctx, "ada", day, built.Add(5*time.Minute), false, nil); err != nil {
		t.Fatal(err)
	}
}

func adaConfig(t *testing.T, feedURL string) *config.Config {
	return &config.Config{SiteDir: t.TempDir(), Users: []config.User{{Name: "ada", Timezone: "UTC", Location: time.UTC,
		Feeds: []config.Subscription{{URL: feedURL}}}}}
}

func readSite(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Builder writes the pages of the digests not written yet, each linked
// to its neighbours, marks them written, and writes the user's index,
// feed and the status page; publishing the same state elsewhere writes
// the same pages, byte for byte, and marks nothing.
func TestBuilderWritesWhatPublishWritesAgain(t *testing.T) {
	ctx := context.Background()
	const feedURL = "https://a.example/feed"
	st := stateWithDigests(t, feedURL, "2026-11-21", "2026-11-22")
	cfg := adaConfig(t, feedURL)
	now := time.Date(2026, 11, 22, 0, 10, 0, 0, time.UTC)

	b := New(cfg, st, st, now, nil)
	if err := b.Render(ctx); err != nil {
		t.Fatal(err)
	}
	if n := b.Written(); n != 2 {
		t.Errorf("%d pages written, want 2", n)
	}
	if left, err := st.Unrendered(ctx); err != nil || len(left) != 0 {
		t.Errorf("digests left unwritten: %v, %v", left, err)
	}
	older, newer := readSite(t, cfg.SiteDir, "ada/2026-11-21.html"), readSite(t, cfg.SiteDir, "ada/2026-11-22.html")
	if !strings.Contains(older, "Post 0") || !strings.Contains(older, "2026-11-22.html") {
		t.Errorf("the first page does not show its post or link the next:\n%s", older)
	}
	if !strings.Contains(newer, "Post 1") || !strings.Contains(newer, "Ada&#39;s reading") {
		t.Errorf("the second page does not show its post under the feed's name:\n%s", newer)
	}
	if feed := readSite(t, cfg.SiteDir, "ada/feed.xml"); !strings.Contains(feed, "2026-11-22") {
		t.Errorf("the Atom feed misses the newest digest:\n%s", feed)
	}
	readSite(t, cfg.SiteDir, "status.html")

	dir := t.TempDir()
	out, err := New(cfg, st, nil, now, nil).Publish(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if out != (Published{Dir: dir, Users: 1, Pages: 2, Status: true}) {
		t.Errorf("published %+v", out)
	}
	for _, name := range []string{"ada/2026-11-21.html", "ada/2026-11-22.html", "ada/index.html", "ada/feed.xml", "status.html"} {
		if got, want := readSite(t, dir, name), readSite(t, cfg.SiteDir, name); got != want {
			t.Errorf("published %s differs from the one written:\n%s\n----\n%s", name, got, want)
		}
	}
}

// The email of a digest written to the outbox is the very message Email
// gives the send step; one composed again, for a digest written in an
// earlier run, has the same bytes.
func TestBuilderKeepsTheOutboxEmailForTheSend(t *testing.T) {
	ctx := context.Background()
	const feedURL = "https://a.example/feed"
	st := stateWithDigests(t, feedURL, "2026-11-22")
	cfg := adaConfig(t, feedURL)
	cfg.Users[0].Email = "ada@example.org"
	cfg.Email.From = "digest@example.org"
	cfg.Email.Outbox = t.TempDir()
	now := time.Date(2026, 11, 22, 0, 10, 0, 0, time.UTC)

	b := New(cfg, st, st, now, nil)
	if err := b.RenderUser(ctx, "ada"); err != nil {
		t.Fatal(err)
	}
	all, err := st.Digests(ctx, "ada")
	if err != nil || len(all) != 1 {
		t.Fatalf("digests %v, %v", all, err)
	}
	kept, err := b.Email(ctx, all[0], FeedNames{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := New(cfg, st, nil, now, nil).Email(ctx, all[0], FeedNames{})
	if err != nil {
		t.Fatal(err)
	}
	if kept != b.emails[digestKey("ada", "2026-11-22")] {
		t.Error("the send step is not given the message composed for the outbox")
	}
	var k, a strings.Builder
	if _, err := kept.WriteTo(&k); err != nil {
		t.Fatal(err)
	}
	if _, err := again.WriteTo(&a); err != nil {
		t.Fatal(err)
	}
	if k.String() != a.String() {
		t.Errorf("the email composed again differs from the outbox's:\n%s\n----\n%s", k.String(), a.String())
	}
	outbox, err := filepath.Glob(filepath.Join(cfg.Email.Outbox, "*"))
	if err != nil || len(outbox) != 1 {
		t.Fatalf("outbox %v, %v", outbox, err)
	}
	if b, _ := os.ReadFile(outbox[0]); string(b) != k.String() {
		t.Errorf("the outbox file is not the message kept for the send")
	}
}
