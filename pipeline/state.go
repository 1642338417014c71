package pipeline

import (
	"context"

	"feeddigest/config"
	"feeddigest/sqlite"
	"feeddigest/store"
)

// openState opens the state the configuration names, for a run: the one
// place that chooses the store's implementation.
func openState(ctx context.Context, cfg *config.Config) (store.Store, error) {
	return sqlite.Open(ctx, cfg.State)
}

// OpenReader opens the state the configuration names for reading only,
// beside a run that may hold it.
func OpenReader(ctx context.Context, cfg *config.Config) (store.Reader, error) {
	return sqlite.OpenReader(ctx, cfg.State)
}
