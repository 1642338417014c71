package pipeline

import (
	"context"
	"errors"
	"io/fs"

	"feeddigest/config"
	"feeddigest/postgres"
	"feeddigest/sqlite"
	"feeddigest/store"
)

// openState opens the state the configuration names, for a run: the one
// place that chooses the store's implementation. A postgres:// URL is a
// PostgreSQL database, anything else an SQLite file.
func openState(ctx context.Context, cfg *config.Config) (store.Store, error) {
	if cfg.StateIsPostgres() {
		return postgres.Open(ctx, cfg.State)
	}
	return sqlite.Open(ctx, cfg.State)
}

// OpenReader opens the state the configuration names for reading only,
// beside a run that may hold it. No state yet (no SQLite file, or a
// database without feeddigest's tables) is an error wrapping
// fs.ErrNotExist.
func OpenReader(ctx context.Context, cfg *config.Config) (store.Reader, error) {
	if cfg.StateIsPostgres() {
		return postgres.OpenReader(ctx, cfg.State)
	}
	return sqlite.OpenReader(ctx, cfg.State)
}

// HasState says whether the configuration's state exists yet: false
// before the first run (no SQLite file, or a database without
// feeddigest's tables). A state that cannot be read counts as existing:
// reading it then says what is wrong.
func HasState(ctx context.Context, cfg *config.Config) bool {
	st, err := OpenReader(ctx, cfg)
	if err == nil {
		st.Close()
	}
	return !errors.Is(err, fs.ErrNotExist)
}
