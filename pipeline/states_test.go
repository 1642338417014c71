package pipeline

import (
	"context"
	"os"
	"testing"

	"feeddigest/internal/backends"
	"feeddigest/internal/pgtest"
	"feeddigest/postgres"
	"feeddigest/store"
)

// TestMain registers the state back ends, as the program's main does.
func TestMain(m *testing.M) {
	backends.Register()
	// The tests open each database once a pass: idle connections are
	// kept between them, as a long-lived process would keep its pool.
	postgres.KeepClosedPools(6)
	pgtest.TempInMemory()
	os.Exit(pgtest.Main(m))
}

// A backend is a kind of state: testConfig asks it for a fresh one.
type backend struct {
	name     string
	newState func(t *testing.T) string // a state setting no other config has
}

var (
	// onSQLite is a file beside the config. A test about the SQLite state
	// alone (its lock, its file's size) passes it to testConfig itself;
	// every other pass test gets it, and onPostgres, from forEachState.
	onSQLite = backend{"sqlite", func(*testing.T) string { return "state.db" }}
	// onPostgres is a database of its own on the package's cluster.
	onPostgres = backend{"postgres", migratedDatabase}
)

// migrated is a database with the state's schema and nothing else, made
// once: each test on PostgreSQL starts from a copy.
var migrated = pgtest.Template{Prepare: func(ctx context.Context, url string) error {
	st, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	err = st.Close()
	postgres.CloseKeptPools(url) // it is copied next
	return err
}}

// migratedDatabase is a new copy of migrated.
func migratedDatabase(t *testing.T) string { return migrated.NewDatabase(t) }

// forEachState runs test once on each state back end, as subtests named
// for them: a pass behaves the same on SQLite and on PostgreSQL. The
// test runs in parallel with the other tests that call forEachState
// (each has its own servers, folders and states), so it must change no
// variable of the package; one that does uses forEachStateInTurn.
func forEachState(t *testing.T, test func(t *testing.T, state backend)) {
	t.Parallel()
	for _, b := range []backend{onSQLite, onPostgres} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b)
		})
	}
}

// forEachStateInTurn is forEachState for a test that changes a variable
// of the package: it runs on each state in turn, beside no other test.
func forEachStateInTurn(t *testing.T, test func(t *testing.T, state backend)) {
	for _, b := range []backend{onSQLite, onPostgres} {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// longOnPostgres skips, under -short, a test of tens or hundreds of
// passes on PostgreSQL, where a pass costs several times what it does on
// SQLite: the quick loop runs it on SQLite, the full run on both.
func longOnPostgres(t *testing.T, state backend) {
	t.Helper()
	if testing.Short() && state.name == onPostgres.name {
		t.Skip("tens of passes or more on PostgreSQL: run without -short")
	}
}
