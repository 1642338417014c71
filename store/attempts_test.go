package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"feeddigest/domain"
)

func TestAttemptMarkLastsUntilThePollIsSaved(t *testing.T) {
	s, path := openTemp(t)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed", "https://b.example/feed"}}, t0)
	a, b := feeds["https://a.example/feed"], feeds["https://b.example/feed"]
	for _, f := range []domain.Feed{a, b} {
		if err := s.BeginAttempt(ctx, f.ID, t0); err != nil {
			t.Fatal(err)
		}
	}
	save(t, s, a, t0, "id:1")
	// The process dies here: the mark of b is committed, a's is gone.
	s.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	left, err := s.UnfinishedAttempts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Feed.URL != b.URL || !left[0].Started.Equal(t0) {
		t.Fatalf("unfinished: %+v, want only %s since %v", left, b.URL, t0)
	}
	if err := s.DropAttempts(ctx); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.UnfinishedAttempts(ctx); len(left) != 0 {
		t.Errorf("after DropAttempts: %+v", left)
	}
}

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
