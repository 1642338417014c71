package pipeline

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/config"
	"feeddigest/internal/pgtest"
)

// hostFarm serves RSS feeds from several loopback hosts (127.0.0.2,
// 127.0.0.3, ...: distinct hosts to the per-host limits), slowly, and
// records per pass how often each feed was asked for and how many
// requests each host had in flight at most.
type hostFarm struct {
	mu       sync.Mutex
	pass     string                    // the pass requests now belong to
	gets     map[string]map[string]int // pass -> feed URL -> requests
	inFlight map[string]int            // host -> requests being answered
	peak     map[string]int            // host -> most requests in flight at once
	posts    map[string][]string       // feed URL -> entry ids, oldest first
	delay    time.Duration
	servers  []*httptest.Server
}

func newHostFarm(t *testing.T, hosts int, delay time.Duration) *hostFarm {
	f := &hostFarm{gets: map[string]map[string]int{}, inFlight: map[string]int{}, peak: map[string]int{},
		posts: map[string][]string{}, delay: delay}
	for i := range hosts {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+2))
		if err != nil {
			t.Fatalf("a loopback host of its own: %v", err)
		}
		ts := httptest.NewUnstartedServer(f)
		ts.Listener.Close()
		ts.Listener = l
		ts.Start()
		t.Cleanup(ts.Close)
		f.servers = append(f.servers, ts)
	}
	return f
}

func (f *hostFarm) url(host int, path string) string { return f.servers[host].URL + path }

func (f *hostFarm) startPass(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pass = name
	f.gets[name] = map[string]int{}
}

func (f *hostFarm) post(url, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts[url] = append(f.posts[url], id)
}

func (f *hostFarm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	url := "http://" + r.Host + r.URL.Path
	f.mu.Lock()
	f.gets[f.pass][url]++
	f.inFlight[r.Host]++
	f.peak[r.Host] = max(f.peak[r.Host], f.inFlight[r.Host])
	ids := append([]string(nil), f.posts[url]...)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight[r.Host]--
		f.mu.Unlock()
	}()
	time.Sleep(f.delay)
	etag := fmt.Sprintf(`"%d"`, len(ids))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<rss version="2.0"><channel><title>%s</title>`, r.URL.Path)
	for i := len(ids) - 1; i >= 0 && i >= len(ids)-20; i-- {
		fmt.Fprintf(&b, `<item><guid>%[1]s</guid><title>Post %[1]s</title><link>https://site.example/%[1]s</link></item>`, ids[i])
	}
	b.WriteString(`</channel></rss>`)
	fmt.Fprint(w, b.String())
}

// Three runs started together each hour on one PostgreSQL state share
// every pass: each due feed is asked for once per pass, never more than
// per_host requests at once to a host whichever run sends them, every
// digest built once, and every entry reaches each subscriber exactly
// once. And they do share: more than one run polls in a pass.
func TestRunsShareAPass(t *testing.T) {
	t.Parallel() // with the other tests of a PostgreSQL state of their own, after the rest
	db := pgtest.NewDatabase(t)
	const hosts, feedsPerHost, runs = 3, 4, 3
	farm := newHostFarm(t, hosts, 20*time.Millisecond)
	var feeds []string
	for h := range hosts {
		for i := range feedsPerHost {
			feeds = append(feeds, farm.url(h, fmt.Sprintf("/feed%d", i)))
		}
	}
	zones := []string{"Europe/London", "America/New_York", "Asia/Tokyo", "Asia/Kolkata"}
	subscribers := map[string][]string{}
	var users strings.Builder
	for i, zone := range zones {
		name := fmt.Sprintf("u%d", i)
		var mine []string
		for j, f := range feeds {
			if (i+j)%2 == 0 || j == i {
				mine = append(mine, fmt.Sprintf("%q", f))
				subscribers[f] = append(subscribers[f], name)
			}
		}
		fmt.Fprintf(&users, "[[users]]\nname = %q\ntimezone = %q\nfeeds = [%s]\n", name, zone, strings.Join(mine, ", "))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	text := fmt.Sprintf("state = %q\n[fetch]\nallow_private_networks = true\nconcurrency = 4\nper_host = 2\nhost_rate = 50.0\n", db) + users.String()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}

	hours := 50
	if testing.Short() {
		hours = 28
	}
	start := at("2026-11-21T00:05:00Z")
	posted := map[string]string{} // entry id -> feed URL
	shared := 0
	for h := range hours {
		now := start.Add(time.Duration(h) * time.Hour)
		if h < hours-26 { // the last day posts nothing: its entries reach every digest
			for i, f := range feeds {
				if (h+i)%3 == 0 {
					id := fmt.Sprintf("p-%d", h*100+i)
					farm.post(f, id)
					posted[id] = f
				}
			}
		}
		farm.startPass(now.Format(time.RFC3339))
		sums := make([]Summary, runs)
		errs := make([]error, runs)
		var wg sync.WaitGroup
		for r := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sums[r], errs[r] = Run(context.Background(), cfg, Options{Now: now, Lease: 3 * time.Second})
			}()
		}
		wg.Wait()
		polled, built, polling := 0, 0, 0
		for r := range runs {
			if errs[r] != nil {
				t.Fatalf("run %d at %s: %v", r, now, errs[r])
			}
			polled += sums[r].FeedsPolled
			built += sums[r].DigestsBuilt
			if sums[r].FeedsPolled > 0 {
				polling++
			}
		}
		if polling > 1 {
			shared++
		}
		for url, n := range farm.gets[now.Format(time.RFC3339)] {
			if n > 1 {
				t.Errorf("pass %s: %s asked for %d times", now, url, n)
			}
		}
		if want := len(farm.gets[now.Format(time.RFC3339)]); polled != want {
			t.Errorf("pass %s: the runs say they polled %d feeds, the servers saw %d", now, polled, want)
		}
		if built != sums[0].UsersDue {
			t.Errorf("pass %s: %d digests built by the runs together, %d due", now, built, sums[0].UsersDue)
		}
	}
	if shared == 0 {
		t.Error("in no pass did more than one run poll: the runs did not share the work")
	}
	for host, peak := range farm.peak {
		if peak > cfg.Fetch.PerHost {
			t.Errorf("host %s had %d requests in flight at once, per_host is %d", host, peak, cfg.Fetch.PerHost)
		}
	}
	for i := range zones {
		user := fmt.Sprintf("u%d", i)
		got := delivered(t, cfg, user)
		for id, f := range posted {
			want := 0
			for _, s := range subscribers[f] {
				if s == user {
					want = 1
				}
			}
			if got[id] != want {
				t.Errorf("%s: entry %s in %d digests, want %d", user, id, got[id], want)
			}
		}
	}
	t.Logf("%d passes, %d of them polled by more than one run", hours, shared)
}

// A run too slow to renew its lease (a loaded machine, a long pause) finds
// its host taken over when it saves: it leaves the host to the run that
// took it and claims on, and both runs end well; the feed is saved once.
func TestARunThatLostItsLeaseClaimsOn(t *testing.T) {
	t.Parallel() // with the other tests of a PostgreSQL state of their own, after the rest
	db := pgtest.NewDatabase(t)
	farm := newHostFarm(t, 1, 1500*time.Millisecond)
	feeds := []string{farm.url(0, "/feed0"), farm.url(0, "/feed1")}
	for _, f := range feeds {
		farm.post(f, "p-"+f[len(f)-1:])
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	text := fmt.Sprintf("state = %q\n[fetch]\nallow_private_networks = true\nconcurrency = 1\nper_host = 1\nhost_rate = 50.0\n", db) +
		fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [%q, %q]\n", feeds[0], feeds[1])
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	now := at("2026-11-21T00:05:00Z")
	farm.startPass(now.Format(time.RFC3339))
	// A long lease, renewed every 10 s: the test ends it by hand.
	opts := Options{Now: now, Lease: 30 * time.Second}
	errA := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), cfg, opts)
		errA <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		farm.mu.Lock()
		polling := farm.inFlight[farm.servers[0].Listener.Addr().String()] > 0
		farm.mu.Unlock()
		if polling {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run never polled")
		}
	}
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "UPDATE workers SET alive_until = clock_timestamp() - interval '1 second'"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, opts); err != nil {
		t.Errorf("the run that took the host over: %v", err)
	}
	if err := <-errA; err != nil {
		t.Errorf("the run whose lease lapsed: %v", err)
	}
	if got := delivered(t, cfg, "ada"); got["p-0"] != 1 || got["p-1"] != 1 {
		t.Errorf("delivered %v, want p-0 and p-1 once each", got)
	}
}
