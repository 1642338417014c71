package pipeline

import (
	"context"
	"errors"
	"fmt"

	"feeddigest/config"
	"feeddigest/store"
)

// Migrate copies the configuration's SQLite state into the empty
// PostgreSQL database at toURL: every feed record, entry (with its
// texts), subscription, digest, and what each user was given, with their
// IDs, so that the next run on PostgreSQL goes on exactly where the last
// one on SQLite stopped. It holds the SQLite state's run lock meanwhile
// (no run changes it half-way), and the copy is one transaction: a
// failed copy leaves the database empty. The SQLite file is not changed.
func Migrate(ctx context.Context, cfg *config.Config, toURL string) (store.Loaded, error) {
	if cfg.StateIsPostgres() {
		return store.Loaded{}, errors.New("the config's state is a PostgreSQL database already; migrate copies an SQLite state file into one")
	}
	if err := config.CheckPostgresURL(toURL); err != nil {
		return store.Loaded{}, fmt.Errorf("-to: %w", err)
	}
	if !HasState(ctx, cfg) {
		return store.Loaded{}, fmt.Errorf("no state file at %s: nothing to copy", cfg.State)
	}
	src, err := store.Open(ctx, cfg.State)
	if err != nil {
		return store.Loaded{}, err
	}
	defer src.Close()
	dump, ok := src.(store.Dumper)
	if !ok {
		return store.Loaded{}, fmt.Errorf("the state at %s cannot be copied: its back end cannot dump it", cfg.State)
	}
	dst, err := store.Open(ctx, toURL)
	if err != nil {
		return store.Loaded{}, err
	}
	defer dst.Close()
	load, ok := dst.(store.Loader)
	if !ok {
		return store.Loaded{}, fmt.Errorf("-to: the state at %s cannot be filled by a copy", toURL)
	}
	n, err := load.Load(ctx, dump)
	return n, src.Damaged(err)
}
