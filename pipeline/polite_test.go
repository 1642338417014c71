package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/internal/feedtest"
)

// post is a feed's one entry.
func post(id string) feedtest.Entry { return feedtest.Entry{ID: id, Title: "Post"} }

func feedRecord(t *testing.T, statePath, url string) domain.Feed {
	t.Helper()
	st, err := OpenReader(context.Background(), &config.Config{State: statePath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := st.Feed(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestPermanentRedirectUpdatesTheSubscription(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		other := feedtest.Start(t)
		other.Add("/feed", post("x-1"))
		ts := feedtest.Start(t)
		ts.Redirect("/old", "/new", http.StatusMovedPermanently)
		ts.Add("/new", post("n-1"))
		ts.Redirect("/away", other.URL+"/feed", http.StatusPermanentRedirect)
		ts.Redirect("/temp", "/new", http.StatusTemporaryRedirect)
		cfg := testConfig(t, state, oneUser(t, ts.URL+"/old", ts.URL+"/away", ts.URL+"/temp"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		runAt(t, cfg, "2026-11-22T00:05:00Z")

		moved := feedRecord(t, cfg.State, ts.URL+"/old")
		if moved.EffectiveURL != ts.URL+"/new" || ts.Count("/old") != 1 {
			t.Errorf("301: effective %q, /old asked %d times (want once)", moved.EffectiveURL, ts.Count("/old"))
		}
		away := feedRecord(t, cfg.State, ts.URL+"/away")
		if away.EffectiveURL != "" || away.PendingURL != other.URL+"/feed" || ts.Count("/away") != 2 {
			t.Errorf("308 to another site: effective %q pending %q, /away asked %d times (want twice: not switched silently)",
				away.EffectiveURL, away.PendingURL, ts.Count("/away"))
		}
		if temp := feedRecord(t, cfg.State, ts.URL+"/temp"); temp.EffectiveURL != "" || ts.Count("/temp") != 2 {
			t.Errorf("307 changed the subscription: %q", temp.EffectiveURL)
		}
		status := readFile(t, filepath.Join(cfg.SiteDir, "status.html"))
		for _, want := range []string{ts.URL + "/new", other.URL + "/feed"} {
			if !strings.Contains(status, want) {
				t.Errorf("status.html does not show %s", want)
			}
		}
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		if !strings.Contains(page, other.URL+"/feed") {
			t.Error("the digest does not flag the move to another site")
		}
	})
}

func TestFailedFeedIsRetriedBetweenMidnights(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		ts := feedtest.Start(t)
		ts.Add("/feed", post("b-1"))
		// A feed that reads well too, so that the first digest is built at
		// once, before the retry.
		ts.Add("/other", post("o-1"))
		cfg := testConfig(t, state, oneUser(t, ts.URL+"/feed", ts.URL+"/other"), "")
		ts.Respond("/feed", feedtest.Response{Status: http.StatusTooManyRequests, RetryAfter: "7200"}) // two hours
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		ts.Respond("/feed", feedtest.Response{}) // the feed again
		runAt(t, cfg, "2026-11-21T13:00:00Z")
		if n := ts.Count("/feed"); n != 1 {
			t.Fatalf("asked %d times within Retry-After", n)
		}
		// No subscriber is due at 15:00 London time, but the retry is owed.
		runAt(t, cfg, "2026-11-21T14:30:00Z")
		if n := ts.Count("/feed"); n != 2 {
			t.Fatalf("not retried after Retry-After: %d requests", n)
		}
		runAt(t, cfg, "2026-11-21T16:00:00Z")
		if n := ts.Count("/feed"); n != 2 {
			t.Fatalf("polled again after the retry succeeded: %d requests", n)
		}
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html"))
		if !strings.Contains(page, "site.example/b-1") {
			t.Error("the entry found by the retry is not in the next digest")
		}
	})
}

// On SQLite only, for now: a shared pass (PostgreSQL) sleeps its start
// delay before it plans, so it delays a run with nothing to poll too.
// One orchestration for both back ends (issue 23) is to end that.
func TestStartDelayBeforeTheFirstRequest(t *testing.T) {
	ts := feedtest.Start(t)
	ts.Add("/feed", post("t-1"))
	cfg := testConfig(t, onSQLite, oneUser(t, ts.URL+"/feed"), "")
	cfg.Fetch.StartDelayMin, cfg.Fetch.StartDelayMax = time.Minute, 3*time.Minute
	var slept []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		if ts.Count("/feed") != 0 {
			t.Error("a request went out before the start delay")
		}
		slept = append(slept, d)
		return nil
	}
	if _, err := Run(context.Background(), cfg, Options{Now: at("2026-11-21T12:00:00Z"), Sleep: sleep}); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] < time.Minute || slept[0] >= 3*time.Minute {
		t.Errorf("slept %v, want once between 1m and 3m", slept)
	}
	// No feed to poll: no delay.
	slept = nil
	Run(context.Background(), cfg, Options{Now: at("2026-11-21T12:40:00Z"), Sleep: sleep})
	if len(slept) != 0 {
		t.Errorf("delayed a run with nothing to poll")
	}
}

func gzipBomb() []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(bytes.Repeat([]byte("<rss>"), 30<<20/5))
	zw.Close()
	return b.Bytes()
}

// Hostile feeds cannot hurt the run: it finishes in bounded time, the
// good feed's entry is delivered, and every problem is in status.html.
func TestHostileFeedsCannotHurtTheRun(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		bomb := gzipBomb()
		ts := feedtest.Start(t)
		ts.Add("/good", post("g-1"))
		ts.Handle("/bomb", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		}))
		ts.Handle("/endless", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			chunk := bytes.Repeat([]byte("<item>"), 1024)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		ts.Handle("/drip", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for r.Context().Err() == nil {
				w.Write([]byte("<"))
				w.(http.Flusher).Flush()
				time.Sleep(100 * time.Millisecond)
			}
		}))
		ts.Redirect("/loop", "/loop2", http.StatusFound)
		ts.Redirect("/loop2", "/loop", http.StatusFound)
		ts.Respond("/malformed", feedtest.Response{Status: http.StatusOK, Body: "<rss><channel><item><title>x</ite"})
		ts.Respond("/charset", feedtest.Response{Status: http.StatusOK,
			Header: http.Header{"Content-Type": {"application/rss+xml; charset=iso-8859-1"}},
			Body:   "<rss version=\"2.0\"><channel><title>Caf\xe9</title><item><guid>c-1</guid><title>Cr\xe8me</title><link>https://site.example/c-1</link></item></channel></rss>"})
		paths := []string{"/good", "/bomb", "/endless", "/drip", "/loop", "/malformed", "/charset"}
		var urls []string
		for _, p := range paths {
			urls = append(urls, ts.URL+p)
		}
		cfg := testConfig(t, state, oneUser(t, urls...), "")
		cfg.Fetch.Timeout, cfg.Fetch.MaxBody = 2*time.Second, 1<<20
		start := time.Now()
		sum := runAt(t, cfg, "2026-11-21T12:00:00Z")
		if elapsed := time.Since(start); elapsed > 30*time.Second {
			t.Errorf("hostile feeds held the run for %v", elapsed)
		}
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		if !strings.Contains(page, "site.example/g-1") {
			t.Error("the good feed's entry is missing")
		}
		if !strings.Contains(page, "Crème") {
			t.Error("the ISO-8859-1 feed was not decoded")
		}
		status := readFile(t, filepath.Join(cfg.SiteDir, "status.html"))
		for _, p := range []string{"/bomb", "/endless", "/drip", "/loop", "/malformed"} {
			f := feedRecord(t, cfg.State, ts.URL+p)
			if f.LastError == "" || f.ErrorCount != 1 {
				t.Errorf("%s: error %q count %d", p, f.LastError, f.ErrorCount)
			}
			if !strings.Contains(status, ts.URL+p) {
				t.Errorf("%s missing from status.html", p)
			}
		}
		if sum.Failed != 5 {
			t.Errorf("%d feeds failed, want 5: %v", sum.Failed, sum.FeedErrors)
		}
	})
}

func TestDiscoveredFeedIsRemembered(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		ts := feedtest.Start(t)
		ts.Respond("/blog", feedtest.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html"}},
			Body: `<!doctype html><html><head><link rel="alternate" type="application/rss+xml" href="/blog/feed.xml"></head><body>Hi</body></html>`})
		ts.Add("/blog/feed.xml", post("d-1"))
		cfg := testConfig(t, state, oneUser(t, ts.URL+"/blog"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		if ts.Count("/blog") != 1 || ts.Count("/blog/feed.xml") != 2 {
			t.Errorf("page asked %d times (want 1), feed %d (want 2)", ts.Count("/blog"), ts.Count("/blog/feed.xml"))
		}
		if f := feedRecord(t, cfg.State, ts.URL+"/blog"); f.EffectiveURL != ts.URL+"/blog/feed.xml" {
			t.Errorf("effective URL %q", f.EffectiveURL)
		}
		if !strings.Contains(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html")), "site.example/d-1") {
			t.Error("the discovered feed's entry is missing")
		}
	})
}

// What a poll teaches about the server is kept in the state and shapes the
// next run's requests: a server answering conditional GETs gets nothing
// else (see TestHeadFirstWhereConditionalGETsAreIgnored for one that
// does not).
func TestLearnedServerFactsPersist(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z") // first poll: one GET
		runAt(t, cfg, "2026-11-22T00:05:00Z") // validators known: conditional GET, answered 304
		runAt(t, cfg, "2026-11-23T00:05:00Z") // answers 304 known: conditional GET alone
		want := []string{"GET /a 200", "GET /a 304", "GET /a 304"}
		if got := pub.Requests(); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("requests %v, want %v", got, want)
		}
		if f := feedRecord(t, cfg.State, pub.URL+"/a"); !f.Answers304 || f.ETag == "" {
			t.Errorf("state: answers 304 %v, etag %q", f.Answers304, f.ETag)
		}
	})
}

// A publisher's freshness hint keeps a feed from being polled at a
// subscriber's midnight that comes sooner.
func TestPublisherHintDefersThePoll(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		ts := feedtest.Start(t)
		ts.Publish("/feed", feedtest.Feed{Title: "Slow", Entries: []feedtest.Entry{post("s-1")}, NoValidators: true,
			Header: http.Header{"Cache-Control": {"max-age=172800"}}}) // two days
		cfg := testConfig(t, state, oneUser(t, ts.URL+"/feed"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		if n := ts.Count("/feed"); n != 1 {
			t.Fatalf("polled %d times within max-age", n)
		}
		if f := feedRecord(t, cfg.State, ts.URL+"/feed"); !strings.Contains(f.Reason, "max-age") {
			t.Errorf("reason %q does not name the hint", f.Reason)
		}
		runAt(t, cfg, "2026-11-24T00:05:00Z") // past two days and any salt
		if n := ts.Count("/feed"); n != 2 {
			t.Fatalf("not polled after the hint expired: %d", n)
		}
	})
}

// concurrency bounds the requests in flight over all hosts together.
func TestConcurrencyBoundsRequestsInFlight(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		ts := feedtest.Start(t)
		ts.SetLatency(30 * time.Millisecond)
		var urls []string
		for i := range 12 {
			ts.Add(fmt.Sprintf("/f%d", i), post(fmt.Sprintf("f%d-1", i)))
			urls = append(urls, fmt.Sprintf("%s/f%d", ts.URL, i))
		}
		cfg := testConfig(t, state, oneUser(t, urls...), "")
		cfg.Fetch.Concurrency = 3
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		if peak := ts.PeakInFlight(); peak > 3 || peak < 2 {
			t.Errorf("peak %d requests in flight, want at most 3 (and some overlap)", peak)
		}
	})
}

// per_host bounds the requests in flight to one host, while other hosts
// are polled beside it.
func TestPerHostBoundsRequestsToEachHost(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		ts := feedtest.Start(t)
		ts.SetLatency(50 * time.Millisecond)
		local := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1) // the same server under another host name
		var urls []string
		for i := range 6 {
			ts.Add(fmt.Sprintf("/f%d", i), post(fmt.Sprintf("f%d-1", i)))
			urls = append(urls, fmt.Sprintf("%s/f%d", ts.URL, i), fmt.Sprintf("%s/f%d", local, i))
		}
		cfg := testConfig(t, state, oneUser(t, urls...), "")
		cfg.Fetch.Concurrency, cfg.Fetch.PerHost = 8, 2
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		peaks := ts.PeakInFlightPerHost()
		if len(peaks) != 2 {
			t.Fatalf("requests came for hosts %v, want two", peaks)
		}
		for host, peak := range peaks {
			if peak != 2 {
				t.Errorf("%s: %d requests in flight at the peak, want per_host = 2", host, peak)
			}
		}
		if all := ts.PeakInFlight(); all < 3 {
			t.Errorf("%d requests in flight at the peak over both hosts: the hosts were not polled side by side", all)
		}
	})
}

// A pass of more hosts than concurrency, each paced by its token bucket,
// has them all worked at once: while the hosts claimed first wait for
// their tokens, the run's slots are free and its other loops claim the
// rest, instead of concurrency hosts at a time. Every host has its first
// request before any host has the one after its burst, which waits for a
// token a second away.
func TestRateBoundPassWorksEveryHostAtOnce(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		const hosts, feedsAHost = 6, fetch.DefaultHostBurst + 1
		farm := feedtest.StartFarm(t, hosts, 0)
		var mu sync.Mutex
		asked := map[string]int{}
		farm.Hold(func(r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			asked[r.Host]++
			if asked[r.Host] == feedsAHost && len(asked) < hosts {
				t.Errorf("%s has its request after its burst while %d of %d hosts had none yet", r.Host, hosts-len(asked), hosts)
			}
		})
		var urls []string
		for h := range hosts {
			for i := range feedsAHost {
				url := farm.URL(h, fmt.Sprintf("/feed%d", i))
				farm.Post(url, fmt.Sprintf("h%df%d", h, i))
				urls = append(urls, url)
			}
		}
		cfg := testConfig(t, state, oneUser(t, urls...), "")
		cfg.Fetch.Concurrency, cfg.Fetch.PerHost, cfg.Fetch.HostRate = 2, 1, 1
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != hosts {
			t.Errorf("%d hosts asked, want %d", len(asked), hosts)
		}
	})
}
