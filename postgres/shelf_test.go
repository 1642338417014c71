package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"feeddigest/internal/pgtest"
)

// backendPID is the server process behind one of the store's connections.
func backendPID(t *testing.T, s *Store) int {
	t.Helper()
	var pid int
	if err := s.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// A store opened again on the same URL gets the closed one's connections,
// another URL does not; CloseKeptPools leaves no session on the database.
func TestClosedPoolsAreKeptForTheSameURL(t *testing.T) {
	url, other := migrated.NewDatabase(t), migrated.NewDatabase(t)

	a := open(t, url)
	pid := backendPID(t, a)
	a.Close()
	a.Close() // closed twice (and once more at cleanup): kept once
	b := open(t, url)
	if got := backendPID(t, b); got != pid {
		t.Errorf("opened again: server process %d, want the closed store's %d", got, pid)
	}
	if again := closedPools.take(url); again != nil {
		t.Error("a store closed twice left its pool kept twice")
	}
	b.Close()
	c := open(t, other)
	if got := backendPID(t, c); got == pid {
		t.Errorf("another database got the kept connection of %s", url)
	}
	c.Close()

	// Nothing kept for the database: it can be copied.
	CloseKeptPools(url)
	CloseKeptPools(other)
	var sessions int
	admin, err := pgx.Connect(ctx, pgtest.Require(t).URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// pgtest's own session on each (it empties the database for the
	// next test) is not the store's.
	err = admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname IN ($1, $2) AND application_name <> $3`,
		pgtest.DatabaseName(url), pgtest.DatabaseName(other), pgtest.KeeperName).Scan(&sessions)
	if err != nil || sessions != 0 {
		t.Errorf("after CloseKeptPools: %d sessions on the databases (%v), want none", sessions, err)
	}
}

// The bound: the oldest kept pool beyond it is closed, and with none kept
// a closed store's connections end.
func TestKeptPoolsAreBounded(t *testing.T) {
	t.Cleanup(func() { KeepClosedPools(6) })
	KeepClosedPools(1)
	url, other := migrated.NewDatabase(t), migrated.NewDatabase(t)
	a := open(t, url)
	pid := backendPID(t, a)
	a.Close()
	b := open(t, other)
	b.Close() // the second kept: url's is closed
	c := open(t, url)
	if got := backendPID(t, c); got == pid {
		t.Error("a pool beyond the bound was kept")
	}
	KeepClosedPools(0)
	pid = backendPID(t, c)
	c.Close()
	d := open(t, url)
	defer d.Close()
	if got := backendPID(t, d); got == pid {
		t.Error("a pool was kept with KeepClosedPools(0)")
	}
}
