package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// A state file of schema 3 (before poll marks) migrates, keeping its feeds.
func TestMigrationAddsPollMarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for v, m := range migrations[:3] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
		db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v+1))
	}
	db.Exec("INSERT INTO feeds (url) VALUES ('https://a.example/feed')")
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := s.Feed(ctx, "https://a.example/feed")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.BeginAttempt(ctx, f.ID, t0); err != nil {
		t.Fatalf("after migrating: %v", err)
	}
}
