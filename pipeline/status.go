package pipeline

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"feeddigest/config"
	"feeddigest/pages"
	"feeddigest/render"
)

// Status reads the feeds' health from the state file, without taking the
// run lock.
func Status(ctx context.Context, cfg *config.Config, now time.Time) ([]render.FeedStatus, error) {
	st, err := OpenReader(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows, err := pages.FeedRows(ctx, cfg, st, now)
	return rows, st.Damaged(err)
}

// Users says, for each user of the config, their rhythm and when their
// next digest comes as of now, from the state file read without the run
// lock. Before the first run there is no state file: every user's first
// digest is due.
func Users(ctx context.Context, cfg *config.Config, now time.Time) ([]render.UserStatus, error) {
	st, err := OpenReader(ctx, cfg)
	if errors.Is(err, fs.ErrNotExist) {
		return pages.UserRows(ctx, cfg, nil, now)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return pages.UserRows(ctx, cfg, st, now)
}
