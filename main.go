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

// gcPercent is Go's default, the heap growing to twice what is live
// between collections. Three times (200) collected a poll's garbage half
// as often, but memory comes first: on a day when every feed answers
// 304 it held 2,000 feeds' run at 90 MB against 81 MB (BenchmarkRun2000Feeds),
// and the peers' 400 feeds at 54 MB against 49 (BenchmarkPeers), with no
// CPU difference the benchmarks could tell from their noise; on a new day
// memoryLimit binds either way. GOGC, when set, wins.
const gcPercent = 100

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
