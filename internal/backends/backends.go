// Package backends registers the state back ends the program knows, in
// the order they are tried, for the tests that open a state by its
// setting as the program does (main registers the same two).
package backends

import (
	"feeddigest/postgres"
	"feeddigest/sqlite"
	"feeddigest/store"
)

// Register registers PostgreSQL, then SQLite: last, as it takes every
// name that is not a PostgreSQL URL.
func Register() {
	store.Register(postgres.Backend)
	store.Register(sqlite.Backend)
}
