package e2e

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A weekly user's daily polls survive kill -9 at any moment: a feed not
// polled yet that day is still owed a poll at the next run, because what a
// daily poll owes is read from the feed records, which are stored with
// the entries. Five feeds post 30 entries a week each, more than the 20 a
// feed shows, so a lost daily poll loses entries.
func TestWeeklyUserKilledRunsLoseNothing(t *testing.T) {
	feeds := []string{"/a", "/b", "/c", "/d", "/e"}
	ts := slowSite(t, 15*time.Millisecond, feeds...)
	var urls []string
	for _, f := range feeds {
		urls = append(urls, fmt.Sprintf("%q", ts.URL+f))
	}
	config := writeConfig(t, t.TempDir(), fmt.Sprintf("[fetch]\nallow_private_networks = true\nconcurrency = 2\nper_host = 1\nhost_rate = 1000.0\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\ndigest_hour = 6\nevery = \"week\"\ndigest_day = \"monday\"\nfeeds = [%s]\n",
		strings.Join(urls, ", ")))
	bin := binary(t)
	runAt := func(now time.Time) *exec.Cmd {
		return command(bin, nil, "run", "-config", config, "-now", now.Format(time.RFC3339))
	}
	runToEnd := func(now time.Time) {
		t.Helper()
		if out, err := runAt(now).CombinedOutput(); err != nil {
			t.Fatalf("run at %s: %v\n%s", now, err, out)
		}
	}
	seed := testSeed(t)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	posted := map[string]bool{}
	n, kills := 0, 0
	start := time.Date(2026, 11, 4, 6, 20, 0, 0, time.UTC) // a Wednesday, at the digest hour
	runToEnd(start)                                        // the first digest, at once
	const days = 14
	for day := 1; day <= days+1; day++ {
		now := start.AddDate(0, 0, day)
		if day <= days {
			for range 4 {
				for _, f := range feeds {
					n++
					id := fmt.Sprintf("%s-%d", f[1:], n)
					postDated(ts, f, id, now)
					posted[id] = true
				}
			}
		}
		// The day's poll, killed at a random moment up to three times;
		// the run an hour later finishes what is owed.
		for range rng.IntN(4) {
			cmd := runAt(now)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			kills++
		}
		runToEnd(now.Add(time.Hour))
	}
	runToEnd(time.Date(2026, 11, 23, 6, 30, 0, 0, time.UTC)) // the Monday after the last posts
	pages, _ := filepath.Glob(filepath.Join(filepath.Dir(config), "site", "ada", "????-??-??.html"))
	if len(pages) != 4 {
		t.Errorf("%d weekly digests, want 4 (the first at once, then three Mondays): %v", len(pages), pages)
	}
	got := pageCounts(t, filepath.Join(filepath.Dir(config), "site"), "ada")
	for id := range posted {
		if got[id] != 1 {
			t.Errorf("%s in %d weekly digests, want 1", id, got[id])
		}
	}
	t.Logf("%d entries, %d kills", len(posted), kills)
}
