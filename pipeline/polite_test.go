package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/sqlite"
)

const tinyRSS = `<rss version="2.0"><channel><title>%s</title><item><guid>%s</guid><title>Post</title><link>https://site.example/%s</link></item></channel></rss>`

// hits counts requests per path.
type hits struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *hits) add(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n[path]++
}

func (h *hits) get(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n[path]
}

func feedRecord(t *testing.T, statePath, url string) domain.Feed {
	t.Helper()
	st, err := sqlite.OpenReader(context.Background(), statePath)
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
	h := &hits{n: map[string]int{}}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add("other" + r.URL.Path)
		fmt.Fprintf(w, tinyRSS, "Elsewhere", "x-1", "x-1")
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		http.Redirect(w, r, "/new", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		fmt.Fprintf(w, tinyRSS, "New home", "n-1", "n-1")
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		http.Redirect(w, r, other.URL+"/feed", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/temp", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	cfg := testConfig(t, oneUser(t, ts.URL+"/old", ts.URL+"/away", ts.URL+"/temp"), "")
	runAt(t, cfg, "2026-11-21T12:00:00Z")
	runAt(t, cfg, "2026-11-22T00:05:00Z")

	moved := feedRecord(t, cfg.State, ts.URL+"/old")
	if moved.EffectiveURL != ts.URL+"/new" || h.get("/old") != 1 {
		t.Errorf("301: effective %q, /old asked %d times (want once)", moved.EffectiveURL, h.get("/old"))
	}
	away := feedRecord(t, cfg.State, ts.URL+"/away")
	if away.EffectiveURL != "" || away.PendingURL != other.URL+"/feed" || h.get("/away") != 2 {
		t.Errorf("308 to another site: effective %q pending %q, /away asked %d times (want twice: not switched silently)",
			away.EffectiveURL, away.PendingURL, h.get("/away"))
	}
	if temp := feedRecord(t, cfg.State, ts.URL+"/temp"); temp.EffectiveURL != "" || h.get("/temp") != 2 {
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
}

func TestFailedFeedIsRetriedBetweenMidnights(t *testing.T) {
	h := &hits{n: map[string]int{}}
	var mu sync.Mutex
	status := http.StatusServiceUnavailable
	retryAfter := ""
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		mu.Lock()
		code, ra := status, retryAfter
		mu.Unlock()
		if code != http.StatusOK {
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(code)
			return
		}
		fmt.Fprintf(w, tinyRSS, "Back", "b-1", "b-1")
	}))
	defer ts.Close()
	set := func(code int, ra string) {
		mu.Lock()
		status, retryAfter = code, ra
		mu.Unlock()
	}
	cfg := testConfig(t, oneUser(t, ts.URL+"/feed"), "")
	set(http.StatusTooManyRequests, "7200") // two hours
	runAt(t, cfg, "2026-11-21T12:00:00Z")
	set(http.StatusOK, "")
	runAt(t, cfg, "2026-11-21T13:00:00Z")
	if n := h.get("/feed"); n != 1 {
		t.Fatalf("asked %d times within Retry-After", n)
	}
	// No subscriber is due at 15:00 London time, but the retry is owed.
	runAt(t, cfg, "2026-11-21T14:30:00Z")
	if n := h.get("/feed"); n != 2 {
		t.Fatalf("not retried after Retry-After: %d requests", n)
	}
	runAt(t, cfg, "2026-11-21T16:00:00Z")
	if n := h.get("/feed"); n != 2 {
		t.Fatalf("polled again after the retry succeeded: %d requests", n)
	}
	runAt(t, cfg, "2026-11-22T00:05:00Z")
	page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html"))
	if !strings.Contains(page, "site.example/b-1") {
		t.Error("the entry found by the retry is not in the next digest")
	}
}

func TestStartDelayBeforeTheFirstRequest(t *testing.T) {
	h := &hits{n: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		fmt.Fprintf(w, tinyRSS, "T", "t-1", "t-1")
	}))
	defer ts.Close()
	cfg := testConfig(t, oneUser(t, ts.URL+"/feed"), "")
	cfg.Fetch.StartDelayMin, cfg.Fetch.StartDelayMax = time.Minute, 3*time.Minute
	var slept []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		if h.get("/feed") != 0 {
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
	bomb := gzipBomb()
	mux := http.NewServeMux()
	mux.HandleFunc("/good", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, tinyRSS, "Good", "g-1", "g-1") })
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("<item>"), 1024)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/drip", func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			w.Write([]byte("<"))
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) })
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/malformed", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<rss><channel><item><title>x</ite")) })
	mux.HandleFunc("/charset", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml; charset=iso-8859-1")
		w.Write([]byte("<rss version=\"2.0\"><channel><title>Caf\xe9</title><item><guid>c-1</guid><title>Cr\xe8me</title><link>https://site.example/c-1</link></item></channel></rss>"))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	paths := []string{"/good", "/bomb", "/endless", "/drip", "/loop", "/malformed", "/charset"}
	var urls []string
	for _, p := range paths {
		urls = append(urls, ts.URL+p)
	}
	cfg := testConfig(t, oneUser(t, urls...), "")
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
}

func TestDiscoveredFeedIsRemembered(t *testing.T) {
	h := &hits{n: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/blog", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><link rel="alternate" type="application/rss+xml" href="/blog/feed.xml"></head><body>Hi</body></html>`)
	})
	mux.HandleFunc("/blog/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		fmt.Fprintf(w, tinyRSS, "Blog", "d-1", "d-1")
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	cfg := testConfig(t, oneUser(t, ts.URL+"/blog"), "")
	runAt(t, cfg, "2026-11-21T12:00:00Z")
	runAt(t, cfg, "2026-11-22T00:05:00Z")
	if h.get("/blog") != 1 || h.get("/blog/feed.xml") != 2 {
		t.Errorf("page asked %d times (want 1), feed %d (want 2)", h.get("/blog"), h.get("/blog/feed.xml"))
	}
	if f := feedRecord(t, cfg.State, ts.URL+"/blog"); f.EffectiveURL != ts.URL+"/blog/feed.xml" {
		t.Errorf("effective URL %q", f.EffectiveURL)
	}
	if !strings.Contains(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html")), "site.example/d-1") {
		t.Error("the discovered feed's entry is missing")
	}
}

// What a poll teaches about the server is kept in the state and shapes the
// next run's requests: a server answering conditional GETs gets nothing
// else (see TestHeadFirstWhereConditionalGETsAreIgnored for one that
// does not).
func TestLearnedServerFactsPersist(t *testing.T) {
	pub := newPublisher(t)
	pub.add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
	cfg := testConfig(t, oneUser(t, pub.url("/a")), "")
	runAt(t, cfg, "2026-11-21T12:00:00Z") // first poll: one GET
	runAt(t, cfg, "2026-11-22T00:05:00Z") // validators known: conditional GET, answered 304
	runAt(t, cfg, "2026-11-23T00:05:00Z") // answers 304 known: conditional GET alone
	want := []string{"GET /a 200", "GET /a 304", "GET /a 304"}
	if got := pub.requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %v, want %v", got, want)
	}
	if f := feedRecord(t, cfg.State, pub.url("/a")); !f.Answers304 || f.ETag == "" {
		t.Errorf("state: answers 304 %v, etag %q", f.Answers304, f.ETag)
	}
}

// A publisher's freshness hint keeps a feed from being polled at a
// subscriber's midnight that comes sooner.
func TestPublisherHintDefersThePoll(t *testing.T) {
	h := &hits{n: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		w.Header().Set("Cache-Control", "max-age=172800") // two days
		fmt.Fprintf(w, tinyRSS, "Slow", "s-1", "s-1")
	}))
	defer ts.Close()
	cfg := testConfig(t, oneUser(t, ts.URL+"/feed"), "")
	runAt(t, cfg, "2026-11-21T00:05:00Z")
	runAt(t, cfg, "2026-11-22T00:05:00Z")
	if n := h.get("/feed"); n != 1 {
		t.Fatalf("polled %d times within max-age", n)
	}
	if f := feedRecord(t, cfg.State, ts.URL+"/feed"); !strings.Contains(f.Reason, "max-age") {
		t.Errorf("reason %q does not name the hint", f.Reason)
	}
	runAt(t, cfg, "2026-11-24T00:05:00Z") // past two days and any salt
	if n := h.get("/feed"); n != 2 {
		t.Fatalf("not polled after the hint expired: %d", n)
	}
}

// concurrency bounds the requests in flight over all hosts together.
func TestConcurrencyBoundsRequestsInFlight(t *testing.T) {
	var mu sync.Mutex
	inFlight, peak := 0, 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		fmt.Fprintf(w, tinyRSS, "F", r.URL.Path[1:]+"-1", r.URL.Path[1:]+"-1")
	}))
	defer ts.Close()
	var urls []string
	for i := range 12 {
		urls = append(urls, fmt.Sprintf("%s/f%d", ts.URL, i))
	}
	cfg := testConfig(t, oneUser(t, urls...), "")
	cfg.Fetch.Concurrency = 3
	runAt(t, cfg, "2026-11-21T12:00:00Z")
	if peak > 3 || peak < 2 {
		t.Errorf("peak %d requests in flight, want at most 3 (and some overlap)", peak)
	}
}
