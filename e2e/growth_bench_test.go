package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // to read the SQLite state's table sizes

	"feeddigest/internal/feedtest"
	"feeddigest/internal/pgtest"
)

// BenchmarkStateGrowth measures what the state holds after a simulated
// month (issue 26's target 5), on both back ends: the real binary run
// every hour for 30 days against 1,000 feeds on 25 loopback hosts, a
// sixth of them posting an entry of about 1 KB of HTML every hour,
// followed by 250 users (20 feeds
// each) over 24 time zones. It prints each table's bytes and, from them,
// the bytes per feed (feed records, poll marks), per stored entry
// (entries and their texts), per digest (digests, their entries and
// withheld entries) and per user (subscriptions), and the whole state per
// feed; docs/design.md projects a larger installation from these.
//
//	go test -run '^$' -bench StateGrowth -benchtime 1x -timeout 4h ./e2e/
//
// FEEDDIGEST_BENCH_DAYS sets fewer days and FEEDDIGEST_BENCH_HOSTS fewer
// hosts (40 feeds and 10 users each), for a quick try.
func BenchmarkStateGrowth(b *testing.B) {
	if testing.Short() {
		b.Skip("a month of hourly runs")
	}
	days := envInt(b, "FEEDDIGEST_BENCH_DAYS", 30)
	hosts := envInt(b, "FEEDDIGEST_BENCH_HOSTS", 25)
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			for b.Loop() {
				g := newGrowthWorld(b, backend, hosts)
				g.month(b, days)
				g.report(b, days)
			}
		})
	}
}

// growthWorld is one back end's state, its hosts and users.
type growthWorld struct {
	backend, state, config string
	farm                   *feedtest.Farm
	feeds                  []string
}

func newGrowthWorld(b *testing.B, backend string, hosts int) *growthWorld {
	dir := b.TempDir()
	g := &growthWorld{backend: backend, state: filepath.Join(dir, "state.db"), farm: feedtest.StartFarm(b, hosts, time.Millisecond)}
	g.farm.SetPadding(4) // entries of about 1 KB of HTML
	if backend == "postgres" {
		g.state = pgtest.NewDatabase(b)
	}
	for _, host := range g.farm.Hosts() {
		for i := range scaleFeedsPerHost {
			g.feeds = append(g.feeds, fmt.Sprintf("%s/f%d", host, i))
		}
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "state = %q\nsite_dir = %q\n[fetch]\nallow_private_networks = true\nhost_rate = 1000.0\n",
		g.state, filepath.Join(dir, "site"))
	users := hosts * scaleUsersPerHost
	for u := range users {
		fmt.Fprintf(&cfg, "[[users]]\nname = \"u%04d\"\ntimezone = %q\nfeeds = [", u, scaleZone(u))
		for i := range scaleFeedsPerUser {
			if i > 0 {
				cfg.WriteString(", ")
			}
			// Consecutive users share most feeds: every feed has
			// about 5 subscribers.
			fmt.Fprintf(&cfg, "%q", g.feeds[(u*len(g.feeds)/users+i)%len(g.feeds)])
		}
		cfg.WriteString("]\n")
	}
	g.config = writeFile(b, dir, "growth.toml", cfg.String())
	return g
}

// month runs the binary every hour of days, a sixth of the feeds
// posting before each run.
func (g *growthWorld) month(b *testing.B, days int) {
	start := time.Date(2026, 11, 1, 0, 5, 0, 0, time.UTC)
	for h := range days * 24 {
		for i, f := range g.feeds {
			if (i+h)%6 == 0 {
				g.farm.Post(f, fmt.Sprintf("p%d-h%d", i, h))
			}
		}
		now := start.Add(time.Duration(h) * time.Hour)
		cmd := command(binary(b), nil, "run", "-config", g.config, "-now", now.Format(time.RFC3339))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("run at %s: %v\n%s", now.Format(time.RFC3339), err, out)
		}
	}
}

// growthKinds sorts the tables into what their rows grow with; the
// rest is "other".
var growthKinds = map[string]string{
	"feeds": "feed", "poll_attempts": "feed", "pass_feeds": "feed",
	"entries": "entry", "entry_texts": "entry", "article_claims": "entry",
	"digests": "digest", "digest_entries": "digest", "withheld_entries": "digest", "pass_digests": "digest",
	"subscriptions": "user",
}

// report prints the tables' bytes and the bytes per feed, stored entry,
// digest and user.
func (g *growthWorld) report(b *testing.B, days int) {
	sizes, counts, total := g.sizes(b)
	bytesOf := map[string]int64{}
	var names []string
	for name := range sizes {
		names = append(names, name)
	}
	sort.Strings(names)
	var tables int64
	for _, size := range sizes {
		tables += size
	}
	fmt.Printf("%s after %d days: %d feeds, %d stored entries, %d digests, %d users; tables %.1f MB, the whole file or database %.1f MB\n",
		g.backend, days, counts["feed"], counts["entry"], counts["digest"], counts["user"], float64(tables)/(1<<20), float64(total)/(1<<20))
	for _, name := range names {
		kind := growthKinds[name]
		if kind == "" {
			kind = "other"
		}
		bytesOf[kind] += sizes[name]
		fmt.Printf("  %-20s %-7s %10d bytes\n", name, kind, sizes[name])
	}
	for _, kind := range []string{"feed", "entry", "digest", "user"} {
		per := float64(bytesOf[kind]) / float64(max(1, counts[kind]))
		fmt.Printf("  per %-7s %8.0f bytes\n", kind, per)
		b.ReportMetric(per, "B/"+kind)
	}
	fmt.Printf("  the tables per feed: %.0f bytes\n", float64(tables)/float64(max(1, counts["feed"])))
	b.ReportMetric(float64(tables)/(1<<20), "tables-MB")
}

// sizes reads each table's bytes (indexes included), the rows that
// count, and the whole state's bytes.
func (g *growthWorld) sizes(b *testing.B) (tables map[string]int64, counts map[string]int64, total int64) {
	ctx := context.Background()
	tables, counts = map[string]int64{}, map[string]int64{}
	countsQuery := `SELECT (SELECT count(*) FROM feeds), (SELECT count(*) FROM entries),
		(SELECT count(*) FROM digests), (SELECT count(DISTINCT %s) FROM subscriptions)`
	if g.backend == "postgres" {
		conn, err := pgx.Connect(ctx, g.state)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, _ := conn.Query(ctx, `SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema()`)
		var name string
		var size int64
		if _, err := pgx.ForEachRow(rows, []any{&name, &size}, func() error { tables[name] = size; return nil }); err != nil {
			b.Fatal(err)
		}
		var f, e, d, u int64
		if err := conn.QueryRow(ctx, fmt.Sprintf(countsQuery, "user_name")).Scan(&f, &e, &d, &u); err != nil {
			b.Fatal(err)
		}
		counts["feed"], counts["entry"], counts["digest"], counts["user"] = f, e, d, u
		if err := conn.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&total); err != nil {
			b.Fatal(err)
		}
		return tables, counts, total
	}
	db, err := sql.Open("sqlite", "file:"+g.state+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT m.tbl_name, SUM(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name`)
	if err != nil {
		b.Fatalf("table sizes (dbstat): %v", err)
	}
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			b.Fatal(err)
		}
		tables[name] = size
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	var f, e, d, u int64
	if err := db.QueryRowContext(ctx, fmt.Sprintf(countsQuery, "user")).Scan(&f, &e, &d, &u); err != nil {
		b.Fatal(err)
	}
	counts["feed"], counts["entry"], counts["digest"], counts["user"] = f, e, d, u
	for _, suffix := range []string{"", "-wal"} {
		if st, err := os.Stat(g.state + suffix); err == nil {
			total += st.Size()
		}
	}
	return tables, counts, total
}
