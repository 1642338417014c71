package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
)

// hostFarm is feedtest's farm under the names publish_test.go calls it
// by: it goes when that test moves to the package of pages.
type hostFarm struct{ *feedtest.Farm }

func newHostFarm(t *testing.T, hosts int, delay time.Duration) hostFarm {
	return hostFarm{feedtest.StartFarm(t, hosts, delay)}
}

func (f hostFarm) url(host int, path string) string { return f.URL(host, path) }
func (f hostFarm) post(url, id string)              { f.Post(url, id) }
func (f hostFarm) startPass(name string)            { f.StartPass(name) }

// Three runs started together each hour on one PostgreSQL state share
// every pass: each due feed is asked for once per pass, never more than
// per_host requests at once to a host whichever run sends them, every
// digest built once, and every entry reaches each subscriber exactly
// once. And they do share: more than one run polls in a pass.
func TestRunsShareAPass(t *testing.T) {
	if testing.Short() {
		// A day and more of passes by three runs on PostgreSQL: a fifth of
		// the quick loop's CPU alone. The quick loop keeps sharing through
		// TestARunThatLostItsLeaseClaimsOn and the coordinator's contract
		// (storetest.RunCoordinator); the full run keeps this one.
		t.Skip("fifty hours of passes by three runs sharing a PostgreSQL state: run without -short")
	}
	t.Parallel() // with the other tests of a PostgreSQL state of their own, after the rest
	db := migratedDatabase(t)
	const hosts, feedsPerHost, runs = 3, 4, 3
	farm := feedtest.StartFarm(t, hosts, 20*time.Millisecond)
	var feeds []string
	for h := range hosts {
		for i := range feedsPerHost {
			feeds = append(feeds, farm.URL(h, fmt.Sprintf("/feed%d", i)))
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

	const hours = 50
	start := at("2026-11-21T00:05:00Z")
	posted := map[string]string{} // entry id -> feed URL
	shared := 0
	for h := range hours {
		now := start.Add(time.Duration(h) * time.Hour)
		farm.StartPass(now.Format(time.RFC3339))
		if h < hours-26 { // the last day posts nothing: its entries reach every digest
			for i, f := range feeds {
				if (h+i)%3 == 0 {
					id := fmt.Sprintf("p-%d", h*100+i)
					farm.Post(f, id)
					posted[id] = f
				}
			}
		}
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
		asked := farm.Requests()[now.Format(time.RFC3339)]
		for url, n := range asked {
			if n > 1 {
				t.Errorf("pass %s: %s asked for %d times", now, url, n)
			}
		}
		if want := len(asked); polled != want {
			t.Errorf("pass %s: the runs say they polled %d feeds, the servers saw %d", now, polled, want)
		}
		if built != sums[0].UsersDue {
			t.Errorf("pass %s: %d digests built by the runs together, %d due", now, built, sums[0].UsersDue)
		}
	}
	if shared == 0 {
		t.Error("in no pass did more than one run poll: the runs did not share the work")
	}
	for host, peak := range farm.Peaks() {
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
// The farm holds the first run's answer until the second run asks for a
// feed (so holds the host), and the second run's answers until the first
// has said that its work was taken over.
func TestARunThatLostItsLeaseClaimsOn(t *testing.T) {
	t.Parallel() // with the other tests of a PostgreSQL state of their own, after the rest
	db := migratedDatabase(t)
	farm := feedtest.StartFarm(t, 1, 0)
	now := at("2026-11-21T00:05:00Z")
	farm.StartPass(now.Format(time.RFC3339))
	feeds := []string{farm.URL(0, "/feed0"), farm.URL(0, "/feed1")}
	for _, f := range feeds {
		farm.Post(f, "p-"+f[len(f)-1:])
	}
	asking := make(chan struct{}, 4) // a request came, and is held
	answerA, answerB := make(chan struct{}), make(chan struct{})
	var held atomic.Int32
	farm.Hold(func(*http.Request) {
		answer := answerB
		if held.Add(1) == 1 {
			answer = answerA // the first run's
		}
		asking <- struct{}{}
		<-answer
	})
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
	// A long lease, renewed every 10 s: the test ends it by hand.
	takenOver := logSaying{msg: "work taken over by another run", said: make(chan struct{})}
	optsA := Options{Now: now, Lease: 30 * time.Second, Log: slog.New(&takenOver)}
	errA := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), cfg, optsA)
		errA <- err
	}()
	select {
	case <-asking: // the first run holds the host, and polls
	case err := <-errA:
		t.Fatalf("the first run ended before it polled: %v", err)
	}
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "UPDATE workers SET alive_until = clock_timestamp() - interval '1 second'"); err != nil {
		t.Fatal(err)
	}
	errB := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), cfg, Options{Now: now, Lease: 30 * time.Second})
		errB <- err
	}()
	select {
	case <-asking: // the second run took the host over
	case err := <-errB:
		t.Fatalf("the second run ended before it polled: %v", err)
	}
	close(answerA)
	select {
	case <-takenOver.said:
	case err := <-errA:
		t.Fatalf("the run whose lease lapsed ended (%v) without finding its host taken over", err)
	}
	close(answerB)
	if err := <-errB; err != nil {
		t.Errorf("the run that took the host over: %v", err)
	}
	if err := <-errA; err != nil {
		t.Errorf("the run whose lease lapsed: %v", err)
	}
	if got := delivered(t, cfg, "ada"); got["p-0"] != 1 || got["p-1"] != 1 {
		t.Errorf("delivered %v, want p-0 and p-1 once each", got)
	}
}

// logSaying is a log handler that closes said when a record says msg.
type logSaying struct {
	msg  string
	said chan struct{}
	once sync.Once
}

func (h *logSaying) Enabled(context.Context, slog.Level) bool { return true }
func (h *logSaying) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logSaying) WithGroup(string) slog.Handler            { return h }

func (h *logSaying) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.said) })
	}
	return nil
}
