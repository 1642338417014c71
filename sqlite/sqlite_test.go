package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
	"feeddigest/store/storetest"
)

var ctx = context.Background()

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	return storetest.Open(t, Open, path), path
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// TestContract runs the store contract's behaviour tests against SQLite
// files.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (store.Store, func(*testing.T) store.Store) {
		path := filepath.Join(t.TempDir(), "state.db")
		open := func(t *testing.T) store.Store { return storetest.Open(t, Open, path) }
		return open(t), open
	})
	storetest.RunMigrations(t, storetest.OldStates{Migrations: migrations, Empty: emptyFile,
		Time: func(at time.Time) string { return fmt.Sprint(at.Unix()) }})
}

// emptyFile makes a state file of the schema version, its tables not
// made yet, for the migration tests (storetest.OldStates).
func emptyFile(t *testing.T, version int) (exec func(string) error, open func() store.Store) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err == nil {
		_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", version))
	}
	if err != nil {
		t.Fatal(err)
	}
	exec = func(q string) error { _, err := db.Exec(q); return err }
	return exec, func() store.Store { db.Close(); return storetest.Open(t, Open, path) }
}

func TestLockIsExclusive(t *testing.T) {
	s, path := openTemp(t)
	if _, err := Open(ctx, path); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open: %v, want store.ErrLocked", err)
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
	r := storetest.Open(t, OpenReader, path)
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
	if v != schemaVersion {
		t.Fatalf("user_version %d, want %d", v, schemaVersion)
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

// save saves a poll of f at now that found entries with keys.
func save(t *testing.T, s *Store, f domain.Feed, now time.Time, keys ...string) {
	t.Helper()
	var entries []domain.Entry
	for _, k := range keys {
		entries = append(entries, domain.Entry{Key: k, Title: "T " + k, Link: "https://x.example/" + k})
	}
	f.LastPoll = now
	if err := savePoll(s, f, entries, now); err != nil {
		t.Fatal(err)
	}
}

// savePoll saves a poll as the pipeline does: the entries, then the
// record, in one transaction.
func savePoll(s *Store, f domain.Feed, entries []domain.Entry, now time.Time) error {
	tx, err := s.BeginPoll(ctx, f.ID)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.SaveEntries(ctx, entries, now, 0); err != nil {
		return err
	}
	if err := tx.UpdateFeed(ctx, f); err != nil {
		return err
	}
	return tx.Commit()
}

// digestEntries lists the whole of a digest.
func digestEntries(t *testing.T, s *Store, user, date string) []domain.Entry {
	t.Helper()
	entries, _, err := s.DigestListing(ctx, user, date, 0)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// The feed record is written last, in the same transaction: if storing
// the entries fails, the record is unchanged.
func TestFeedRecordWrittenLastInOneTransaction(t *testing.T) {
	s, _ := openTemp(t)
	f := storetest.Subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	s.db.Exec(`CREATE TRIGGER fail_on_boom BEFORE INSERT ON entries WHEN NEW.key = 'id:boom'
		BEGIN SELECT RAISE(ABORT, 'boom'); END`)
	f.ETag = `"new"`
	if err := savePoll(s, f, []domain.Entry{{Key: "id:ok"}, {Key: "id:boom"}}, t0); err == nil {
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

// Pruned entries take their digests' links with them.
func TestPruneTakesTheDigestLinks(t *testing.T) {
	s, _ := openTemp(t)
	f := storetest.Subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	save(t, s, f, t0, "id:old")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	s.MarkRendered(ctx, "ada", "2026-11-21", t0)
	save(t, s, f, t0.Add(time.Hour), "id:new") // id:old leaves the feed
	if n, _ := s.Prune(ctx, t0.AddDate(0, 0, 1)); n != 1 {
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
	f := storetest.Subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	long := ""
	for range 200 {
		long += "<p>Some paragraph of a post.</p>"
	}
	if err := savePoll(s, f, []domain.Entry{{Key: "id:new", Content: long, Summary: "sum"}}, t0); err != nil {
		t.Fatal(err)
	}
	// A row from before compression: plain text, no blob.
	s.db.Exec(`INSERT INTO entries (feed_id, key, content, summary, first_seen) VALUES (?, 'id:old', 'plain', 'old sum', ?)`, f.ID, t0.Unix())
	var stored int
	s.db.QueryRow("SELECT LENGTH(t.content_z) FROM entries e JOIN entry_texts t ON t.entry_id = e.id WHERE e.key = 'id:new'").Scan(&stored)
	if stored == 0 || stored > len(long)/4 {
		t.Errorf("stored %d bytes for %d of text", stored, len(long))
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]domain.Entry{}
	for _, e := range digestEntries(t, s, "ada", "2026-11-21") {
		got[e.Key] = e
	}
	if got["id:new"].Content != long || got["id:new"].Summary != "sum" || got["id:old"].Content != "plain" || got["id:old"].Summary != "old sum" {
		t.Errorf("texts not read back: %+v", got)
	}
}
