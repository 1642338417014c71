package e2e

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// Runs killed from outside, and failures of the machine, cost nobody an
// entry and no feed a penalty.

// busyCPU keeps a core spinning until the returned stop is called: a
// window that never opens on an idle machine (a poll's mark committed,
// its save not yet) opens on a loaded runner.
func busyCPU() (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; !done.Load(); n++ {
			if n%1_000_000 == 0 {
				runtime.Gosched()
			}
		}
	}()
	return func() { done.Store(true); wg.Wait() }
}

// killWorld is 100 feeds on 10 slow loopback hosts, four users whose
// midnight is the same instant, each following 75 of the feeds, and a
// state on SQLite.
type killWorld struct {
	bin, dir, config, site string
	farm                   *feedtest.Farm
	feeds                  []string
	users                  map[string][]string // user -> feed URLs
	mail                   *smtptest.Server
}

func newKillWorld(t *testing.T, delay time.Duration, padding int) *killWorld {
	w := &killWorld{bin: binary(t), dir: t.TempDir(), farm: feedtest.StartFarm(t, 10, delay), users: map[string][]string{},
		mail: smtptest.Start(t)}
	w.farm.SetPadding(padding)
	for _, host := range w.farm.Hosts() {
		for i := range 10 {
			w.feeds = append(w.feeds, fmt.Sprintf("%s/f%d", host, i))
		}
	}
	names := []string{"ada", "grace", "kenji", "meera"}
	zones := []string{"UTC", "Europe/London", "Africa/Abidjan", "Atlantic/Reykjavik"} // all UTC+0 in November
	cfg := testConfig{State: "state.db", Site: "site", Fetch: "concurrency = 10\nper_host = 2\nhost_rate = 1000.0\n",
		Outbox: "outbox", SMTP: w.mail.URL()}
	for i, u := range names {
		for j, f := range w.feeds {
			if (i+j)%4 != 0 {
				w.users[u] = append(w.users[u], f)
			}
		}
		cfg.Users = append(cfg.Users, testUser{Name: u, Zone: zones[i], Email: true, Feeds: w.users[u]})
	}
	w.config = cfg.write(t, w.dir)
	w.site = filepath.Join(w.dir, "site")
	return w
}

func (w *killWorld) command(now string) *exec.Cmd {
	return command(w.bin, nil, "run", "-config", w.config, "-now", now)
}

// status is the output of `feeddigest status`.
func status(t *testing.T, bin, config, now string) string {
	t.Helper()
	out, err := command(bin, nil, "status", "-config", config, "-now", now).CombinedOutput()
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	return string(out)
}

// cutTwice lists the feeds whose poll marks say two reads in a row were
// cut short: the kills landed twice on the same feed, the second time as
// it was read alone after the others, which is penalised. marks is
// how many marks there are. A run killed before it made the state (made
// whole, then renamed into place) leaves none, and so no mark.
func cutTwice(t *testing.T, state string) (urls []string, marks int) {
	t.Helper()
	if _, err := os.Stat(state); errors.Is(err, fs.ErrNotExist) {
		return nil, 0
	}
	db, err := sql.Open("sqlite", "file:"+state+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT f.url, a.reads FROM poll_attempts a JOIN feeds f ON f.id = a.feed_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var u string
		var reads int
		if err := rows.Scan(&u, &reads); err != nil {
			t.Fatal(err)
		}
		if marks++; reads >= 2 {
			urls = append(urls, u)
		}
	}
	return urls, marks
}

// Runs killed (SIGKILL) at random moments of a midnight pass over 100
// feeds on 10 slow hosts, the CPU kept busy, then one full run at the same
// -now: every entry is in that day's digests, no feed is named under
// "Could not read", no penalty is recorded.
func TestKilledMidnightPassLosesNoEntryAndBlamesNoFeed(t *testing.T) {
	w := newKillWorld(t, 50*time.Millisecond, 200)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 22))
	defer func() {
		if t.Failed() {
			t.Logf("replay with FEEDDIGEST_TEST_SEED=%d", seed)
		}
	}()
	t.Logf("seed %d", seed)
	w.farm.StartPass("2026-11-21T20:00:00Z")
	posted := map[string]string{} // entry id -> feed URL
	for i, f := range w.feeds {
		for k := range 2 {
			id := fmt.Sprintf("e-%d", 2*i+k)
			w.farm.Post(f, id)
			posted[id] = f
		}
	}
	w.farm.StartPass("midnight")
	const now = "2026-11-22T00:05:00Z"
	stop := busyCPU()
	killed := 0
	// Suspects are read after every kill, not only after the last: a
	// later killed run penalises a suspect and clears its mark.
	var suspects []string
	marks := 0
	for range 4 {
		cmd := w.command(now)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			stop()
			t.Fatal(err)
		}
		time.Sleep(time.Duration(50+rng.IntN(1500)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed++
		} else if err != nil {
			stop()
			t.Fatalf("a run that was not killed failed: %v\n%s", err, out.String())
		}
		var cut []string
		cut, marks = cutTwice(t, filepath.Join(w.dir, "state.db"))
		for _, u := range cut {
			if !slicesContains(suspects, u) {
				suspects = append(suspects, u)
			}
		}
	}
	stop()
	// Two kills in a row that cut short the same feed's reading (the
	// second as it was read alone, last) make it a suspect, by design:
	// rare, and then that feed's penalty is right.
	if len(suspects) > 0 {
		t.Logf("the kills cut short %v twice in a row: penalised, by design", suspects)
	}
	out, err := w.command(now).CombinedOutput()
	if err != nil {
		t.Fatalf("the full run: %v\n%s", err, out)
	}
	gets := 0
	for _, n := range w.farm.Gets()["midnight"] {
		gets += n
	}
	t.Logf("%d of 4 runs killed, %d polls left unfinished by the last, %d GETs in the pass (%d feeds)", killed, marks, gets, len(w.feeds))

	for id, f := range posted {
		if slicesContains(suspects, f) {
			delete(posted, id)
		}
	}
	checkDeliveredOnce(t, w.site, w.users, posted, mailedTimes(t, w.mail))
	for user := range w.users {
		page, err := os.ReadFile(filepath.Join(w.site, user, "2026-11-22.html"))
		if err != nil {
			t.Errorf("%s: no digest for 2026-11-22: %v", user, err)
			continue
		}
		if strings.Contains(string(page), "Could not read") && len(suspects) == 0 {
			t.Errorf("%s's digest names feeds it could not read", user)
		}
	}
	st := status(t, w.bin, w.config, now)
	for _, line := range strings.Split(st, "\n") {
		if (strings.Contains(line, "penalty") || strings.Contains(line, "died")) && !suspectLine(line, suspects) {
			t.Errorf("status: %s", line)
		}
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func suspectLine(line string, suspects []string) bool {
	for _, s := range suspects {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// A feed that kills the process every time its body is read (a test
// build's, see pipeline/killfeed.go) stops at most two runs: the first,
// which read it among the others, and the second, which read it again
// alone after saving every other feed. The third takes it for the cause:
// it waits out a penalty, named in its users' digests, and every other
// feed is delivered.
func TestFeedThatKillsEveryRunStopsAtMostTwo(t *testing.T) {
	w := newHostileWorld(t, "", map[string]http.HandlerFunc{"/killer": serveBody(goodFeed("killer"))})
	w.bin = killFeedBinary(t)
	run := func(now string) (string, bool, error) {
		cmd := w.command(now)
		cmd.Env = append(cmd.Env, "FEEDDIGEST_TEST_KILL_FEED=/killer")
		out, err := cmd.CombinedOutput()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return string(out), ws.Signaled(), err
	}
	deaths := 0
	for i, now := range []string{"2026-11-22T00:05:00Z", "2026-11-22T00:06:00Z", "2026-11-22T00:07:00Z"} {
		out, killed, err := run(now)
		if killed {
			deaths++
			if i == 2 {
				t.Fatalf("the third run died too:\n%s", out)
			}
			continue
		}
		if err != nil {
			t.Fatalf("run at %s: %v\n%s", now, err, out)
		}
	}
	if deaths != 2 {
		t.Errorf("%d runs died, want 2 (the killer read with the others, then alone)", deaths)
	}
	if n := w.requested("/killer"); n != 2 {
		t.Errorf("the killer was requested %d times, want 2", n)
	}
	w.checkDigests(t, "2026-11-22")
	page, _ := os.ReadFile(filepath.Join(w.site, "ada", "2026-11-22.html"))
	if !strings.Contains(string(page), "Could not read") {
		t.Error("ada's digest does not name the feed that killed the runs")
	}
	if line := w.statusOf(t, "/killer"); !strings.Contains(line, "died while reading this feed") || !strings.Contains(line, "penalty") {
		t.Errorf("status %q, want the dead runs named and a penalty", line)
	}
	for _, path := range []string{"/good", "/other"} {
		if line := w.statusOf(t, path); strings.Contains(line, "died") || strings.Contains(line, "penalty") {
			t.Errorf("%s blamed: %q", path, line)
		}
	}
	// While its penalty lasts, the hourly runs complete without it.
	for _, now := range []string{"2026-11-22T01:05:00Z", "2026-11-22T02:05:00Z"} {
		if out, killed, err := run(now); killed || err != nil {
			t.Fatalf("run at %s during the penalty: killed %v, %v\n%s", now, killed, err, out)
		}
	}
	if n := w.requested("/killer"); n != 2 {
		t.Errorf("the killer was requested %d times in all, want 2: read during its penalty", n)
	}
}

// mountSmallDisk mounts a tmpfs of size bytes at a new folder, unmounted
// at the test's end: a real disk that fills up. It skips the test where
// mounting is not allowed (not root, no CAP_SYS_ADMIN).
func mountSmallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a small tmpfs for a full disk (run as root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir
}

// fillDisk writes a file taking all the room of the filesystem at dir but
// leave bytes.
func fillDisk(t *testing.T, dir string, leave int64) string {
	t.Helper()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	free := int64(fs.Bavail) * fs.Bsize
	path := filepath.Join(dir, "filler")
	if err := os.WriteFile(path, make([]byte, max(0, free-leave)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bigFeed is a feed of n entries of some kilobytes of text each that
// compresses badly, dated the evening before 2026-11-22.
func bigFeed(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>big</title>`)
	for i := range n {
		fmt.Fprintf(&b, `<item><guid>big-%[1]d</guid><title>Post big %[1]d</title><link>https://site.example/big-%[1]d</link>`+
			`<pubDate>Sat, 21 Nov 2026 20:%02[2]d:00 +0000</pubDate><description>`, i, i%60)
		for range 2000 {
			for range 2 + rng.IntN(8) {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
			b.WriteByte(' ')
		}
		b.WriteString(`</description></item>`)
	}
	b.WriteString(`</channel></rss>`)
	return []byte(b.String())
}

// A full local disk is the machine's failure, not a feed's: the pass ends
// with a clear error (a non-zero exit), no feed is recorded as failed or
// penalised, then or by the next run (no "a previous run died" either),
// and once there is room again the next run delivers everything. The
// disk is a real one, a 3 MB tmpfs that fills up (SQLITE_FULL, "database
// or disk is full").
func TestFullDiskBlamesNoFeed(t *testing.T) {
	bin := binary(t)
	disk := mountSmallDisk(t, 3<<20)
	var big atomic.Bool
	srv := feedtest.Start(t)
	for _, name := range []string{"good", "other"} {
		srv.Handle("/"+name, serveBody(goodFeed(name)))
	}
	bigBody := bigFeed(40) // some 450 KB of text, more than the room left
	srv.Handle("/big", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if big.Load() {
			serveBody(bigBody)(rw, r)
			return
		}
		serveBody([]byte(`<rss version="2.0"><channel><title>big</title></channel></rss>`))(rw, r)
	}))
	dir := t.TempDir()
	config := testConfig{State: filepath.Join(disk, "state.db"), Site: "site", Fetch: "host_rate = 1000.0\nper_host = 4\n",
		Outbox: "outbox", Users: []testUser{
			{Name: "ada", Zone: "UTC", Feeds: []string{srv.URL + "/good", srv.URL + "/big"}},
			{Name: "bob", Zone: "UTC", Feeds: []string{srv.URL + "/good", srv.URL + "/other"}},
		}}.write(t, dir)
	run := func(now string) (string, error) {
		out, err := command(bin, nil, "run", "-config", config, "-now", now).CombinedOutput()
		return string(out), err
	}
	if out, err := run("2026-11-21T12:00:00Z"); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	big.Store(true)
	filler := fillDisk(t, disk, 128<<10)
	out, err := run("2026-11-22T00:05:00Z")
	if err == nil {
		t.Fatalf("a run on a full disk succeeded:\n%s", out)
	}
	if !strings.Contains(out, "full") {
		t.Errorf("the run on a full disk does not say the disk is full:\n%s", out)
	}
	t.Logf("on a full disk: %s", lastLine(out))
	blamed := func(when string) {
		t.Helper()
		for _, line := range strings.Split(status(t, bin, config, "2026-11-22T00:30:00Z"), "\n") {
			if strings.Contains(line, srv.URL) && (strings.Contains(line, "penalty") || strings.Contains(line, "died") ||
				strings.Contains(line, "full") || strings.Contains(line, "fail")) {
				t.Errorf("%s: status blames a feed: %s", when, line)
			}
		}
	}
	blamed("after the full disk")
	// Still full: the next run fails alike, and blames nobody either.
	if out, err := run("2026-11-22T00:06:00Z"); err == nil {
		t.Fatalf("a second run on a full disk succeeded:\n%s", out)
	}
	blamed("after the second run on a full disk")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if out, err := run("2026-11-22T00:07:00Z"); err != nil {
		t.Fatalf("the run with room again: %v\n%s", err, out)
	}
	blamed("with room again")
	page, err := os.ReadFile(filepath.Join(dir, "site", "ada", "2026-11-22.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"big-0", "big-20", "big-39"} {
		if !strings.Contains(string(page), "site.example/"+id+`"`) {
			t.Errorf("ada's digest lacks %s", id)
		}
	}
	if strings.Contains(string(page), "Could not read") {
		t.Error("ada's digest names a feed it could not read")
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
