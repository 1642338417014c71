package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// Thirty simulated days of hourly runs: 200 feeds, three users in three
// zones, feeds posting at their own pace (four of them every two hours,
// faster than their window between midnights). Every entry must reach
// every subscriber exactly once, and the state file must stay small.
func TestMonthOfHourlyRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("a month of runs")
	}
	longWithoutRace(t)
	// Beside the other tests (its own server, folder and state): minutes
	// of work on one core at a time, which alone kept the other idle.
	t.Parallel()
	const feeds, days = 200, 30
	pub := feedtest.Start(t)
	pub.SetWindow(10)
	url := func(i int) string { return fmt.Sprintf("%q", pub.URL+fmt.Sprintf("/f%d", i)) }
	var ada, grace, kenji []string
	for i := range feeds {
		ada = append(ada, url(i))
		if i < 100 {
			grace = append(grace, url(i))
		}
		if i >= 100 || i < 20 {
			kenji = append(kenji, url(i))
		}
	}
	cfg := testConfig(t, onSQLite, fmt.Sprintf(`
[[users]]
name = "ada"
timezone = "Europe/London"
feeds = [%s]
[[users]]
name = "grace"
timezone = "America/New_York"
digest_hour = 7
feeds = [%s]
[[users]]
name = "kenji"
timezone = "Asia/Tokyo"
feeds = [%s]
`, strings.Join(ada, ","), strings.Join(grace, ","), strings.Join(kenji, ",")), "")
	subscribers := func(i int) []string {
		subs := []string{"ada"}
		if i < 100 {
			subs = append(subs, "grace")
		}
		if i >= 100 || i < 20 {
			subs = append(subs, "kenji")
		}
		return subs
	}
	busy := func(i int) bool { return i%50 == 0 }
	type posted struct {
		feed, hour int
	}
	all := map[string]posted{}
	n := 0
	start := at("2026-11-01T00:30:00Z")
	began := time.Now()
	var polls, requests int
	for h := range days * 24 {
		now := start.Add(time.Duration(h) * time.Hour)
		for i := range feeds {
			every := 24 * (1 + i%3)
			if busy(i) {
				every = 2
			}
			if (h+i*7)%every == 0 {
				n++
				id := fmt.Sprintf("e-%d", n)
				pub.Add(fmt.Sprintf("/f%d", i), feedtest.Entry{ID: id, Title: "Post " + id, Body: prose(n, 1500), Published: now})
				all[id] = posted{i, h}
			}
		}
		sum, err := Run(context.Background(), cfg, Options{Now: now})
		if err != nil {
			t.Fatalf("run at %s: %v", now, err)
		}
		polls += sum.FeedsPolled
		requests += sum.Requests
	}
	// A quiet day so that the last entries reach every digest.
	for h := range 26 {
		runAt(t, cfg, start.Add(time.Duration(days*24+h)*time.Hour).Format(time.RFC3339))
	}
	elapsed := time.Since(began)
	info, err := os.Stat(cfg.State)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d days, %d feeds, %d entries: %d polls, %d requests, state file %.2f MB, %v",
		days, feeds, len(all), polls, requests, float64(info.Size())/1e6, elapsed.Round(time.Second))
	if keep := os.Getenv("FEEDDIGEST_KEEP_STATE"); keep != "" {
		if b, err := os.ReadFile(cfg.State); err == nil {
			os.WriteFile(keep, b, 0o644)
		}
	}
	if info.Size() > 5_000_000 {
		t.Errorf("state file %d bytes, want under 5 MB", info.Size())
	}
	for _, user := range []string{"ada", "grace", "kenji"} {
		got := delivered(t, cfg, user)
		lost := 0
		for id, p := range all {
			want := 0
			for _, s := range subscribers(p.feed) {
				if s == user {
					want = 1
				}
			}
			// A busy feed loses what rolled out of its window before its
			// first overflow was seen (day one); never after.
			if got[id] == 0 && want == 1 && busy(p.feed) && p.hour < 24 {
				lost++
				continue
			}
			if got[id] != want {
				t.Errorf("%s: %s of feed %d (hour %d) in %d daily pages, want %d", user, id, p.feed, p.hour, got[id], want)
			}
		}
		t.Logf("%s: %d entries lost on day one to busy feeds' windows", user, lost)
	}
}

var vocabulary = strings.Fields(`the a of and to in is was for on that with as by at from it this be are
have not but had his they you were her she which one all we there their when been has more would if out so
said what up its about into than them can only other new some could time these two may then do first any my
now such like our over man me even most made after also did many before must through back years where much
your way well down should because each just those people how too little state good very make world still own
see men work long get here between both life being under never day same another know while last might us
great old year off come since against go came right used take three garden winter river kettle notebook
library walk bread frost light tea chair wood window morning evening letter book train station bridge field`)

// prose is n-seeded text of about size bytes, paragraphs with links: it
// compresses like real posts do, not like a repeated string.
func prose(n, size int) string {
	rng := rand.New(rand.NewPCG(uint64(n), 99))
	var b strings.Builder
	for b.Len() < size {
		b.WriteString("<p>")
		for w := 0; w < 40; w++ {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocabulary[rng.IntN(len(vocabulary))])
		}
		fmt.Fprintf(&b, ` <a href="https://elsewhere.example/%d/%d">more</a>.</p>`, n, rng.IntN(1000))
	}
	return b.String()
}

// longWithoutRace skips a month-long simulation under the race detector
// (see raceDetector), saying which command runs it.
func longWithoutRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("a month of passes through the SQLite driver, twenty times slower under -race: " +
			"run without -race by the README's full test command (go test -run Month ./pipeline)")
	}
}
