//go:build linux

package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// The work of issue "Lean": 400 RSS feeds of 10 entries each, 4 feeds on
// each of 100 loopback hosts, every answer after 50 ms, every entry's
// description about a kilobyte of escaped HTML (the farm's padding: a
// feed's body is about 11 KB).
const (
	peersHosts       = 100
	peersFeedsOfHost = 4
	peersEntries     = 10
	peersLatency     = 50 * time.Millisecond
	peersPadding     = 4
)

// peersNewDay is when feeddigest runs on the new day: its one user's
// digest hour (06:00 UTC) has just passed; the entries were published in
// the hours before. The unchanged day is a day later.
var peersNewDay = time.Date(2026, 11, 22, 6, 10, 0, 0, time.UTC)

// peersDays names the two days each program runs: the first fetch of all
// feeds, and the next day's, when no feed has changed (the hosts answer a
// request echoing the ETag with 304, any other with the same body).
var peersDays = [2]string{"new", "unchanged"}

// peerProgram is a program the benchmark measures: days fetches the work
// on both days from a fresh state and returns each day's run.
type peerProgram struct {
	name string
	days func(*peersWork, *testing.B) [2]peerRun
	// start is the program's run that does nothing but start and print
	// its version: what its executable costs before any work.
	start func(*testing.B) *exec.Cmd
}

// peerRun is what a program's run of a day cost, and how many of its
// requests the hosts answered 304 Not Modified.
type peerRun struct {
	launched
	notModified int
}

// BenchmarkPeers compares feeddigest's cost with its peers' on the same
// work: 400 feeds on 100 loopback hosts, fetched by one user of
// feeddigest (their first digest written to the outbox, then the next
// day's), by newsboat (`newsboat -x reload`) and by rss2email (`r2e run
// --no-send`, which builds each new entry's email and sends none), each
// with its default settings and a state of its own in a temporary
// folder, and by the library floor (libfloor, e2e/testdata/libfloor).
// The floor is the plainest program that does a feeddigest run's work
// with the libraries feeddigest uses (net/http, gofeed, bluemonday,
// modernc.org/sqlite, html/template, go-mail) and nothing of
// feeddigest's own code, written to hold as little as it can: eight
// feeds polled at a time with conditional GETs, parsed from the body,
// stored a transaction a feed in WAL mode, the new entries written as a
// page and an email read back row by row. It is there to tell what of
// feeddigest's memory is ours: no design built on these libraries
// needs less than the floor, so the floor against newsboat says whether
// beating newsboat is in reach at all, and feeddigest against the floor
// says how much a design of ours could win back. Each program runs twice, the new day and the unchanged day,
// each run a child of e2e/testdata/peakrss, which reports its CPU time
// and peak RSS; the benchmark checks that each run asked for every feed
// and kept every entry. A peer that is not installed is skipped with a
// line saying how to get it.
//
// It reports per program and day the peak RSS, CPU and wall seconds (the
// largest of the runs), and prints every run in a table with the
// requests the hosts answered 304. RSS is the figure to compare: CPU and
// wall move with the machine's load and with each program's concurrency
// (newsboat and rss2email fetch one feed at a time), and the unchanged
// day is not the same work for all (newsboat 2.21 keeps a feed's ETag
// only from its second fetch on, so its second run downloads every body
// again; feeddigest builds its user's next digest, the floor writes
// nothing when nothing is new). The floor's runs log the Go heap's
// sampled peak and the runtime's memory at exit (LIBFLOOR_MEMSTATS).
// It takes about two minutes a run:
//
//	go test -run '^$' -bench Peers -benchtime 1x ./e2e/
//
// FEEDDIGEST_BENCH_BINARY runs another build of feeddigest (runBenchBinary).
func BenchmarkPeers(b *testing.B) {
	w := newPeersWork(b)
	programs := []peerProgram{
		{"feeddigest", (*peersWork).feeddigest, func(b *testing.B) *exec.Cmd {
			return command(peakRSS(b), nil, runBenchBinary(b), "version")
		}},
		{"newsboat", (*peersWork).newsboat, func(b *testing.B) *exec.Cmd {
			return command(peakRSS(b), nil, requireTool(b, "newsboat", "newsboat"), "-v")
		}},
		{"rss2email", (*peersWork).rss2email, func(b *testing.B) *exec.Cmd {
			return command(peakRSS(b), nil, requireTool(b, "r2e", "rss2email"), "--version")
		}},
		{"libfloor", (*peersWork).libfloor, func(b *testing.B) *exec.Cmd {
			return command(peakRSS(b), nil, libfloorBinary(b), "-version")
		}},
	}
	runs := map[string][][2]peerRun{}
	starts := map[string]launched{}
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				runs[p.name] = append(runs[p.name], p.days(w, b))
				b.StartTimer()
			}
			b.StopTimer()
			starts[p.name], _ = runLaunched(b, p.start(b), p.name+"'s start")
			for d, day := range peersDays {
				worst := worstLaunched(runs[p.name], d)
				b.ReportMetric(float64(worst.peakRSS)/(1<<20), day+"-peak-RSS-MB")
				b.ReportMetric(worst.cpu.Seconds(), day+"-cpu-s")
				b.ReportMetric(worst.wall.Seconds(), day+"-wall-s")
			}
		})
	}
	printPeers(os.Stdout, programs, runs, starts)
}

// peersWork is the farm serving the feeds, and their URLs.
type peersWork struct {
	farm   *feedtest.Farm
	feeds  []string
	passes int // the farm's passes so far, one a measured run
}

func newPeersWork(b *testing.B) *peersWork {
	w := &peersWork{farm: feedtest.StartFarm(b, peersHosts, peersLatency)}
	w.farm.SetPadding(peersPadding)
	for i := range peersHosts * peersFeedsOfHost {
		w.feeds = append(w.feeds, w.farm.URL(i%peersHosts, fmt.Sprintf("/feed/%d", i/peersHosts)))
	}
	// The farm dates an entry with the pass it was posted in: entry e
	// of every feed at 20:00 + e hours the evening before. Ids are
	// unique across feeds, as newsboat needs.
	for e := range peersEntries {
		at := peersNewDay.Add(time.Duration(e-peersEntries) * time.Hour).Truncate(time.Hour)
		w.farm.StartPass(at.Format(time.RFC3339))
		for i, f := range w.feeds {
			w.farm.Post(f, fmt.Sprintf("feed%d-entry%d", i, e))
		}
	}
	return w
}

// measure runs cmd, started by peakrss, as the program's run of day d,
// and checks that it asked for every feed and nothing else.
func (w *peersWork) measure(b *testing.B, program string, d int, cmd *exec.Cmd) (peerRun, []byte) {
	b.Helper()
	run, stdout, _ := w.measureOutput(b, program, d, cmd)
	return run, stdout
}

// measureOutput is measure that also returns the run's standard error.
func (w *peersWork) measureOutput(b *testing.B, program string, d int, cmd *exec.Cmd) (run peerRun, stdout, stderr []byte) {
	b.Helper()
	w.passes++
	pass := fmt.Sprintf("%s %s day, run %d", program, peersDays[d], w.passes)
	w.farm.StartPass(pass)
	cost, stdout, stderr := runLaunchedOutput(b, cmd, pass)
	asked := w.farm.Requests()[pass]
	for _, f := range w.feeds {
		if asked[f] == 0 {
			b.Fatalf("%s: %s not asked for", pass, f)
		}
	}
	if len(asked) != len(w.feeds) {
		b.Fatalf("%s: asked for %d URLs, want the %d feeds", pass, len(asked), len(w.feeds))
	}
	return peerRun{launched: cost, notModified: w.farm.NotModified()[pass]}, stdout, stderr
}

// feeddigest runs `feeddigest run` for one user following every feed,
// with the default fetch settings, mail to an outbox.
func (w *peersWork) feeddigest(b *testing.B) [2]peerRun {
	dir := b.TempDir()
	quoted := make([]string, len(w.feeds))
	for i, f := range w.feeds {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	config := writeConfig(b, dir, fmt.Sprintf(`state = "state.db"
site_dir = "site"
site_url = "https://digest.example/"
[fetch]
allow_private_networks = true
[email]
from = "Digest <digest@example.org>"
outbox = "outbox"
[[users]]
name = "ada"
timezone = "UTC"
digest_hour = 6
email = "ada@example.org"
feeds = [%s]
`, strings.Join(quoted, ", ")))
	var days [2]peerRun
	for d := range days {
		now := peersNewDay.AddDate(0, 0, d)
		cmd := command(peakRSS(b), nil, runBenchBinary(b), "run", "-json", "-config", config, "-now", now.Format(time.RFC3339))
		run, stdout := w.measure(b, "feeddigest", d, cmd)
		var s feeddigestPeersSummary
		if err := json.Unmarshal(stdout, &s); err != nil {
			b.Fatalf("feeddigest's summary: %v\n%s", err, stdout)
		}
		feeds := len(w.feeds)
		want := feeddigestPeersSummary{FeedsPolled: feeds, Unchanged: feeds, DigestsBuilt: 1, OutboxWritten: 1}
		if d == 0 {
			want.Fresh, want.Unchanged, want.NewEntries = feeds, 0, feeds*peersEntries
		}
		if s != want {
			b.Fatalf("feeddigest, %s day: %+v, want %+v\n%s", peersDays[d], s, want, stdout)
		}
		if d == 1 && run.notModified != feeds {
			b.Fatalf("feeddigest, unchanged day: %d answers 304, want %d", run.notModified, feeds)
		}
		days[d] = run
	}
	return days
}

// feeddigestPeersSummary is what the benchmark checks of a run's summary
// (pipeline.Summary).
type feeddigestPeersSummary struct {
	FeedsPolled   int `json:"feeds_polled"`
	Fresh         int `json:"fresh"`
	Unchanged     int `json:"unchanged"`
	Failed        int `json:"failed"`
	NewEntries    int `json:"new_entries"`
	DigestsBuilt  int `json:"digests_built"`
	OutboxWritten int `json:"outbox_written"`
}

// newsboat runs `newsboat -x reload` on a urls file, with a cache,
// config (empty: its defaults) and home of its own.
func (w *peersWork) newsboat(b *testing.B) [2]peerRun {
	newsboat := requireTool(b, "newsboat", "newsboat")
	home := b.TempDir()
	urls := writeFile(b, home, "urls", strings.Join(w.feeds, "\n")+"\n")
	config := writeFile(b, home, "config", "")
	cache := filepath.Join(home, "cache.db")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data")}
	var days [2]peerRun
	for d := range days {
		cmd := command(peakRSS(b), env, newsboat, "-u", urls, "-c", cache, "-C", config, "-x", "reload")
		days[d], _ = w.measure(b, "newsboat", d, cmd)
		if n := countRows(b, cache, "rss_item", "newsboat's cache"); n != len(w.feeds)*peersEntries {
			b.Fatalf("newsboat, %s day: %d articles in its cache, want %d", peersDays[d], n, len(w.feeds)*peersEntries)
		}
	}
	return days
}

// countRows counts the rows of table in the SQLite file at path, a
// program's store (what names it in a failure), read only.
func countRows(b *testing.B, path, table, what string) int {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	return n
}

// rss2email runs `r2e run --no-send` with a configuration and data of its
// own, made by `r2e new` and `r2e opmlimport` (not measured).
func (w *peersWork) rss2email(b *testing.B) [2]peerRun {
	r2e := requireTool(b, "r2e", "rss2email")
	home := b.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data")}
	var opml strings.Builder
	opml.WriteString(`<?xml version="1.0"?><opml version="1.0"><head><title>feeds</title></head><body>` + "\n")
	for i, f := range w.feeds {
		fmt.Fprintf(&opml, `<outline type="rss" text="feed%d" xmlUrl="%s"/>`+"\n", i, f)
	}
	opml.WriteString("</body></opml>\n")
	opmlFile := writeFile(b, home, "feeds.opml", opml.String())
	for _, args := range [][]string{{"new", "ada@example.org"}, {"opmlimport", opmlFile}} {
		if out, err := command(r2e, env, args...).CombinedOutput(); err != nil {
			b.Fatalf("r2e %v: %v\n%s", args, err, out)
		}
	}
	var days [2]peerRun
	for d := range days {
		days[d], _ = w.measure(b, "rss2email", d, command(peakRSS(b), env, r2e, "run", "--no-send"))
		if n := countRSS2EmailSeen(b, filepath.Join(home, "data", "rss2email.json")); n != len(w.feeds)*peersEntries {
			b.Fatalf("rss2email, %s day: %d entries seen, want %d", peersDays[d], n, len(w.feeds)*peersEntries)
		}
	}
	return days
}

// countRSS2EmailSeen counts the entries rss2email's data file records as
// seen, over all feeds.
func countRSS2EmailSeen(b *testing.B, path string) int {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var state struct {
		Feeds []struct {
			Seen map[string]json.RawMessage `json:"seen"`
		} `json:"feeds"`
	}
	if err := json.Unmarshal(data, &state); err != nil {
		b.Fatalf("rss2email's data: %v", err)
	}
	var n int
	for _, f := range state.Feeds {
		n += len(f.Seen)
	}
	return n
}

// libfloorBinary is the library floor (see BenchmarkPeers).
func libfloorBinary(b *testing.B) string { return program(b, "./e2e/testdata/libfloor") }

// libfloor runs the library floor on the feeds with a state and output
// folder of its own, and logs the Go heap figures it prints.
func (w *peersWork) libfloor(b *testing.B) [2]peerRun {
	dir := b.TempDir()
	urls := writeFile(b, dir, "urls", strings.Join(w.feeds, "\n")+"\n")
	state, output := filepath.Join(dir, "state.db"), filepath.Join(dir, "output")
	var days [2]peerRun
	for d := range days {
		cmd := command(peakRSS(b), []string{"LIBFLOOR_MEMSTATS=1"}, libfloorBinary(b), state, output, urls)
		run, stdout, stderr := w.measureOutput(b, "libfloor", d, cmd)
		feeds := len(w.feeds)
		want := fmt.Sprintf("feeds %d not-modified %d new-entries %d\n", feeds, feeds, 0)
		if d == 0 {
			want = fmt.Sprintf("feeds %d not-modified %d new-entries %d\n", feeds, 0, feeds*peersEntries)
		}
		if string(stdout) != want {
			b.Fatalf("libfloor, %s day: %q, want %q", peersDays[d], stdout, want)
		}
		if d == 1 && run.notModified != feeds {
			b.Fatalf("libfloor, unchanged day: %d answers 304, want %d", run.notModified, feeds)
		}
		var stats []string
		for line := range strings.Lines(string(stderr)) {
			if s, ok := strings.CutPrefix(line, "memstats "); ok {
				stats = append(stats, strings.TrimSpace(s))
			}
		}
		b.Logf("libfloor, %s day: %s", peersDays[d], strings.Join(stats, "; "))
		if n := countRows(b, state, "entries", "libfloor's state"); n != feeds*peersEntries {
			b.Fatalf("libfloor, %s day: %d entries stored, want %d", peersDays[d], n, feeds*peersEntries)
		}
		if d == 0 {
			for _, name := range []string{"digest.html", "digest.eml"} {
				if info, err := os.Stat(filepath.Join(output, name)); err != nil || info.Size() == 0 {
					b.Fatalf("libfloor, new day: no %s written (%v)", name, err)
				}
			}
		}
		days[d] = run
	}
	return days
}

// worstLaunched is the largest of each figure of day d over the runs.
func worstLaunched(runs [][2]peerRun, d int) launched {
	var worst launched
	for _, r := range runs {
		worst.wall = max(worst.wall, r[d].wall)
		worst.cpu = max(worst.cpu, r[d].cpu)
		worst.peakRSS = max(worst.peakRSS, r[d].peakRSS)
	}
	return worst
}

// printPeers writes every run's figures as a table, each peak RSS also as
// a ratio to feeddigest's largest on the same day, and each program's
// start (its version printed) under its runs.
func printPeers(out io.Writer, programs []peerProgram, runs map[string][][2]peerRun, starts map[string]launched) {
	fmt.Fprintf(out, "issue Lean: %d feeds of %d entries on %d hosts, one run a day per program:\n",
		peersHosts*peersFeedsOfHost, peersEntries, peersHosts)
	fmt.Fprintf(out, "  %-11s %-10s %4s %12s %14s %12s %8s %8s %6s\n", "program", "day", "run", "peak RSS MB", "x feeddigest", "file+anon MB", "CPU s", "wall s", "304s")
	for _, p := range programs {
		if len(runs[p.name]) == 0 {
			fmt.Fprintf(out, "  %-11s (not run)\n", p.name)
			continue
		}
		for d, day := range peersDays {
			ours := worstLaunched(runs["feeddigest"], d).peakRSS
			for i, r := range runs[p.name] {
				ratio := "-"
				if ours > 0 {
					ratio = fmt.Sprintf("%.2fx", float64(r[d].peakRSS)/float64(ours))
				}
				parts := fmt.Sprintf("%.1f+%.1f", float64(r[d].fileRSS)/(1<<20), float64(r[d].anonRSS)/(1<<20))
				fmt.Fprintf(out, "  %-11s %-10s %4d %12.1f %14s %12s %8.2f %8.2f %6d\n", p.name, day, i+1,
					float64(r[d].peakRSS)/(1<<20), ratio, parts, r[d].cpu.Seconds(), r[d].wall.Seconds(), r[d].notModified)
			}
		}
		if st, ok := starts[p.name]; ok {
			parts := fmt.Sprintf("%.1f+%.1f", float64(st.fileRSS)/(1<<20), float64(st.anonRSS)/(1<<20))
			fmt.Fprintf(out, "  %-11s %-10s %4s %12.1f %14s %12s %8.2f %8.2f %6s\n", p.name, "start", "-",
				float64(st.peakRSS)/(1<<20), "-", parts, st.cpu.Seconds(), st.wall.Seconds(), "-")
		}
	}
}
