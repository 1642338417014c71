package pipeline

import (
	"context"
	"time"

	"feeddigest/config"
	"feeddigest/pages"
)

// Publish writes the whole site from the state into dir (the config's
// site_dir when ""), reading the state without changing it (see
// pages.Builder.Publish).
func Publish(ctx context.Context, cfg *config.Config, dir string, now time.Time) (pages.Published, error) {
	rd, err := OpenReader(ctx, cfg)
	if err != nil {
		return pages.Published{}, err
	}
	defer rd.Close()
	opts := Options{Now: now}
	opts.defaults()
	return pages.New(cfg, rd, nil, opts.Now, mailStatusRows).Publish(ctx, dir)
}
