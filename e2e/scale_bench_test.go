package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/pgtest"
)

// BenchmarkSharedPasses measures shared passes at scale: the real binary
// as child processes (`feeddigest run`, under e2e/testdata/peakrss), a real
// PostgreSQL state, 20,000 feeds on 500 loopback hosts (127.0.x.y), and
// 5,000 users (20 feeds each) spread over 24 time zones, so that about a
// 24th of them is due every hour. The state is prepared once (every
// user's first digest: a pass that polls every feed) and copied for each
// number of workers; then each number of worker processes runs the
// passes of a simulated day, one an hour, started together as a cron job
// on several machines would start them. For every pass it checks, from
// the hosts' request logs, that every feed of the plan was asked for
// exactly once and no other, and reports per pass the wall time, polls,
// digests built, CPU time and each worker's peak RSS.
//
// Two variants: "latency", issue 26's target 4, where the hosts answer
// after 400 ms and each worker polls 32 feeds at once, so that a pass
// waits far longer than it computes, as on the internet; and "cpu", the
// earlier one (50 ms, 16 at once), which two cores bound. For each it
// prints the targets beside their goals: the pass rate of 2 and 4
// workers over one's (at least 1.8x and 3x) and the CPU of a pass,
// workers and PostgreSQL together, with 4 workers over one's (at most
// 1.3x).
//
//	go test -run '^$' -bench SharedPasses/latency -benchtime 1x -timeout 3h ./e2e/
//
// FEEDDIGEST_BENCH_HOURS sets the number of simulated hours (default 24,
// the full day); FEEDDIGEST_BENCH_HOSTS the hosts (default 500, with 40
// feeds each and 10 users a host: 100 for a quick try);
// FEEDDIGEST_BENCH_WORKERS the worker counts (default
// "1,2,4"); FEEDDIGEST_BENCH_LOGS a folder for the workers' logs (run -v),
// FEEDDIGEST_BENCH_PROFILES one for their CPU profiles. With
// PGTEST_PRELOAD=pg_stat_statements it prints the statements that took
// most of PostgreSQL's time over each day, or over each pass with
// FEEDDIGEST_BENCH_STATEMENTS=pass. It reports the
// CPU time of each pass: of the workers, of PostgreSQL and of this test
// process (the hosts), to tell a latency-bound pass from a CPU-bound one.
func BenchmarkSharedPasses(b *testing.B) {
	if testing.Short() {
		b.Skip("20,000 feeds, PostgreSQL and a simulated day of worker processes")
	}
	for _, v := range []scaleVariant{
		{name: "latency", latency: 400 * time.Millisecond, concurrency: 32},
		{name: "cpu", latency: 50 * time.Millisecond, concurrency: 16},
	} {
		b.Run(v.name, func(b *testing.B) { benchmarkSharedPasses(b, v) })
	}
}

// scaleVariant is how long the hosts take to answer and how many feeds
// each worker polls at once.
type scaleVariant struct {
	name        string
	latency     time.Duration
	concurrency int
}

func benchmarkSharedPasses(b *testing.B, v scaleVariant) {
	hours := envInt(b, "FEEDDIGEST_BENCH_HOURS", 24)
	counts := []int{1, 2, 4}
	if v := os.Getenv("FEEDDIGEST_BENCH_WORKERS"); v != "" {
		counts = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("FEEDDIGEST_BENCH_WORKERS=%q: want counts like 1,2,4", v)
			}
			counts = append(counts, n)
		}
	}
	w := newScaleWorld(b, v, envInt(b, "FEEDDIGEST_BENCH_HOSTS", 500))
	results := map[int][]passResult{}
	for b.Loop() {
		for _, n := range counts {
			results[n] = w.day(b, n, hours)
		}
	}
	b.StopTimer()
	// The table goes to stdout: a benchmark's log is cut after a few lines.
	base := totalWall(results[counts[0]])
	for _, n := range counts {
		rs := results[n]
		fmt.Printf("%d worker(s), %d passes:\n", n, len(rs))
		fmt.Printf("  %-20s %8s %6s %8s  %-24s %s\n", "pass", "wall", "polls", "digests", "CPU s workers/pg/test", "peak RSS per worker (MB)")
		var polls, digests int
		var peak int64
		var cpuW, cpuP, cpuT time.Duration
		for _, r := range rs {
			var rss []string
			for _, p := range r.rss {
				rss = append(rss, strconv.FormatInt(p>>20, 10))
				peak = max(peak, p)
			}
			cpu := fmt.Sprintf("%.1f/%.1f/%.1f", r.cpuWorkers.Seconds(), r.cpuPostgres.Seconds(), r.cpuTest.Seconds())
			fmt.Printf("  %-20s %7.2fs %6d %8d  %-24s %s\n", r.now.Format(time.RFC3339), r.wall.Seconds(), r.polls, r.digests, cpu, strings.Join(rss, " "))
			cpuW, cpuP, cpuT = cpuW+r.cpuWorkers, cpuP+r.cpuPostgres, cpuT+r.cpuTest
			polls += r.polls
			digests += r.digests
		}
		wall := totalWall(rs)
		speedUp := base.Seconds() / wall.Seconds()
		fmt.Printf("  total %.1fs, %d polls, %d digests, peak RSS %d MB, speed-up over %d worker(s) %.2fx\n",
			wall.Seconds(), polls, digests, peak>>20, counts[0], speedUp)
		fmt.Printf("  CPU per pass: workers %.1fs, PostgreSQL %.1fs, test process (hosts) %.1fs\n",
			cpuW.Seconds()/float64(len(rs)), cpuP.Seconds()/float64(len(rs)), cpuT.Seconds()/float64(len(rs)))
		b.ReportMetric(wall.Seconds()/float64(len(rs)), fmt.Sprintf("s/pass-%dw", n))
		b.ReportMetric(float64(peak)/(1<<20), fmt.Sprintf("peak-RSS-MB-%dw", n))
		if n != counts[0] {
			b.ReportMetric(speedUp, fmt.Sprintf("speedup-%dw", n))
		}
	}
	printGoals(os.Stdout, fmt.Sprintf("%s-bound passes (%v answers, concurrency %d a worker): issue 26's target 4",
		v.name, v.latency, v.concurrency), scaleGoals(counts, results))
}

// scaleGoals holds the worker counts' passes to issue 26's target 4,
// against the first count's: 2 workers at least 1.8 times its pass rate,
// 4 (or more) at least 3 times; the CPU of a pass, workers and PostgreSQL
// together, with 4 at most 1.3 times its.
func scaleGoals(counts []int, results map[int][]passResult) []goal {
	base := results[counts[0]]
	var goals []goal
	for _, n := range counts[1:] {
		rs := results[n]
		target := 1.8
		if n >= 4 {
			target = 3
		}
		goals = append(goals, goal{name: fmt.Sprintf("%d workers: pass rate over %d's", n, counts[0]),
			figure: totalWall(base).Seconds() / totalWall(rs).Seconds(), limit: target, unit: "x", atLeast: true,
			detail: fmt.Sprintf("%.1f s a pass, %d's %.1f s", totalWall(rs).Seconds()/float64(len(rs)), counts[0],
				totalWall(base).Seconds()/float64(len(base)))})
		if n >= 4 {
			goals = append(goals, goal{name: fmt.Sprintf("%d workers: CPU of a pass over %d's", n, counts[0]),
				figure: passCPU(rs).Seconds() / passCPU(base).Seconds(), limit: 1.3, unit: "x",
				detail: fmt.Sprintf("workers and PostgreSQL %.1f s a pass, %d's %.1f s", passCPU(rs).Seconds(), counts[0], passCPU(base).Seconds())})
		}
	}
	return goals
}

// passCPU is the CPU time of the workers and PostgreSQL in a pass, on
// average.
func passCPU(rs []passResult) time.Duration {
	var sum time.Duration
	for _, r := range rs {
		sum += r.cpuWorkers + r.cpuPostgres
	}
	return sum / time.Duration(max(1, len(rs)))
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func totalWall(rs []passResult) time.Duration {
	var d time.Duration
	for _, r := range rs {
		d += r.wall
	}
	return d
}

// A host serves 40 feeds; there are 10 users a host, 20 feeds each.
const (
	scaleFeedsPerHost = 40
	scaleUsersPerHost = 10
	scaleFeedsPerUser = 20
)

// scaleWorld is the prepared state (a database to copy and its site),
// the loopback hosts and the users' feeds.
type scaleWorld struct {
	bin, launcher string
	variant       scaleVariant
	cluster       *pgtest.Cluster
	prepared      string // database name
	site          string // the site the preparation wrote
	farm          *feedtest.Farm
	feeds         []string
	users         [][]string // feed URLs per user
	start         time.Time  // the preparation's pass
	dir           string
	logs          string // where the workers' logs go (-v), when set
	profiles      string // where the workers' CPU profiles go, when set
}

func newScaleWorld(b *testing.B, v scaleVariant, hosts int) *scaleWorld {
	w := &scaleWorld{bin: binary(b), launcher: peakRSS(b), variant: v, cluster: pgtest.Require(b), dir: b.TempDir(),
		farm:  feedtest.StartFarm(b, hosts, v.latency),
		start: time.Date(2026, 11, 20, 0, 5, 0, 0, time.UTC), logs: os.Getenv("FEEDDIGEST_BENCH_LOGS"),
		profiles: os.Getenv("FEEDDIGEST_BENCH_PROFILES")}
	for _, host := range w.farm.Hosts() {
		for i := range scaleFeedsPerHost {
			w.feeds = append(w.feeds, fmt.Sprintf("%s/f%d", host, i))
		}
	}
	// Every feed has a subscriber; the rest of each user's feeds are
	// drawn at random (a fixed seed: the same world every time).
	rng := rand.New(rand.NewPCG(12, 2026))
	users := hosts * scaleUsersPerHost
	w.users = make([][]string, users)
	for i, f := range w.feeds {
		u := i % users
		w.users[u] = append(w.users[u], f)
	}
	for u := range w.users {
		for len(w.users[u]) < scaleFeedsPerUser {
			if f := w.feeds[rng.IntN(len(w.feeds))]; !slices.Contains(w.users[u], f) {
				w.users[u] = append(w.users[u], f)
			}
		}
	}
	for i, f := range w.feeds {
		for j := range 1 + i%5 {
			w.farm.Post(f, fmt.Sprintf("p%d-%d", i, j))
		}
	}
	url := pgtest.NewDatabase(b)
	w.prepared = pgtest.DatabaseName(url)
	if os.Getenv("PGTEST_PRELOAD") != "" {
		conn, err := pgx.Connect(context.Background(), url)
		if err == nil {
			_, err = conn.Exec(context.Background(), "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
			conn.Close(context.Background())
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	w.site = filepath.Join(w.dir, "prepared-site")
	cfg := w.writeConfig(b, "prepared", url, w.site)
	began := time.Now()
	r := w.pass(b, cfg, url, 4, w.start)
	fmt.Printf("prepared in %.1fs: %d feeds polled, %d first digests (4 workers)\n", time.Since(began).Seconds(), r.polls, r.digests)
	if r.polls != len(w.feeds) || r.digests != users {
		b.Fatalf("the preparation polled %d feeds and built %d digests, want %d and %d", r.polls, r.digests, len(w.feeds), users)
	}
	return w
}

// scaleZones are 24 zones an hour apart.
func scaleZone(u int) string {
	off := u%24 - 11 // -11 .. +12
	switch {
	case off == 0:
		return "Etc/UTC"
	case off > 0: // Etc/GMT-N is N hours ahead of UTC
		return fmt.Sprintf("Etc/GMT-%d", off)
	default:
		return fmt.Sprintf("Etc/GMT+%d", -off)
	}
}

func (w *scaleWorld) writeConfig(b *testing.B, name, state, site string) string {
	var cfg strings.Builder
	// host_rate high: the pass is bound by the hosts' latency and the
	// workers' concurrency, as the benchmark means to measure, not by the
	// default one request a second per host.
	fmt.Fprintf(&cfg, "state = %q\nsite_dir = %q\n[fetch]\nallow_private_networks = true\nconcurrency = %d\nhost_rate = 1000.0\n",
		state, site, w.variant.concurrency)
	for u, feeds := range w.users {
		fmt.Fprintf(&cfg, "[[users]]\nname = \"u%04d\"\ntimezone = %q\nfeeds = [", u, scaleZone(u))
		for i, f := range feeds {
			if i > 0 {
				cfg.WriteString(", ")
			}
			fmt.Fprintf(&cfg, "%q", f)
		}
		cfg.WriteString("]\n")
	}
	return writeFile(b, w.dir, name+".toml", cfg.String())
}

// passResult is what one pass did.
type passResult struct {
	now     time.Time
	wall    time.Duration
	polls   int
	digests int
	rss     []int64 // per worker
	// CPU time of the pass: the workers (together), PostgreSQL (its
	// server and backends) and this test process (the hosts).
	cpuWorkers, cpuPostgres, cpuTest time.Duration
}

// day copies the prepared state and site, and runs hours passes with n
// workers each.
func (w *scaleWorld) day(b *testing.B, n, hours int) []passResult {
	ctx := context.Background()
	url, err := w.cluster.CopyDatabase(ctx, w.prepared, fmt.Sprintf("scale_%s_%dw", w.variant.name, n))
	if err != nil {
		b.Fatal(err)
	}
	site := filepath.Join(w.dir, fmt.Sprintf("site-%dw", n))
	if out, err := exec.Command("cp", "-a", w.site, site).CombinedOutput(); err != nil {
		b.Fatalf("copy the site: %v\n%s", err, out)
	}
	cfg := w.writeConfig(b, fmt.Sprintf("%dw", n), url, site)
	if os.Getenv("PGTEST_PRELOAD") != "" {
		defer w.topStatements(b, url, n)
	}
	var out []passResult
	for h := 1; h <= hours; h++ {
		now := w.start.Add(time.Duration(h) * time.Hour)
		// A sixth of the feeds has something new every hour.
		for i, f := range w.feeds {
			if (i+h)%6 == 0 {
				w.farm.Post(f, fmt.Sprintf("p%d-h%d", i, h))
			}
		}
		out = append(out, w.pass(b, cfg, url, n, now))
		if os.Getenv("FEEDDIGEST_BENCH_STATEMENTS") == "pass" {
			fmt.Printf("pass %s, ", now.Format(time.RFC3339))
			w.topStatements(b, url, n)
			w.resetStatements(b, url)
		}
	}
	return out
}

// pass runs n workers for the pass at now and checks it: every feed the
// pass planned asked for exactly once, and no other.
func (w *scaleWorld) pass(b *testing.B, cfg, url string, n int, now time.Time) passResult {
	name := fmt.Sprintf("%s %s", url, now.Format(time.RFC3339))
	w.farm.StartPass(name)
	r := passResult{now: now, rss: make([]int64, n)}
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	cpuWorkers := make([]time.Duration, n)
	pgBefore, testBefore := groupCPU(w.cluster.ServerPID()), selfCPU()
	began := time.Now()
	for i := range n {
		wg.Go(func() {
			args := []string{w.bin, "run", "-config", cfg, "-now", now.Format(time.RFC3339)}
			if w.logs != "" {
				args = append(args, "-v")
			}
			cmd := command(w.launcher, nil, args...)
			if w.profiles != "" {
				cmd.Env = append(cmd.Env, "FEEDDIGEST_CPUPROFILE="+filepath.Join(w.profiles,
					fmt.Sprintf("%s-%dw-%d.prof", now.Format("2006-01-02T15"), n, i)))
			}
			b, err := cmd.CombinedOutput()
			text := strings.TrimRight(string(b), "\n")
			if k := strings.LastIndex(text, "cpu-ns "); k >= 0 {
				ns, _ := strconv.ParseInt(strings.Fields(text[k+len("cpu-ns "):])[0], 10, 64)
				cpuWorkers[i] = time.Duration(ns)
			}
			if k := strings.LastIndex(text, "peak-rss-bytes "); k >= 0 {
				r.rss[i], _ = strconv.ParseInt(text[k+len("peak-rss-bytes "):], 10, 64)
				text = text[:k]
			}
			if k := strings.LastIndex(text, "cpu-ns "); k >= 0 {
				text = text[:k]
			}
			outs[i], errs[i] = text, err
			if w.logs != "" {
				log := filepath.Join(w.logs, fmt.Sprintf("%s-%dw-%d.log", now.Format("2006-01-02T15"), n, i))
				os.WriteFile(log, []byte(fmt.Sprintf("started %s, exited %s\n%s", began.Format(time.RFC3339Nano),
					time.Now().Format(time.RFC3339Nano), text)), 0o644)
			}
		})
	}
	wg.Wait()
	r.wall = time.Since(began)
	r.cpuTest = selfCPU() - testBefore
	// The backends of the workers' connections end just after them, and
	// their time goes to the server once it has reaped them.
	time.Sleep(500 * time.Millisecond)
	r.cpuPostgres = groupCPU(w.cluster.ServerPID()) - pgBefore
	for _, c := range cpuWorkers {
		r.cpuWorkers += c
	}
	for i, err := range errs {
		if err != nil {
			b.Fatalf("worker %d of %d at %s: %v\n%s", i, n, now, err, outs[i])
		}
	}
	planned, digests := w.planOf(b, url, now)
	r.digests = digests
	inPlan := make(map[string]bool, len(planned))
	for _, f := range planned {
		inPlan[f] = true
	}
	gets := w.farm.Gets()[name]
	for _, f := range planned {
		if gets[f] != 1 {
			b.Errorf("pass %s with %d workers: %s asked for %d times, want once", now.Format(time.RFC3339), n, f, gets[f])
		}
	}
	for f, count := range gets {
		r.polls += count
		if !inPlan[f] {
			b.Errorf("pass %s with %d workers: %s asked for %d times, not in the plan", now.Format(time.RFC3339), n, f, count)
		}
	}
	return r
}

// planOf reads the feeds the pass of now planned (sorted) and counts the
// digests built at now.
func (w *scaleWorld) planOf(b *testing.B, url string, now time.Time) ([]string, int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT f.url FROM pass_feeds pf JOIN passes p ON p.id = pf.pass_id
		JOIN feeds f ON f.id = pf.feed_id WHERE p.hour = $1 ORDER BY f.url`, now.Truncate(time.Hour))
	planned, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	var digests int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM digests WHERE built_at = $1", now).Scan(&digests); err != nil {
		b.Fatal(err)
	}
	return planned, digests
}

// selfCPU is the CPU time (user and system) of this test process.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// groupCPU is the CPU time of the processes of the group pgid leads (a
// PostgreSQL server and its backends), with that of the exited ones the
// leader reaped, from /proc (in clock ticks of 10 ms).
func groupCPU(pgid int) time.Duration {
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // from the state, field 3
		if len(fields) < 15 || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		for _, f := range fields[11:15] { // utime, stime, cutime, cstime
			n, _ := strconv.ParseInt(f, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// resetStatements clears pg_stat_statements, to report a pass's
// statements alone (FEEDDIGEST_BENCH_STATEMENTS=pass).
func (w *scaleWorld) resetStatements(b *testing.B, url string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
		fmt.Printf("  (pg_stat_statements_reset: %v)\n", err)
	}
}

// topStatements prints the statements that took most of the server's
// time in the database at url, when the server has pg_stat_statements
// (PGTEST_PRELOAD=pg_stat_statements).
func (w *scaleWorld) topStatements(b *testing.B, url string, n int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT calls, total_exec_time, rows, regexp_replace(left(query, 160), '\s+', ' ', 'g')
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()
		ORDER BY total_exec_time DESC LIMIT 15`)
	fmt.Printf("statements of %d worker(s), by server time:\n", n)
	var calls, nrows int64
	var ms float64
	var query string
	_, err = pgx.ForEachRow(rows, []any{&calls, &ms, &nrows, &query}, func() error {
		fmt.Printf("  %8d calls %9.0f ms %8d rows  %s\n", calls, ms, nrows, query)
		return nil
	})
	if err != nil {
		fmt.Printf("  (pg_stat_statements: %v)\n", err)
	}
}
