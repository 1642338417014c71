package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func digestKeys(t *testing.T, s *Store, user, date string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, e := range digestEntries(t, s, user, date) {
		out[e.Key] = true
	}
	return out
}

// A state file of schema 3 whose first digest was built keeps its backlog
// out of the next digest once migrated.
func TestMigrationWithholdsAnExistingBacklog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", "file:"+path) // a file of schema 3, written by hand
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:3] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	seen := t0.Unix()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("PRAGMA user_version = 3")
	exec("INSERT INTO feeds (id, url, last_success) VALUES (1, 'https://a.example/feed', ?)", seen)
	exec("INSERT INTO subscriptions (user, feed_id, added_at) VALUES ('ada', 1, ?)", seen)
	for i := 1; i <= 10; i++ {
		exec("INSERT INTO entries (id, feed_id, key, published, first_seen) VALUES (?, 1, ?, ?, ?)", i, fmt.Sprintf("id:%d", i), seen-int64(86400*(10-i)), seen)
	}
	exec("INSERT INTO digests (user, date, since, built_at) VALUES ('ada', '2026-11-21', 0, ?)", seen)
	for i := 6; i <= 10; i++ {
		exec("INSERT INTO digest_entries (user, date, entry_id) VALUES ('ada', '2026-11-21', ?)", i)
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(12*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.EntryCount != 0 {
		t.Errorf("digest after migration has %d old entries: %v", d.EntryCount, digestKeys(t, s, "ada", "2026-11-22"))
	}
}
