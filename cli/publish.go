package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"feeddigest/internal/english"
	"feeddigest/pipeline"
)

// publishCmd: `feeddigest publish`, the whole site from the state.
func publishCmd(ctx context.Context, inv *invocation) error {
	cfg, err := inv.loadConfigWarn()
	if err != nil {
		return err
	}
	dir := inv.opts.out
	if dir != "" {
		if dir, err = filepath.Abs(dir); err != nil {
			return err
		}
	}
	now, err := clock(inv.opts.now)
	if err != nil {
		return err
	}
	out, err := pipeline.Publish(ctx, cfg, dir, now)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(inv.stdout, "published %s of %s, their indexes and feeds, and the status page in %s\n",
		english.Count(out.Pages, "digest page"), english.Count(out.Users, "user"), out.Dir)
	return err
}
