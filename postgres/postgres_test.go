package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/internal/pgtest"
	"feeddigest/store"
	"feeddigest/store/storetest"
)

// TestMain runs the tests beside a throwaway cluster, keeping closed
// stores' pools for the next Open of the same database, as the pass tests
// of other packages do (a test of the pool's own life sets it to 0).
func TestMain(m *testing.M) {
	KeepClosedPools(6)
	os.Exit(pgtest.Main(m))
}

var ctx = context.Background()

func open(t *testing.T, url string) *Store {
	t.Helper()
	return storetest.Open(t, Open, url)
}

// migrated is a database with the state's schema, made once: each
// contract test starts from a copy (pgtest.Template).
var migrated = pgtest.Template{Prepare: func(ctx context.Context, url string) error {
	s, err := Open(ctx, url)
	if err != nil {
		return err
	}
	err = s.Close()
	CloseKeptPools(url) // it is copied next
	return err
}}

// TestContract runs the store contract's behaviour tests against a real
// PostgreSQL server, a fresh database each (a copy of a migrated one).
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (store.Store, func(*testing.T) store.Store) {
		url := migrated.NewDatabase(t)
		reopen := func(t *testing.T) store.Store { return open(t, url) }
		return reopen(t), reopen
	})
	storetest.RunMigrations(t, storetest.OldStates{Migrations: migrations, Empty: emptyDatabase,
		Time: func(at time.Time) string { return "'" + at.UTC().Format(time.RFC3339) + "'" }})
}

// emptyDatabase makes a database of the schema version, its tables not
// made yet, for the migration tests (storetest.OldStates).
func emptyDatabase(t *testing.T, version int) (func(string) error, func() store.Store) {
	url := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, url)
	if err == nil {
		_, err = conn.Exec(ctx, fmt.Sprintf(`CREATE TABLE feeddigest_schema (version integer NOT NULL);
			INSERT INTO feeddigest_schema VALUES (%d)`, version))
	}
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string) error { _, err := conn.Exec(ctx, q); return err }
	return exec, func() store.Store { conn.Close(ctx); return open(t, url) }
}

// Runs share a PostgreSQL state: a second one opens it beside the first
// (they share passes instead of excluding each other; see passes_test.go),
// and so does a reader.
func TestRunsOpenTheStateTogether(t *testing.T) {
	url := pgtest.NewDatabase(t)
	s := open(t, url)
	storetest.Open(t, Open, url)       // a second run
	storetest.Open(t, OpenReader, url) // a reader beside them
	if _, err := s.Feeds(ctx); err != nil {
		t.Fatal(err)
	}
}

// Processes starting at once migrate the schema once, and all of them
// open it.
func TestConcurrentFirstOpensMigrateOnce(t *testing.T) {
	url := pgtest.NewDatabase(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := connect(ctx, url)
			if err == nil {
				err = s.migrate(ctx)
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	r, err := OpenReader(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.schemaVersion(ctx); v != schemaVersion || err != nil {
		t.Errorf("schema %d (%v), want %d", v, err, schemaVersion)
	}
}

// A database this process has migrated is not asked about its schema
// again when it is opened again by the same URL (the tests open each
// database once a pass): with its schema table renamed behind the
// process's back, the second Open still succeeds, where an Open by
// another URL of the same database looks, and finds no feeddigest state.
func TestOpenAgainSkipsTheMigrationCheck(t *testing.T) {
	url := pgtest.NewDatabase(t)
	open(t, url)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ALTER TABLE feeddigest_schema RENAME TO hidden_schema"); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ctx, url)
	if err != nil {
		t.Fatalf("second open of a migrated database: %v, want no schema check", err)
	}
	again.Close()
	other := pgtest.Require(t).SocketURL(pgtest.DatabaseName(url))
	if _, err := Open(ctx, other); !errors.Is(err, store.ErrNotState) {
		t.Fatalf("open by another URL: %v, want the schema checked (ErrNotState)", err)
	}
}

// A database holding something else is refused, and left as it was.
func TestForeignDatabaseIsRefused(t *testing.T) {
	url := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE invoices (id int)"); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, url)
	if !errors.Is(err, store.ErrNotState) || !strings.Contains(err.Error(), "1 tables") {
		t.Fatalf("open of a foreign database: %v, want ErrNotState naming its tables", err)
	}
	var tables int
	conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables)
	if tables != 1 {
		t.Errorf("the foreign database now has %d tables", tables)
	}
}

// status before the first run: an empty database is "no state yet", as
// a missing SQLite file.
func TestReaderOfAnEmptyDatabase(t *testing.T) {
	url := pgtest.NewDatabase(t)
	_, err := OpenReader(ctx, url)
	if !errors.Is(err, store.ErrNoState) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no feeddigest state in") {
		t.Fatalf("reader of an empty database: %v", err)
	}
}

// A server that cannot be reached is named in the error, without the
// password of the environment.
func TestUnreachableServerIsNamed(t *testing.T) {
	t.Setenv("PGPASSWORD", "sekrit")
	_, err := Open(ctx, "postgres://feeds@127.0.0.1:1/digest?sslmode=disable&connect_timeout=2")
	if err == nil || !strings.Contains(err.Error(), `"digest" on 127.0.0.1:1`) || strings.Contains(err.Error(), "sekrit") {
		t.Fatalf("unreachable server: %v", err)
	}
}

func TestIsURL(t *testing.T) {
	for state, want := range map[string]bool{
		"postgres://db/x": true, "postgresql://db/x": true, "POSTGRES://db/x": true,
		"state.db": false, "/var/lib/feeddigest/state.db": false, "postgres.db": false,
	} {
		if IsURL(state) != want {
			t.Errorf("IsURL(%q) = %v", state, !want)
		}
	}
}
