package sqlite

import (
	"context"

	"feeddigest/config"
	"feeddigest/store"
)

// Backend opens state files: any state name that is not a PostgreSQL
// URL. Register it last (store.Register): it handles every other name.
var Backend = store.Backend{
	Name:    "SQLite",
	Handles: func(state string) bool { return !config.IsPostgresURL(state) },
	Open: func(ctx context.Context, path string) (store.Store, error) {
		s, err := Open(ctx, path)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return s, nil
	},
	OpenReader: func(ctx context.Context, path string) (store.Reader, error) {
		s, err := OpenReader(ctx, path)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return s, nil
	},
}
