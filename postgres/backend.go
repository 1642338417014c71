package postgres

import (
	"context"

	"feeddigest/config"
	"feeddigest/store"
)

// Backend opens PostgreSQL states: postgres:// and postgresql:// URLs.
var Backend = store.Backend{
	Name:    "PostgreSQL",
	Handles: config.IsPostgresURL,
	Open: func(ctx context.Context, url string) (store.Store, error) {
		s, err := Open(ctx, url)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return s, nil
	},
	OpenReader: func(ctx context.Context, url string) (store.Reader, error) {
		s, err := OpenReader(ctx, url)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return s, nil
	},
}
