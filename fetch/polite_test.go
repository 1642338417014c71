package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pollAll runs n Polls of url at once and waits for them.
func pollAll(ctx context.Context, c *Client, url string, n int) []Result {
	results := make([]Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = c.Poll(ctx, Request{URL: url}, testNow)
		})
	}
	wg.Wait()
	return results
}

func TestPerHostInFlight(t *testing.T) {
	var inFlight, peak atomic.Int32
	body := readTestdata(t, "rss.xml")
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
		w.Write(body)
	})
	c := testClient(Options{PerHost: 2})
	for _, res := range pollAll(context.Background(), c, ts.URL, 10) {
		if res.Outcome != OutcomeFresh {
			t.Fatalf("outcome %v err %v", res.Outcome, res.Err)
		}
	}
	// The Transport alone would allow PerHost+1 connections: the bound
	// is the host gate's.
	if got := peak.Load(); got != 2 {
		t.Errorf("%d requests in flight at the peak, want exactly per_host = 2", got)
	}
}

// arrivals records when requests reach a server.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
}

func (a *arrivals) handler(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.times = append(a.times, time.Now())
		a.mu.Unlock()
		w.Write(body)
	}
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.times)
}

// maxInWindow is the most arrivals within any window of length d.
func (a *arrivals) maxInWindow(d time.Duration) int {
	a.mu.Lock()
	times := slices.Clone(a.times)
	a.mu.Unlock()
	slices.SortFunc(times, func(x, y time.Time) int { return x.Compare(y) })
	most := 0
	for i := range times {
		j := i
		for j < len(times) && times[j].Sub(times[i]) < d {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

func TestHostRateTokenBucket(t *testing.T) {
	// A token bucket of rate r and burst b lets at most b + r·d requests
	// through in any window of length d. With r = 5/s, b = 4 and
	// d = 0.5 s that is 6.5; the bound checked is 8, which leaves 400 ms
	// for scheduling delays (under -race) between the limiter's grant and
	// the server's clock. 9 requests without a limiter arrive within
	// milliseconds, so the check is not vacuous, as it would be for a
	// 1 s window (4 + 5 = 9 of 9 requests).
	var seen arrivals
	_, ts := serve(t, seen.handler(readTestdata(t, "rss.xml")))
	c := New(Options{AllowPrivateNetworks: true, PerHost: 9, HostRate: 5, HostBurst: 4})
	for _, res := range pollAll(context.Background(), c, ts.URL, 9) {
		if res.Outcome != OutcomeFresh {
			t.Fatalf("outcome %v err %v", res.Outcome, res.Err)
		}
	}
	if got := seen.maxInWindow(500 * time.Millisecond); got > 8 {
		t.Errorf("%d requests within 0.5 s; a 5/s bucket of 4 allows about 6.5", got)
	}
}

// listenOn starts a test server on a given loopback address: Linux routes
// all of 127.0.0.0/8 to the loopback interface.
func listenOn(t testing.TB, ip string, h http.Handler) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

func TestHostsLimitedIndependently(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	var one, two arrivals
	tsOne := listenOn(t, "127.0.0.1", one.handler(body))
	tsTwo := listenOn(t, "127.0.0.2", two.handler(body))
	// A bucket that never refills within the test: each host has its
	// burst of 4 and then nothing. A token 1000 s away is past the
	// deadline, which the limiter refuses at once: no poll here waits.
	c := New(Options{AllowPrivateNetworks: true, PerHost: 4, HostRate: 0.001, HostBurst: 4})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, url := range []string{tsOne.URL, tsTwo.URL} {
		for i, res := range pollAll(ctx, c, url, 4) {
			if res.Outcome != OutcomeFresh {
				t.Fatalf("%s poll %d: outcome %v err %v; a host's burst must not be spent by another host", url, i, res.Outcome, res.Err)
			}
		}
	}
	// The fifth request to a host finds its bucket empty.
	if res := c.Poll(ctx, Request{URL: tsOne.URL}, testNow); res.Outcome != OutcomeNetError {
		t.Errorf("fifth request: outcome %v err %v, want the rate limit to refuse it", res.Outcome, res.Err)
	}
	if one.count() != 4 || two.count() != 4 {
		t.Errorf("arrivals %d and %d, want 4 and 4", one.count(), two.count())
	}
}

func TestWaitingForTheHostIsNotATimeout(t *testing.T) {
	// One slot, each answer takes 100 ms, the timeout is 1 s: the last of
	// twelve polls waits at least 1.1 s for its turn, which is politeness,
	// not a slow server. Each answer has 900 ms to spare within the
	// timeout, so that a loaded machine does not make a slow server of it;
	// load only makes the waits longer.
	const answer, timeout, polls = 100 * time.Millisecond, time.Second, 12
	body := readTestdata(t, "rss.xml")
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(answer)
		w.Write(body)
	})
	c := testClient(Options{PerHost: 1, Timeout: timeout})
	start := time.Now()
	results := pollAll(context.Background(), c, ts.URL, polls)
	if waited := time.Since(start); waited < timeout+answer {
		t.Fatalf("the polls took %v: the last one did not wait longer than the timeout", waited)
	}
	for i, res := range results {
		if res.Outcome != OutcomeFresh {
			t.Errorf("poll %d: outcome %v err %v", i, res.Outcome, res.Err)
		}
	}
}

func TestHostWaitIsBounded(t *testing.T) {
	// The host's one slot is held by a request the server does not answer
	// yet: the next poll gives up after HostWait, as a passing error,
	// well before its caller's deadline.
	hold, arrived := make(chan struct{}), make(chan struct{}, 1)
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			arrived <- struct{}{}
			<-hold
		}
		w.Write(readTestdata(t, "rss.xml"))
	})
	defer close(hold)
	c := testClient(Options{PerHost: 1, HostWait: 300 * time.Millisecond})
	go c.Poll(context.Background(), Request{URL: ts.URL + "/slow"}, testNow)
	<-arrived
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := c.Poll(ctx, Request{URL: ts.URL + "/next"}, testNow)
	if !errors.Is(res.Err, ErrHostBusy) || res.Outcome != OutcomeNetError {
		t.Errorf("outcome %v err %v, want ErrHostBusy, a passing failure", res.Outcome, res.Err)
	}
}
