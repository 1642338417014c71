package pgtest

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// Each test gets its own empty database on one real server, reachable
// over TCP and over the Unix socket.
func TestDatabasesAreSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two tests share %s", a)
	}
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE mine (n int)"); err != nil {
		t.Fatal(err)
	}
	c := Require(t)
	other, err := pgx.Connect(ctx, c.SocketURL(DatabaseName(b)))
	if err != nil {
		t.Fatalf("over the socket: %v", err)
	}
	defer other.Close(ctx)
	var n int
	if err := other.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'mine'").Scan(&n); err != nil || n != 0 {
		t.Errorf("the other database sees the table: %d %v", n, err)
	}
}

// Without the binaries, the error names what is missing and how to get it.
func TestMissingBinariesAreNamed(t *testing.T) {
	t.Setenv(BinDirEnv, t.TempDir())
	_, err := Start(context.Background())
	if !errors.Is(err, ErrNoPostgres) {
		t.Fatalf("Start without binaries: %v", err)
	}
	for _, want := range []string{"initdb", "apt-get install postgresql", BinDirEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
}

// A copy of a database holds what the original held.
func TestCopyDatabase(t *testing.T) {
	ctx := context.Background()
	orig := NewDatabase(t)
	conn, err := pgx.Connect(ctx, orig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	copied, err := Require(t).CopyDatabase(ctx, DatabaseName(orig), "copy")
	if err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, copied)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM kept").Scan(&n); err != nil || n != 42 {
		t.Errorf("the copy holds %d (%v)", n, err)
	}
}
