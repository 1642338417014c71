// Command feeddigest builds one calm digest a day of the feeds each user
// follows: a static HTML page and an email, from an hourly cron or CI job.
//
// main only wires: it registers the state back ends, sets the memory
// limits of the process and runs the command line. The commands live in
// package cli.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"feeddigest/cli"
	"feeddigest/internal/backends"
)

// The state back ends, registered before anything opens a state
// (internal/backends, the one package that knows both, which tests
// register the same way); the pipeline and the commands open a state by
// its name (store.Open).
func init() { backends.Register() }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	limitMemory()
	stopProfile := startCPUProfile(os.Getenv("FEEDDIGEST_CPUPROFILE"))
	code := cli.Main(ctx, os.Args, os.Stdout, os.Stderr)
	stopProfile()
	os.Exit(code)
}

// memoryLimit is the soft limit of the Go heap: a run's live heap stays
// well under it (pages and mail are streamed), and near it the collector
// works harder rather than let the heap grow to twice what is live.
// GOMEMLIMIT, when set, wins.
const memoryLimit = 64 << 20

// gcPercent lets the heap grow to three times what is live between
// collections, not twice: a poll's garbage (bodies, parse trees,
// sanitiser output) is collected half as often, and memoryLimit still
// bounds the heap. GOGC, when set, wins.
const gcPercent = 200

func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// startCPUProfile writes a CPU profile of the whole process to file when
// it is not empty: a hidden switch for measuring a real run as a child
// process (BenchmarkRun2000Feeds), where go test's -cpuprofile sees only
// the test process. It is not a documented setting.
func startCPUProfile(file string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "FEEDDIGEST_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
