package pgtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// Without the binaries, the error names what is missing and how to get
// it, in one line: the line a skipped test shows.
func TestMissingBinariesAreNamed(t *testing.T) {
	t.Setenv(BinDirEnv, t.TempDir())
	_, err := Start(context.Background())
	if !errors.Is(err, ErrNoPostgres) {
		t.Fatalf("Start without binaries: %v", err)
	}
	for _, want := range []string{"PostgreSQL's server", "initdb", "apt-get install postgresql", BinDirEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the error is more than one line: %q", err)
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

// TestStaleClustersAreSwept: a cluster's folder left by a killed test
// binary (old, its server gone) is removed; one being made (no server
// yet, but new) and one whose server runs are kept.
func TestStaleClustersAreSwept(t *testing.T) {
	parent := t.TempDir()
	now := time.Now()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	cluster := func(name, pid string, age time.Duration) string {
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		if pid != "" {
			if err := os.WriteFile(filepath.Join(dir, "data", "postmaster.pid"), []byte(pid+"\n/data\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(dir, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dead := cluster("pgtest-dead", strconv.Itoa(gone.Process.Pid), 2*staleAge)
	stopped := cluster("pgtest-stopped", "", 2*staleAge)
	making := cluster("pgtest-making", "", time.Minute)
	running := cluster("pgtest-running", strconv.Itoa(os.Getpid()), 2*staleAge)
	other := cluster("not-a-cluster", "", 2*staleAge)
	sweepStale(parent, now)
	for dir, want := range map[string]bool{dead: false, stopped: false, making: true, running: true, other: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
}

// A template whose table has an identity and a row Prepare put there.
func countersTemplate() *Template {
	return &Template{Prepare: func(ctx context.Context, url string) error {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `CREATE TABLE counters (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text);
			CREATE TABLE marks (counter bigint REFERENCES counters, at int);
			INSERT INTO counters (name) VALUES ('seed')`)
		return err
	}}
}

// connect is a connection to the database at url, closed when the test
// ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// run runs statements on the database at url.
func run(t *testing.T, url, statements string) {
	t.Helper()
	if _, err := connect(t, url).Exec(context.Background(), statements); err != nil {
		t.Fatal(err)
	}
}

// rowsOf is the counters' rows at url, as "id name" lines.
func rowsOf(t *testing.T, url string) string {
	t.Helper()
	var rows string
	err := connect(t, url).QueryRow(context.Background(), `SELECT coalesce(string_agg(id || ' ' || name, ', ' ORDER BY id), '') FROM counters`).Scan(&rows)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A database handed on from a finished test starts as the template does:
// its rows, and its identities counting from where the template's were.
func TestTemplateDatabaseHandedOnStartsAsTheTemplate(t *testing.T) {
	tp := countersTemplate()
	var first string
	t.Run("first", func(t *testing.T) {
		first = tp.NewDatabase(t)
		run(t, first, `INSERT INTO counters (name) VALUES ('a'), ('b');
			INSERT INTO marks VALUES (2, 1)`)
	})
	t.Run("next", func(t *testing.T) {
		url := tp.NewDatabase(t)
		if url != first {
			t.Errorf("the next test got %s, not the finished test's %s", DatabaseName(url), DatabaseName(first))
		}
		if got := rowsOf(t, url); got != "1 seed" {
			t.Errorf("handed on with counters %q, want the template's %q", got, "1 seed")
		}
		run(t, url, `INSERT INTO counters (name) VALUES ('c')`)
		if got := rowsOf(t, url); got != "1 seed, 2 c" {
			t.Errorf("after an insert: %q, want the identity to go on from the template's (1 seed, 2 c)", got)
		}
		other := tp.NewDatabase(t) // none finished: a copy
		if other == url {
			t.Error("two tests at once got the same database")
		}
	})
}

// A database whose test changed its schema is not handed on.
func TestTemplateDatabaseChangedIsNotHandedOn(t *testing.T) {
	tp := countersTemplate()
	var changed string
	t.Run("changes", func(t *testing.T) {
		changed = tp.NewDatabase(t)
		run(t, changed, `ALTER TABLE marks ADD COLUMN extra int`)
	})
	t.Run("next", func(t *testing.T) {
		url := tp.NewDatabase(t)
		if url == changed {
			t.Fatal("a database with an altered table was handed on")
		}
		run(t, url, `INSERT INTO marks VALUES (1, 1)`) // the template's columns
	})
}
