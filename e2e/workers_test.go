package e2e

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"feeddigest/internal/pgtest"
	"feeddigest/internal/smtptest"
)

// loopbackFarm serves RSS feeds from many loopback hosts (127.0.1.1,
// 127.0.1.2, ...: each a host of its own to the per-host limits), each
// answer after a delay, and records per pass how often each feed was
// asked for and the most requests any host had in flight at once. An
// entry is dated with the pass it was posted in, as a real feed dates it.
type loopbackFarm struct {
	mu       sync.Mutex
	pass     string
	gets     map[string]map[string]int // pass -> feed URL -> GETs
	inFlight map[string]int            // host -> requests being answered
	peak     map[string]int            // host -> most in flight at once
	posts    map[string][]string       // feed URL -> entry ids, oldest first
	dated    map[string]string         // entry id -> its date, the pass it was posted in
	delay    time.Duration
	// padding, when set, is how many paragraphs of text each entry's
	// description has beyond its first: a heavier body takes longer to
	// parse and sanitise, with its poll's mark committed (see
	// store.Store.BeginAttempt).
	padding int
	hosts   []string // base URLs, http://127.0.x.y:port
	servers []*http.Server
}

// newLoopbackFarm starts hosts servers; it skips the test when the
// machine's loopback is not 127.0.0.0/8 (all of it loopback on Linux).
func newLoopbackFarm(t testing.TB, hosts int, delay time.Duration) *loopbackFarm {
	f := &loopbackFarm{gets: map[string]map[string]int{}, inFlight: map[string]int{}, peak: map[string]int{},
		posts: map[string][]string{}, dated: map[string]string{}, delay: delay}
	for i := range hosts {
		ip := fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250)
		l, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Fatalf("listen on %s (the tests need 127.0.0.0/8 as loopback): %v", ip, err)
		}
		srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(l)
		f.servers = append(f.servers, srv)
		f.hosts = append(f.hosts, "http://"+l.Addr().String())
	}
	t.Cleanup(func() {
		for _, s := range f.servers {
			s.Close()
		}
	})
	return f
}

func (f *loopbackFarm) startPass(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pass = name
	if f.gets[name] == nil {
		f.gets[name] = map[string]int{}
	}
}

func (f *loopbackFarm) post(url, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts[url] = append(f.posts[url], id)
	f.dated[id] = f.pass
}

func (f *loopbackFarm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	url := "http://" + r.Host + r.URL.Path
	f.mu.Lock()
	if r.Method == http.MethodGet {
		f.gets[f.pass][url]++
	}
	f.inFlight[r.Host]++
	f.peak[r.Host] = max(f.peak[r.Host], f.inFlight[r.Host])
	ids := append([]string(nil), f.posts[url]...)
	dates := make([]string, len(ids))
	for i, id := range ids {
		dates[i] = f.dated[id]
	}
	delay, padding := f.delay, f.padding
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight[r.Host]--
		f.mu.Unlock()
	}()
	select {
	case <-time.After(delay):
	case <-r.Context().Done(): // the client went away (a killed run)
		return
	}
	etag := fmt.Sprintf(`"%d"`, len(ids))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<rss version="2.0"><channel><title>%s</title>`, r.URL.Path)
	for i := len(ids) - 1; i >= 0 && i >= len(ids)-20; i-- {
		fmt.Fprintf(&b, `<item><guid>%[1]s</guid><title>Post %[1]s</title><link>https://site.example/%[1]s</link><description>Text of %[1]s`, ids[i])
		for p := range padding {
			fmt.Fprintf(&b, `&lt;p&gt;Paragraph %d of %s, &lt;em&gt;with some&lt;/em&gt; &lt;a href="https://site.example/%s/%d"&gt;markup&lt;/a&gt; to sanitise, and words enough to make an excerpt of it all.&lt;/p&gt;`, p, ids[i], ids[i], p)
		}
		b.WriteString(`</description>`)
		if when, err := time.Parse(time.RFC3339, dates[i]); err == nil {
			fmt.Fprintf(&b, `<pubDate>%s</pubDate>`, when.Format(time.RFC1123Z))
		}
		b.WriteString(`</item>`)
	}
	b.WriteString(`</channel></rss>`)
	fmt.Fprint(w, b.String())
}

// workerWorld is one PostgreSQL state, a loopback farm, an SMTP server and
// a config that several worker processes share.
type workerWorld struct {
	bin, config, site string
	users             map[string][]string // user -> feed URLs
	farm              *loopbackFarm
	mail              *smtptest.Server
	perHost, conc     int
}

const workerLease = "2s"

func newWorkerWorld(t *testing.T) *workerWorld {
	db := pgtest.NewDatabase(t)
	w := &workerWorld{bin: binary(t), farm: newLoopbackFarm(t, 3, 150*time.Millisecond), mail: smtptest.Start(t),
		users: map[string][]string{}, perHost: 2, conc: 3}
	var feeds []string
	for _, host := range w.farm.hosts {
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
	w := newWorkerWorld(t)
	seed := testSeed(t)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	var feeds []string
	for _, host := range w.farm.hosts {
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
		w.farm.startPass(pass)
		if h < 40 {
			for _, f := range feeds {
				if rng.IntN(3) == 0 {
					n++
					id := fmt.Sprintf("e-%d", n)
					w.farm.post(f, id)
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
	for pass, gets := range w.farm.gets {
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
	for host, peak := range w.farm.peak {
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
	w := newWorkerWorld(t)
	killer := killFeedBinary(t)
	var feeds []string
	for _, host := range w.farm.hosts {
		for i := range 3 {
			feeds = append(feeds, fmt.Sprintf("%s/f%d", host, i))
		}
	}
	target := feeds[1] // one of ada's, whose midnight the pass is
	w.farm.startPass("2026-11-21T20:00:00Z")
	posted := map[string]string{}
	for i, f := range feeds {
		id := fmt.Sprintf("e-%d", i)
		w.farm.post(f, id)
		posted[id] = f
	}
	now := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)
	w.farm.startPass("midnight")
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
	if n := w.farm.gets["midnight"][target]; n != 2 {
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
