package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/pgtest"
	"feeddigest/internal/smtptest"
)

// workerWorld is one PostgreSQL state, a loopback farm, an SMTP server and
// a config that several worker processes share.
type workerWorld struct {
	bin, config, site string
	users             map[string][]string // user -> feed URLs
	farm              *feedtest.Farm
	mail              *smtptest.Server
	perHost, conc     int
}

const workerLease = "2s"

func newWorkerWorld(t *testing.T, hosts int) *workerWorld {
	bin := binary(t) // or skipped, before the cluster starts
	db := pgtest.NewDatabase(t)
	w := &workerWorld{bin: bin, farm: feedtest.StartFarm(t, hosts, 150*time.Millisecond), mail: smtptest.Start(t),
		users: map[string][]string{}, perHost: 2, conc: 3}
	var feeds []string
	for _, host := range w.farm.Hosts() {
		for i := range 3 {
			feeds = append(feeds, fmt.Sprintf("%s/f%d", host, i))
		}
	}
	zones := map[string]string{"ada": "Europe/London", "grace": "America/New_York", "kenji": "Asia/Tokyo", "meera": "Asia/Kolkata"}
	for i, u := range []string{"ada", "grace", "kenji", "meera"} {
		for j, f := range feeds {
			if (i+j)%3 != 0 {
				w.users[u] = append(w.users[u], f)
			}
		}
	}
	dir := t.TempDir()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "state = %q\n[fetch]\nallow_private_networks = true\nconcurrency = %d\nper_host = %d\nhost_rate = 1000.0\n", db, w.conc, w.perHost)
	fmt.Fprintf(&cfg, "[email]\nfrom = \"Digest <digest@example.org>\"\noutbox = \"outbox\"\nsmtp = %q\ntls = \"none\"\n", w.mail.URL())
	for _, u := range []string{"ada", "grace", "kenji", "meera"} {
		var urls []string
		for _, f := range w.users[u] {
			urls = append(urls, fmt.Sprintf("%q", f))
		}
		fmt.Fprintf(&cfg, "[[users]]\nname = %q\ntimezone = %q\nemail = \"%s@example.org\"\nfeeds = [%s]\n", u, zones[u], u, strings.Join(urls, ", "))
	}
	w.config = writeConfig(t, dir, cfg.String())
	w.site = filepath.Join(dir, "site")
	return w
}

func (w *workerWorld) command(now time.Time) *exec.Cmd {
	return command(w.bin, nil, "run", "-config", w.config, "-now", now.Format(time.RFC3339), "-lease", workerLease)
}

// Three worker processes an hour on one PostgreSQL state, random ones
// killed (SIGKILL) at random moments over 40 simulated hours, sometimes
// all three, then a quiet day: every entry is in exactly one digest of
// each subscriber, no digest is mailed twice, no feed is asked for twice
// in a pass (but for the polls a killed worker left unfinished, which the
// worker taking its host over repeats), and no host ever has more than
// per_host requests in flight, whichever workers send them.
func TestKilledWorkersShareAndLoseNothing(t *testing.T) {
	w := newWorkerWorld(t, 6) // twice the hosts one worker polls at once
	spread := holdUntilSpread(w.farm, w.conc, time.Second)
	seed := testSeed(t)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	var feeds []string
	for _, host := range w.farm.Hosts() {
		for i := range 3 {
			feeds = append(feeds, fmt.Sprintf("%s/f%d", host, i))
		}
	}
	posted := map[string]string{} // entry id -> feed URL
	killsIn := map[string]int{}   // pass -> workers killed in it
	start := time.Date(2026, 11, 20, 0, 10, 0, 0, time.UTC)
	n, kills, shared := 0, 0, 0
	for h := range 40 + 26 {
		now := start.Add(time.Duration(h) * time.Hour)
		pass := now.Format(time.RFC3339)
		w.farm.StartPass(pass)
		spread.reset()
		if h < 40 {
			for _, f := range feeds {
				if rng.IntN(3) == 0 {
					n++
					id := fmt.Sprintf("e-%d", n)
					w.farm.Post(f, id)
					posted[id] = f
				}
			}
		}
		toKill := 0
		if h < 40 {
			toKill = rng.IntN(4) // 0 to 3 of the 3 workers
		}
		cmds := make([]*exec.Cmd, 3)
		outs := make([]strings.Builder, 3)
		for i := range cmds {
			cmds[i] = w.command(now)
			cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		for _, i := range rng.Perm(3)[:toKill] {
			time.Sleep(time.Duration(rng.IntN(700)) * time.Millisecond)
			cmds[i].Process.Signal(syscall.SIGKILL)
		}
		survivors, polling := 0, 0
		for i, cmd := range cmds {
			err := cmd.Wait()
			if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && status.Signaled() {
				kills++
				killsIn[pass]++
				continue
			}
			if err != nil {
				t.Fatalf("worker %d at %s: %v\n%s", i, now, err, outs[i].String())
			}
			survivors++
			if !strings.Contains(outs[i].String(), "feeds polled   0 ") {
				polling++
			}
		}
		if polling > 1 {
			shared++
		}
		if survivors == 0 { // all killed: one more finishes the pass
			if out, err := w.command(now).CombinedOutput(); err != nil {
				t.Fatalf("the worker after the massacre at %s: %v\n%s", now, err, out)
			}
		}
	}
	mailed := mailedTimes(t, w.mail)
	t.Logf("%d entries, %d workers killed, %d passes polled by more than one worker, %d digests mailed", len(posted), kills, shared, len(mailed))
	checkDeliveredOnce(t, w.site, w.users, posted, mailed)
	outbox, _ := filepath.Glob(filepath.Join(filepath.Dir(w.config), "outbox", "*.eml"))
	if len(mailed) > len(outbox) || len(mailed) < len(outbox)-kills {
		t.Errorf("%d digests mailed for %d in the outbox (%d kills)", len(mailed), len(outbox), kills)
	}
	for pass, gets := range w.farm.Gets() {
		repeats := 0
		for url, n := range gets {
			if n > 1 {
				repeats += n - 1
				if killsIn[pass] == 0 {
					t.Errorf("pass %s, where no worker was killed: %s asked for %d times", pass, url, n)
				}
			}
		}
		// A killed worker leaves unfinished at most one poll for each of
		// its polling goroutines (concurrency claim loops, each polling a
		// host per_host at a time): in flight (at most concurrency of
		// them), or answered and not yet saved. Each is read again once.
		if unfinished := w.conc * w.perHost; repeats > killsIn[pass]*unfinished {
			t.Errorf("pass %s: %d repeated requests for %d workers killed, each with at most %d polls unfinished", pass, repeats, killsIn[pass], unfinished)
		}
	}
	for host, peak := range w.farm.Peaks() {
		if peak > w.perHost {
			t.Errorf("host %s had %d requests in flight at once, per_host is %d", host, peak, w.perHost)
		}
	}
	if shared == 0 {
		t.Error("no pass was polled by more than one worker: the workers did not share")
	}
}

// A worker killed (SIGKILL) while reading a feed of a shared pass, its
// mark committed: the worker that takes its host over reads that feed
// again, after the host's other feeds, alone, and does not penalise it;
// the digest of a user of that feed waits for the read and holds its
// entries. (The worker is a killfeed build that kills itself at that
// instant, see pipeline/killfeed.go: a kill from outside could not be
// timed as surely.)
func TestWorkerKilledReadingAFeedLeavesItToAnotherUnblamed(t *testing.T) {
	w := newWorkerWorld(t, 3)
	killer := killFeedBinary(t)
	var feeds []string
	for _, host := range w.farm.Hosts() {
		for i := range 3 {
			feeds = append(feeds, fmt.Sprintf("%s/f%d", host, i))
		}
	}
	target := feeds[1] // one of ada's, whose midnight the pass is
	w.farm.StartPass("2026-11-21T20:00:00Z")
	posted := map[string]string{}
	for i, f := range feeds {
		id := fmt.Sprintf("e-%d", i)
		w.farm.Post(f, id)
		posted[id] = f
	}
	now := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)
	w.farm.StartPass("midnight")
	dying := w.command(now)
	dying.Path = killer
	dying.Args[0] = killer
	dying.Env = append(dying.Env, "FEEDDIGEST_TEST_KILL_FEED="+target)
	out, _ := dying.CombinedOutput()
	if ws, ok := dying.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the worker reading %s was not killed:\n%s", target, out)
	}
	if out, err := w.command(now).CombinedOutput(); err != nil {
		t.Fatalf("the worker after: %v\n%s", err, out)
	}
	if n := w.farm.Gets()["midnight"][target]; n != 2 {
		t.Errorf("%s asked for %d times in the pass, want 2 (read again by the other worker)", target, n)
	}
	checkDeliveredOnce(t, w.site, map[string][]string{"ada": w.users["ada"]}, posted, mailedTimes(t, w.mail))
	page, err := os.ReadFile(filepath.Join(w.site, "ada", "2026-11-22.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "Could not read") {
		t.Error("ada's digest names a feed it could not read")
	}
	for _, line := range strings.Split(status(t, w.bin, w.config, now.Format(time.RFC3339)), "\n") {
		if strings.Contains(line, "penalty") || strings.Contains(line, "died") {
			t.Errorf("status: %s", line)
		}
	}
}

// spreadGate holds a pass's requests until they come for more hosts than
// one worker polls at once (so a second worker has claimed one), or for
// at most wait after the pass's first request: whether the workers share
// a pass then depends on the program, not on how fast a loaded machine
// starts the second process.
type spreadGate struct {
	mu     sync.Mutex
	hosts  map[string]bool
	spread chan struct{}
	until  time.Time
}

func holdUntilSpread(farm *feedtest.Farm, oneWorker int, wait time.Duration) *spreadGate {
	g := &spreadGate{}
	g.reset()
	farm.Hold(func(r *http.Request) {
		g.mu.Lock()
		if g.until.IsZero() {
			g.until = time.Now().Add(wait)
		}
		g.hosts[r.Host] = true
		if len(g.hosts) > oneWorker {
			select {
			case <-g.spread:
			default:
				close(g.spread)
			}
		}
		spread, left := g.spread, time.Until(g.until)
		g.mu.Unlock()
		select {
		case <-spread:
		case <-time.After(left):
		case <-r.Context().Done():
		}
	})
	return g
}

// reset starts a new pass: no host asked yet.
func (g *spreadGate) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hosts, g.spread, g.until = map[string]bool{}, make(chan struct{}), time.Time{}
}
