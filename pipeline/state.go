package pipeline

import (
	"context"

	"feeddigest/config"
	"feeddigest/store"
)

// openState opens the state the configuration names, for a run, with the
// back end the program registered for it (store.Register: main wires
// them; the pipeline imports neither).
func openState(ctx context.Context, cfg *config.Config) (store.Store, error) {
	return store.Open(ctx, cfg.State)
}

// OpenReader opens the state the configuration names for reading only,
// beside a run that may hold it. No state yet (no SQLite file, or a
// database without feeddigest's tables) is an error wrapping
// fs.ErrNotExist.
func OpenReader(ctx context.Context, cfg *config.Config) (store.Reader, error) {
	return store.OpenReader(ctx, cfg.State)
}

// HasState says whether the configuration's state exists yet: false
// before the first run (no SQLite file, or a database without
// feeddigest's tables). A state that cannot be read counts as existing:
// reading it then says what is wrong.
func HasState(ctx context.Context, cfg *config.Config) bool {
	return store.Exists(ctx, cfg.State)
}
