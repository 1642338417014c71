package sqlite

import (
	"feeddigest/config"
	"feeddigest/store"
)

// Backend opens state files: any state name that is not a PostgreSQL
// URL. Register it last (store.Register): it handles every other name.
var Backend = store.Backend{
	Name:       "SQLite",
	Handles:    func(state string) bool { return !config.IsPostgresURL(state) },
	Open:       store.OpenWith(Open),
	OpenReader: store.ReadWith(OpenReader),
}
