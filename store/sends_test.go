package store

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

func TestSendFailuresAreRecorded(t *testing.T) {
	s, _ := openTemp(t)
	subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)
	for i, date := range []string{"2026-11-21", "2026-11-22"} {
		if _, err := s.BuildDigest(ctx, "ada", date, t0.Add(time.Duration(i)*24*time.Hour), true); err != nil {
			t.Fatal(err)
		}
	}
	later := t0.Add(25 * time.Hour)
	if err := s.MarkSendFailed(ctx, "ada", "2026-11-21", t0, "451 later", false); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSendFailed(ctx, "ada", "2026-11-21", later, "535 refused", true); err != nil {
		t.Fatal(err)
	}
	unsent, err := s.Unsent(ctx)
	if err != nil || len(unsent) != 2 {
		t.Fatalf("unsent %v (%v), want both digests", unsent, err)
	}
	d := unsent[0]
	if d.SendAttempts != 2 || !d.SendFailedAt.Equal(later) || !d.SendPermanent || d.SendError != "535 refused" {
		t.Errorf("send record %+v", d)
	}
	if err := s.GiveUpSend(ctx, "ada", "2026-11-21", later, "superseded"); err != nil {
		t.Fatal(err)
	}
	if unsent, _ := s.Unsent(ctx); len(unsent) != 1 || unsent[0].Date != "2026-11-22" {
		t.Errorf("a digest given up is still to be sent: %v", unsent)
	}
	notSent, _ := s.NotSent(ctx, later)
	if len(notSent) != 2 || notSent[0].SendGivenUpWhy != "superseded" || !notSent[0].SendGivenUp.Equal(later) {
		t.Errorf("not sent: %+v", notSent)
	}
	if notSent, _ := s.NotSent(ctx, later.Add(time.Hour)); len(notSent) != 1 {
		t.Errorf("a digest given up before since is still listed: %+v", notSent)
	}
}

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
