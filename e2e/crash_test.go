package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// slowSite serves RSS feeds at paths, empty until entries are posted to
// them hour by hour of the simulated clock, each listing its 20 newest,
// each response after delay, so a run can be killed in the middle of its
// work.
func slowSite(t *testing.T, delay time.Duration, paths ...string) *feedtest.Server {
	s := feedtest.Start(t)
	s.SetWindow(20)
	s.SetLatency(delay)
	for _, p := range paths {
		s.Publish(p, feedtest.Feed{Title: p})
	}
	return s
}

// post publishes the entry id in the feed at path.
func post(s *feedtest.Server, path, id string) {
	s.Add(path, feedtest.Entry{ID: id, Title: "Post " + id})
}

// testSeed is the seed of a randomised test: FEEDDIGEST_TEST_SEED to
// replay a failure (the tests log theirs), else the clock.
func testSeed(t *testing.T) uint64 {
	if v := os.Getenv("FEEDDIGEST_TEST_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("FEEDDIGEST_TEST_SEED=%q: %v", v, err)
		}
		return seed
	}
	return uint64(time.Now().UnixNano())
}

// postDated publishes the entry id in the feed at path, dated when, as
// real feeds date their entries: a feed that a killed run left unread
// when its user subscribed tells by the dates what it published since
// (store.Introduce; an undated first read is cut to the newest five).
func postDated(s *feedtest.Server, path, id string, when time.Time) {
	s.Add(path, feedtest.Entry{ID: id, Title: "Post " + id, Published: when})
}

var messageID = regexp.MustCompile(`(?m)^Message-ID: (.*?)\r?$`)

// mailedTimes counts the messages the server accepted, by Message-ID.
func mailedTimes(t *testing.T, mail *smtptest.Server) map[string]int {
	counts := map[string]int{}
	for _, m := range mail.Messages() {
		id := messageID.FindSubmatch(m.Data)
		if id == nil {
			t.Fatalf("a message without Message-ID:\n%s", m.Data)
		}
		counts[string(id[1])]++
	}
	return counts
}

var pageEntry = regexp.MustCompile(`href="https://site\.example/([a-z]+-[0-9]+)"`)

// pageCounts counts, per entry id, the daily pages of user that link it.
func pageCounts(t *testing.T, site, user string) map[string]int {
	t.Helper()
	pages, _ := filepath.Glob(filepath.Join(site, user, "????-??-??.html"))
	counts := map[string]int{}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range pageEntry.FindAllSubmatch(b, -1) {
			seen[string(m[1])] = true
		}
		for id := range seen {
			counts[id]++
		}
	}
	return counts
}

type crashWorld struct {
	bin, config, site string
	users             map[string][]string // user -> feed paths
	feeds             *feedtest.Server
	mail              *smtptest.Server
}

func newCrashWorld(t *testing.T, delay time.Duration) *crashWorld {
	ts := slowSite(t, delay, "/a", "/b", "/c", "/d", "/e")
	mail := smtptest.Start(t)
	dir := t.TempDir()
	users := map[string][]string{
		"ada":   {"/a", "/b", "/c"},
		"grace": {"/b", "/d"},
		"kenji": {"/a", "/d", "/e"},
	}
	zones := map[string]string{"ada": "Europe/London", "grace": "America/New_York", "kenji": "Asia/Tokyo"}
	cfg := testConfig{Fetch: "concurrency = 2\nper_host = 1\nhost_rate = 1000.0\n", Outbox: "outbox", SMTP: mail.URL()}
	for _, u := range []string{"ada", "grace", "kenji"} {
		var urls []string
		for _, f := range users[u] {
			urls = append(urls, ts.URL+f)
		}
		cfg.Users = append(cfg.Users, testUser{Name: u, Zone: zones[u], Email: true, Feeds: urls})
	}
	path := cfg.write(t, dir)
	return &crashWorld{bin: binary(t), config: path, site: filepath.Join(dir, "site"), users: users, feeds: ts, mail: mail}
}

func (w *crashWorld) command(now time.Time) *exec.Cmd {
	return command(w.bin, nil, "run", "-config", w.config, "-now", now.Format(time.RFC3339))
}

// runToEnd runs the binary to completion; it must succeed.
func (w *crashWorld) runToEnd(t *testing.T, now time.Time) {
	t.Helper()
	out, err := w.command(now).CombinedOutput()
	if err != nil {
		t.Fatalf("run at %s: %v\n%s", now, err, out)
	}
}

// check: every posted entry in exactly one daily page of every
// subscriber, and no digest mailed twice.
func (w *crashWorld) check(t *testing.T, posted map[string]string) {
	t.Helper()
	checkDeliveredOnce(t, w.site, w.users, posted, mailedTimes(t, w.mail))
}

// checkDeliveredOnce checks that every posted entry (id -> feed) is in
// exactly one daily page of each user subscribed to its feed (user ->
// feeds) and in none of the others', and that no digest was mailed twice.
func checkDeliveredOnce(t *testing.T, site string, users map[string][]string, posted map[string]string, mailed map[string]int) {
	t.Helper()
	for user, feeds := range users {
		got := pageCounts(t, site, user)
		for id, feed := range posted {
			want := 0
			if slices.Contains(feeds, feed) {
				want = 1
			}
			if got[id] != want {
				t.Errorf("%s: entry %s (%s) in %d daily pages, want %d", user, id, feed, got[id], want)
			}
		}
	}
	for id, n := range mailed {
		if n > 1 {
			t.Errorf("digest %s mailed %d times", id, n)
		}
	}
}

func TestKilledRunsLoseNothingAndRepeatNothing(t *testing.T) {
	w := newCrashWorld(t, 15*time.Millisecond)
	seed := testSeed(t)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	posted := map[string]string{}
	feeds := []string{"/a", "/b", "/c", "/d", "/e"}
	start := time.Date(2026, 11, 20, 0, 10, 0, 0, time.UTC)
	kills, n := 0, 0
	for h := range 40 {
		now := start.Add(time.Duration(h) * time.Hour)
		for _, f := range feeds {
			if rng.IntN(3) == 0 {
				n++
				id := fmt.Sprintf("%s-%d", f[1:], n)
				postDated(w.feeds, f, id, now)
				posted[id] = f
			}
		}
		// Kill the run at a random moment, up to three times, then let one finish.
		for range rng.IntN(4) {
			cmd := w.command(now)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rng.IntN(250)) * time.Millisecond)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			kills++
		}
		w.runToEnd(t, now)
	}
	// A quiet day after: every subscriber's next digest takes the rest.
	for h := 40; h < 66; h++ {
		w.runToEnd(t, start.Add(time.Duration(h)*time.Hour))
	}
	mailed := len(mailedTimes(t, w.mail))
	t.Logf("%d entries, %d kills, %d digests mailed", len(posted), kills, mailed)
	w.check(t, posted)
	outbox, _ := filepath.Glob(filepath.Join(filepath.Dir(w.config), "outbox", "*.eml"))
	if mailed > len(outbox) || mailed < len(outbox)-kills {
		t.Errorf("%d digests mailed for %d in the outbox (%d kills)", mailed, len(outbox), kills)
	}
}

func TestInterruptedRunStopsCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			w := newCrashWorld(t, 2*time.Second)
			for _, f := range []string{"/a", "/b", "/c", "/d", "/e"} {
				post(w.feeds, f, f[1:]+"-1")
			}
			now := time.Date(2026, 11, 20, 0, 10, 0, 0, time.UTC)
			cmd := w.command(now)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signalled while it polls (its feeds answer after 2 s): by
			// then it listens for signals, however loaded the machine.
			for deadline := time.Now().Add(20 * time.Second); w.feeds.PeakInFlight() == 0 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("an interrupted run exited 0")
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the run did not stop on " + sig.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say it was interrupted: %q", stderr.String())
			}
			first, _ := bufio.NewReader(strings.NewReader(stderr.String())).ReadString('\n')
			t.Logf("said: %s", strings.TrimSpace(first))
			// The lock is free and the next run completes the work.
			w.feeds.SetLatency(0)
			w.runToEnd(t, now)
			posted := map[string]string{}
			for _, f := range []string{"/a", "/b", "/c", "/d", "/e"} {
				posted[f[1:]+"-1"] = f
			}
			w.check(t, posted)
		})
	}
}
