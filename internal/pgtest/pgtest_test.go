package pgtest

import (
	"context"
	"errors"
	"fmt"
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

// Missing binaries skip a test only under -short and outside CI; any
// other failure to start fails it.
func TestMayMissOnlyOutsideCI(t *testing.T) {
	missing := fmt.Errorf("%w: install them", ErrNoPostgres)
	tests := []struct {
		name  string
		err   error
		short bool
		ci    string
		want  bool
	}{
		{"short, on a laptop", missing, true, "", true},
		{"short, CI=false", missing, true, "false", true},
		{"short, in CI", missing, true, "true", false},
		{"short, CI=1", missing, true, "1", false},
		{"full run", missing, false, "", false},
		{"full run in CI", missing, false, "true", false},
		{"another failure", errors.New("initdb: disk full"), true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mayMiss(tt.err, tt.short, tt.ci); got != tt.want {
				t.Errorf("mayMiss = %v, want %v", got, tt.want)
			}
		})
	}
}
