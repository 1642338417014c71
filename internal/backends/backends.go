// Package backends registers the state back ends the program knows, in
// the order they are tried: main calls it before anything opens a state,
// and so do the tests that open a state by its setting as the program
// does. It is the one package that knows both back ends.
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
