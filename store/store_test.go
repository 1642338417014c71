package store

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"feeddigest/domain"
)

var ctx = context.Background()

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestLockIsExclusive(t *testing.T) {
	s, path := openTemp(t)
	if _, err := Open(ctx, path); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	// Another process is locked out too (flock is per open file).
	if _, err := exec.LookPath("flock"); err != nil {
		t.Log("no flock(1) here: skipping the other-process check")
	} else if out, err := exec.Command("flock", "-n", path+".lock", "true").CombinedOutput(); err == nil {
		t.Fatalf("another process took the lock: %s", out)
	}
	s.Close()
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	again.Close()
}

func TestReaderWorksDuringARun(t *testing.T) {
	s, path := openTemp(t)
	if err := s.SyncSubscriptions(ctx, map[string][]string{"ada": {"https://a.example/feed"}}, t0); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	feeds, err := r.Feeds(ctx)
	if err != nil || len(feeds) != 1 {
		t.Fatalf("reader: %v %v", feeds, err)
	}
	if _, err := OpenReader(ctx, filepath.Join(t.TempDir(), "none.db")); err == nil {
		t.Error("reader of a missing file must fail")
	}
}

func TestMigrationsAreVersioned(t *testing.T) {
	s, path := openTemp(t)
	var v int
	s.db.QueryRow("PRAGMA user_version").Scan(&v)
	if v != SchemaVersion {
		t.Fatalf("user_version %d, want %d", v, SchemaVersion)
	}
	s.Close()
	s2, err := Open(ctx, path) // reopening migrates nothing and keeps data
	if err != nil {
		t.Fatal(err)
	}
	s2.db.Exec("PRAGMA user_version = 999")
	s2.Close()
	if _, err := Open(ctx, path); err == nil {
		t.Error("a file from a newer program must be refused")
	}
}

func subscribe(t *testing.T, s *Store, subs map[string][]string, now time.Time) map[string]domain.Feed {
	t.Helper()
	if err := s.SyncSubscriptions(ctx, subs, now); err != nil {
		t.Fatal(err)
	}
	feeds, err := s.Feeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]domain.Feed{}
	for _, f := range feeds {
		out[f.URL] = f
	}
	return out
}

func save(t *testing.T, s *Store, f domain.Feed, now time.Time, keys ...string) SaveStats {
	t.Helper()
	var entries []domain.Entry
	for _, k := range keys {
		entries = append(entries, domain.Entry{Key: k, Title: "T " + k, Link: "https://x.example/" + k})
	}
	st, err := savePoll(s, f.ID, entries, now, func(SaveStats) domain.Feed { f.LastPoll = now; return f })
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// savePoll saves a poll as the pipeline does: entries, then the record
// that finish makes of what they were, in one transaction.
func savePoll(s *Store, feedID int64, entries []domain.Entry, now time.Time, finish func(SaveStats) domain.Feed) (SaveStats, error) {
	tx, err := s.BeginPoll(ctx, feedID)
	if err != nil {
		return SaveStats{}, err
	}
	defer tx.Rollback()
	st, err := tx.SaveEntries(ctx, entries, now)
	if err != nil {
		return SaveStats{}, err
	}
	if err := tx.UpdateFeed(ctx, finish(st)); err != nil {
		return SaveStats{}, err
	}
	return st, tx.Commit()
}

func TestEntriesStoredOnceWithFirstSeen(t *testing.T) {
	s, _ := openTemp(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	if st := save(t, s, f, t0, "id:1", "id:2"); st.New != 2 || st.Known != 0 {
		t.Fatalf("first save %+v", st)
	}
	if st := save(t, s, f, t0.Add(time.Hour), "id:2", "id:3"); st.New != 1 || st.Known != 1 {
		t.Fatalf("second save %+v", st)
	}
	d, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := s.DigestEntries(ctx, "ada", "2026-11-21")
	seen := map[string]time.Time{}
	for _, e := range entries {
		seen[e.Key] = e.FirstSeen
	}
	if d.EntryCount != 3 || !seen["id:2"].Equal(t0) || !seen["id:3"].Equal(t0.Add(time.Hour)) {
		t.Fatalf("digest %+v first seen %v", d, seen)
	}
}

// The feed record is written last, in the same transaction: if storing
// the entries fails, the record is unchanged.
func TestFeedRecordWrittenLastInOneTransaction(t *testing.T) {
	s, _ := openTemp(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	s.db.Exec(`CREATE TRIGGER fail_on_boom BEFORE INSERT ON entries WHEN NEW.key = 'id:boom'
		BEGIN SELECT RAISE(ABORT, 'boom'); END`)
	f.ETag = `"new"`
	_, err := savePoll(s, f.ID, []domain.Entry{{Key: "id:ok"}, {Key: "id:boom"}}, t0, func(SaveStats) domain.Feed { return f })
	if err == nil {
		t.Fatal("save should fail")
	}
	got, _ := s.Feed(ctx, f.URL)
	if got.ETag != "" {
		t.Errorf("feed record written despite failed entries: etag %q", got.ETag)
	}
	var n int
	s.db.QueryRow("SELECT COUNT(*) FROM entries").Scan(&n)
	if n != 0 {
		t.Errorf("%d entries left by a failed transaction", n)
	}
}

func TestDigestWindowsNeverRepeat(t *testing.T) {
	s, _ := openTemp(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	save(t, s, f, t0, "id:1")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false); err != nil {
		t.Fatal(err)
	}
	// An entry seen in the same second as the build, after it (a later pass
	// with the same clock), must come in the next digest, and only there.
	save(t, s, f, t0, "id:2")
	save(t, s, f, t0.Add(time.Hour), "id:3")
	d2, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(12*time.Hour), false)
	if err != nil {
		t.Fatal(err)
	}
	if d2.EntryCount != 2 {
		t.Errorf("second digest has %d entries, want 2 (id:2, id:3)", d2.EntryCount)
	}
	d3, _ := s.BuildDigest(ctx, "ada", "2026-11-23", t0.Add(36*time.Hour), false)
	if d3.EntryCount != 0 {
		t.Errorf("third digest repeats %d entries", d3.EntryCount)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-23", t0.Add(37*time.Hour), false); !errors.Is(err, ErrDigestExists) {
		t.Errorf("rebuilding a digest: %v", err)
	}
}

func TestSubscriptionsFollowTheConfig(t *testing.T) {
	s, _ := openTemp(t)
	subscribe(t, s, map[string][]string{"ada": {"https://a.example/1", "https://a.example/2"}, "bob": {"https://a.example/2"}}, t0)
	subscribe(t, s, map[string][]string{"ada": {"https://a.example/2"}}, t0.Add(time.Hour))
	subs, err := s.Subscribers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs["https://a.example/1"]) != 0 || len(subs["https://a.example/2"]) != 1 || subs["https://a.example/2"][0] != "ada" {
		t.Errorf("subscribers %v", subs)
	}
}

func TestPruneKeepsWhatDigestsStillNeed(t *testing.T) {
	s, _ := openTemp(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	save(t, s, f, t0, "id:old")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false); err != nil {
		t.Fatal(err)
	}
	later := t0.AddDate(0, 0, 61)
	if n, _ := s.Prune(ctx, later.AddDate(0, 0, -60)); n != 0 {
		t.Fatalf("pruned %d entries of an unrendered digest", n)
	}
	s.MarkRendered(ctx, "ada", "2026-11-21", t0)
	if n, _ := s.Prune(ctx, later.AddDate(0, 0, -60)); n != 1 {
		t.Fatalf("pruned %d, want 1", n)
	}
	var links int
	s.db.QueryRow("SELECT COUNT(*) FROM digest_entries").Scan(&links)
	if links != 0 {
		t.Errorf("%d digest links left to pruned entries", links)
	}
}

func TestEntryTextsCompressedAndOldRowsReadable(t *testing.T) {
	s, _ := openTemp(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	long := ""
	for range 200 {
		long += "<p>Some paragraph of a post.</p>"
	}
	if _, err := savePoll(s, f.ID, []domain.Entry{{Key: "id:new", Content: long, Summary: "sum"}}, t0,
		func(SaveStats) domain.Feed { return f }); err != nil {
		t.Fatal(err)
	}
	// A row from before compression: plain text, no blob.
	s.db.Exec(`INSERT INTO entries (feed_id, key, content, summary, first_seen) VALUES (?, 'id:old', 'plain', 'old sum', ?)`, f.ID, t0.Unix())
	var stored int
	s.db.QueryRow("SELECT LENGTH(t.content_z) FROM entries e JOIN entry_texts t ON t.entry_id = e.id WHERE e.key = 'id:new'").Scan(&stored)
	if stored == 0 || stored > len(long)/4 {
		t.Errorf("stored %d bytes for %d of text", stored, len(long))
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false); err != nil {
		t.Fatal(err)
	}
	entries, err := s.DigestEntries(ctx, "ada", "2026-11-21")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]domain.Entry{}
	for _, e := range entries {
		got[e.Key] = e
	}
	if got["id:new"].Content != long || got["id:new"].Summary != "sum" || got["id:old"].Content != "plain" || got["id:old"].Summary != "old sum" {
		t.Errorf("texts not read back: %+v", got)
	}
}

func TestDropTextsKeepsIdentityAndPendingDigests(t *testing.T) {
	s, _ := openTemp(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	if _, err := savePoll(s, f.ID, []domain.Entry{{Key: "id:1", Title: "One", Content: "<p>long text</p>"}}, t0,
		func(SaveStats) domain.Feed { return f }); err != nil {
		t.Fatal(err)
	}
	s.BuildDigest(ctx, "ada", "2026-11-21", t0, false)
	later := t0.AddDate(0, 0, 20)
	if n, _ := s.DropTexts(ctx, later.AddDate(0, 0, -14)); n != 0 {
		t.Fatalf("dropped the text of an entry an unrendered digest needs")
	}
	s.MarkRendered(ctx, "ada", "2026-11-21", t0)
	if n, _ := s.DropTexts(ctx, later.AddDate(0, 0, -14)); n != 1 {
		t.Fatalf("dropped %d texts, want 1", n)
	}
	entries, _ := s.DigestEntries(ctx, "ada", "2026-11-21")
	if len(entries) != 1 || entries[0].Title != "One" || entries[0].Content != "" {
		t.Fatalf("after dropping texts: %+v", entries)
	}
	// Its identity stays: seen again, it is not new.
	if st := save(t, s, f, later, "id:1"); st.New != 0 {
		t.Errorf("an entry whose text was dropped came back as new")
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
}
