package cli

import (
	"context"
	"errors"
	"fmt"

	"feeddigest/pipeline"
)

// migrateCmd: `feeddigest migrate -to URL`, the SQLite state copied into
// PostgreSQL.
func migrateCmd(ctx context.Context, inv *invocation) error {
	if inv.opts.to == "" {
		return errors.New("-to is required: the URL of an empty PostgreSQL database (postgres://user@host:port/db)")
	}
	cfg, err := inv.loadConfigWarn()
	if err != nil {
		return err
	}
	n, err := pipeline.Migrate(ctx, cfg, inv.opts.to)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(inv.stdout, `copied %d feeds, %d entries, %d subscriptions, %d digests from %s
into %s.
Set state = %q in %s to go on there; %s is left as it was.
`, n.Feeds, n.Entries, n.Subscriptions, n.Digests, cfg.State, inv.opts.to, inv.opts.to, cfg.Path, cfg.State)
	return err
}
