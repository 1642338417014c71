// Command feeddigest builds one calm digest a day of the feeds each user
// follows: a static HTML page and an email, from an hourly cron or CI job.
//
// The commands are defined in cmd.go (the table, help and flag parsing)
// and in one cmd_*.go file per command.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	progName = invokedAs(os.Args[0])
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
