package e2e

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// Hostile bodies, as reported (issue 10): a 9.8 MB RSS body of nested
// extension elements, one of 1.6 million sibling elements, and one of
// 100,000 entries.
func nestedBody() []byte {
	const d = 1_400_000
	return []byte(`<rss version="2.0"><channel><title>d</title><item><guid>1</guid><title>x</title><a xmlns="urn:x">` +
		strings.Repeat("<a>", d) + strings.Repeat("</a>", d) + `</a></item></channel></rss>`)
}

func wideBody() []byte {
	return []byte(`<rss version="2.0"><channel><title>w</title><item><guid>1</guid><title>x</title><w xmlns="urn:x">` +
		strings.Repeat("<a/>", 1_600_000) + `</w></item></channel></rss>`)
}

func manyEntriesBody() []byte {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>m</title>`)
	for i := range 100_000 {
		fmt.Fprintf(&b, "<item><guid>%d</guid><title>x</title></item>", i)
	}
	b.WriteString(`</channel></rss>`)
	return []byte(b.String())
}

func goodFeed(name string) []byte {
	return []byte(fmt.Sprintf(`<rss version="2.0"><channel><title>%[1]s</title>`+
		`<item><guid>%[1]s-1</guid><title>Post of %[1]s</title><link>https://site.example/%[1]s-1</link>`+
		`<pubDate>Sat, 21 Nov 2026 10:00:00 +0000</pubDate></item></channel></rss>`, name))
}

// hostileWorld is a server of good and hostile feeds and a config whose
// users follow them: ada the hostile ones and a good one, bob good ones.
type hostileWorld struct {
	bin, config, dir, site string
	server                 *feedtest.Server
}

func newHostileWorld(t testing.TB, extraFetch string, hostile map[string]http.HandlerFunc) *hostileWorld {
	w := &hostileWorld{bin: binary(t), dir: t.TempDir()}
	w.server = feedtest.Start(t)
	for _, name := range []string{"good", "other"} {
		w.server.Handle("/"+name, serveBody(goodFeed(name)))
	}
	var paths []string
	for path, h := range hostile {
		w.server.Handle(path, h)
		paths = append(paths, path)
	}
	urls := func(paths ...string) []string {
		var q []string
		for _, p := range paths {
			q = append(q, w.server.URL+p)
		}
		return q
	}
	w.config = testConfig{State: "state.db", Site: "site", Fetch: "host_rate = 1000.0\nper_host = 4\n" + extraFetch + "\n",
		Outbox: "outbox", Users: []testUser{
			{Name: "ada", Zone: "UTC", Feeds: urls(append([]string{"/good"}, paths...)...)},
			{Name: "bob", Zone: "UTC", Feeds: urls("/good", "/other")},
		}}.write(t, w.dir)
	w.site = filepath.Join(w.dir, "site")
	return w
}

func (w *hostileWorld) command(now string, args ...string) *exec.Cmd {
	return command(w.bin, nil, append([]string{"run", "-config", w.config, "-now", now}, args...)...)
}

func (w *hostileWorld) requested(path string) int { return w.server.Count(path) }

// statusOf is the `feeddigest status` line of the feed at path.
func (w *hostileWorld) statusOf(t *testing.T, path string) string {
	t.Helper()
	out, err := command(w.bin, nil, "status", "-config", w.config, "-now", "2026-11-22T00:10:00Z").CombinedOutput()
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, w.server.URL+path) {
			return line
		}
	}
	t.Fatalf("status does not list %s:\n%s", path, out)
	return ""
}

func (w *hostileWorld) checkDigests(t testing.TB, date string) {
	t.Helper()
	for user, ids := range map[string][]string{"ada": {"good-1"}, "bob": {"good-1", "other-1"}} {
		page, err := os.ReadFile(filepath.Join(w.site, user, date+".html"))
		if err != nil {
			t.Errorf("%s has no digest: %v", user, err)
			continue
		}
		for _, id := range ids {
			if !strings.Contains(string(page), "site.example/"+id) {
				t.Errorf("%s's digest lacks %s", user, id)
			}
		}
	}
}

func serveBody(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write(body)
	}
}

// measuredRun runs `feeddigest run` at now under peakrss: its output,
// peak RSS in bytes, and error.
func (w *hostileWorld) measuredRun(t testing.TB, now string) (string, int64, error) {
	t.Helper()
	out, runErr := command(peakRSS(t), nil, w.bin, "run", "-config", w.config, "-now", now).CombinedOutput()
	text := strings.TrimRight(string(out), "\n")
	i := strings.LastIndex(text, "peak-rss-bytes ")
	if i < 0 {
		t.Fatalf("no peak RSS reported:\n%s", out)
	}
	peak, err := strconv.ParseInt(text[i+len("peak-rss-bytes "):], 10, 64)
	if err != nil {
		t.Fatalf("peak RSS: %v", err)
	}
	return text[:i], peak, runErr
}

// The reported crash: one deeply nested feed took 2 GB (or overflowed the
// stack with a larger max_body) and the run died, every run. Now the run
// completes, everyone else gets their digest, and the feed is in the
// penalty box saying why.
func TestNestedFeedCannotStopTheRun(t *testing.T) {
	binary(t) // or skipped, before its bodies are made
	w := newHostileWorld(t, `max_body = "100MB"`, map[string]http.HandlerFunc{
		"/nested": serveBody(nestedBody()),
		"/deeper": serveBody([]byte(strings.Replace(string(nestedBody()), "<a>", "<a><a>", -1))), // 21 MB
	})
	out, peak, err := w.measuredRun(t, "2026-11-22T00:05:00Z")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	t.Logf("peak RSS %d MB", peak>>20)
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MB", peak>>20)
	}
	w.checkDigests(t, "2026-11-22")
	for _, path := range []string{"/nested", "/deeper"} {
		line := w.statusOf(t, path)
		if !strings.Contains(line, "nested too deeply") || !strings.Contains(line, "penalty") {
			t.Errorf("%s: status %q, want nested too deeply, in the penalty box", path, line)
		}
	}
	status, _ := os.ReadFile(filepath.Join(w.site, "status.html"))
	if !strings.Contains(string(status), "nested too deeply") {
		t.Error("status.html does not say the feed is nested too deeply")
	}
}

// A run that dies while reading a feed (killed from outside: a CI
// timeout, a reboot, the OOM killer's choice) leaves a mark; one such
// death proves nothing against the feed, so the next run reads it again,
// after the other feeds, and completes: no penalty, no problem named, its
// entry in the digest. (Only a feed whose reading is cut short twice in a
// row waits out a penalty: TestFeedThatKillsEveryRunStopsAtMostTwo.)
func TestRunDeadWhileReadingAFeedReadsItAgainLast(t *testing.T) {
	binary(t) // or skipped, before its bodies are made
	// 80,000 entries: within the bounds, and a second or two to parse.
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>slow</title>`)
	for i := range 80_000 {
		fmt.Fprintf(&b, "<item><guid>%d</guid><title>x</title></item>", i)
	}
	b.WriteString(`</channel></rss>`)
	slow := []byte(b.String())
	served := make(chan struct{}, 1)
	w := newHostileWorld(t, "", map[string]http.HandlerFunc{
		"/killer": func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Content-Type", "application/rss+xml")
			rw.Write(slow)
			select {
			case served <- struct{}{}:
			default:
			}
		},
	})
	cmd := w.command("2026-11-22T00:05:00Z")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-served:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the feed was never requested")
	}
	// Killed once it is reading the body: its mark is committed (a fixed
	// sleep kills a slow run before that, on a loaded machine).
	waitForPollMark(t, filepath.Join(w.dir, "state.db"), "/killer")
	cmd.Process.Signal(syscall.SIGKILL)
	if err := cmd.Wait(); err == nil {
		t.Fatal("the run ended before it could be killed while parsing")
	}

	out, err := w.command("2026-11-22T00:06:00Z").CombinedOutput()
	if err != nil {
		t.Fatalf("the run after: %v\n%s", err, out)
	}
	if n := w.requested("/killer"); n != 2 {
		t.Errorf("the feed the dead run was reading was requested %d times in all, want twice", n)
	}
	w.checkDigests(t, "2026-11-22")
	page, _ := os.ReadFile(filepath.Join(w.site, "ada", "2026-11-22.html"))
	if !strings.Contains(string(page), ">slow<") {
		t.Error("the feed read again (its title: slow) is not in that day's digest")
	}
	if strings.Contains(string(page), "Could not read") {
		t.Error("the digest names a feed it could not read")
	}
	for _, path := range []string{"/killer", "/good", "/other"} {
		if line := w.statusOf(t, path); strings.Contains(line, "died") || strings.Contains(line, "penalty") {
			t.Errorf("%s blamed: %q", path, line)
		}
	}
}

// waitForPollMark waits until a run has committed that it is reading the
// body of the feed at path (its poll_attempts mark), for at most 30 seconds.
func waitForPollMark(t *testing.T, state, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+state+"?mode=ro&_pragma=busy_timeout(1000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		if db.QueryRow(`SELECT COUNT(*) FROM poll_attempts a JOIN feeds f ON f.id = a.feed_id
			WHERE f.url LIKE '%' || ?`, path).Scan(&n) == nil && n > 0 {
			return
		}
	}
	t.Fatalf("no run began reading the body of %s within 30 seconds", path)
}
