package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A state file of schema 3 with a failed send keeps it as one attempt.
func TestSendRecordMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range append(migrations[:3:3], "PRAGMA user_version = 3",
		`INSERT INTO digests (user, date, since, built_at, send_wanted, send_error) VALUES ('ada', '2026-11-21', 0, 1000, 1, 'mail: smtp: down')`) {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	unsent, err := s.Unsent(ctx)
	if err != nil || len(unsent) != 1 {
		t.Fatalf("unsent %v (%v)", unsent, err)
	}
	if d := unsent[0]; d.SendAttempts != 1 || !d.SendFailedAt.Equal(time.Unix(1000, 0)) || d.SendPermanent {
		t.Errorf("migrated send record %+v", d)
	}
}
