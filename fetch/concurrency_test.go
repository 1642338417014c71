package fetch

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// Concurrency bounds the requests in flight over all hosts together: a
// farm of six hosts holds every answer until the test lets one go, and
// lets one go only when Concurrency are held, so a seventh request at
// once would be seen arriving.
func TestConcurrencyBoundsRequestsOverHosts(t *testing.T) {
	const concurrency, hosts, feedsAHost = 3, 6, 2
	farm := feedtest.StartFarm(t, hosts, 0)
	var held, peak atomic.Int32
	arrived, proceed := make(chan struct{}), make(chan struct{})
	farm.Hold(func(*http.Request) {
		n := held.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		arrived <- struct{}{}
		<-proceed
		held.Add(-1)
	})
	c := testClient(Options{PerHost: feedsAHost, Concurrency: concurrency})
	var urls []string
	for h := range hosts {
		for i := range feedsAHost {
			urls = append(urls, farm.URL(h, fmt.Sprintf("/feed%d", i)))
		}
	}
	var wg sync.WaitGroup
	for _, url := range urls {
		wg.Go(func() { c.Poll(context.Background(), Request{URL: url}, testNow) })
	}
	outstanding := 0
	for range urls {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d requests in flight and no other came: want %d at once", outstanding, concurrency)
		}
		if outstanding++; outstanding == concurrency {
			proceed <- struct{}{}
			outstanding--
		}
	}
	for range outstanding {
		proceed <- struct{}{}
	}
	wg.Wait()
	if got := peak.Load(); got != concurrency {
		t.Errorf("%d requests in flight at the peak over %d hosts, want Concurrency = %d", got, hosts, concurrency)
	}
}

// A request waiting for its host's rate token holds none of the run's
// slots: with two slots, a host whose bucket is spent does not keep
// another host's feeds waiting.
func TestWaitingForATokenHoldsNoRunSlot(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	var slow, other arrivals
	tsSlow := listenOn(t, "127.0.0.1", slow.handler(body))
	tsOther := listenOn(t, "127.0.0.2", other.handler(body))
	// Each host has its burst of 2, then a token every 1000 s: within
	// HostWait, so the slow host's other polls wait for their tokens.
	c := New(Options{AllowPrivateNetworks: true, PerHost: 2, HostRate: 0.001, HostBurst: 2, HostWait: time.Hour, Concurrency: 2})
	ctx, cancel := context.WithCancel(context.Background())
	var waiting sync.WaitGroup
	for range 6 {
		waiting.Go(func() { c.Poll(ctx, Request{URL: tsSlow.URL}, testNow) })
	}
	for slow.count() < 2 {
		time.Sleep(time.Millisecond)
	}
	done, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	for i, res := range pollAll(done, c, tsOther.URL, 2) {
		if res.Outcome != OutcomeFresh {
			t.Errorf("other host's poll %d: outcome %v err %v, while the slow host's polls wait for tokens", i, res.Outcome, res.Err)
		}
	}
	cancel()
	waiting.Wait()
	if n := slow.count(); n != 2 {
		t.Errorf("the slow host had %d requests, want its burst of 2", n)
	}
}

// A request takes its host's token as it goes, not before waiting for a
// slot of the run: tokens taken and then held while another host's
// request had the one slot would let the bucket refill meanwhile, and the
// host be hit by the held requests and a whole burst at once.
func TestTokensAreTakenAsTheRequestGoes(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	var seen arrivals
	hold, blocked := make(chan struct{}), make(chan struct{}, 1)
	tsBlocking := listenOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		blocked <- struct{}{}
		<-hold
		w.Write(body)
	}))
	tsPaced := listenOn(t, "127.0.0.2", seen.handler(body))
	// A bucket of 2 refilled at 2 a second: at most 2 + 2·0.4 requests in
	// any 0.4 s. Tokens taken early would let 4 come at once.
	c := New(Options{AllowPrivateNetworks: true, PerHost: 2, HostRate: 2, HostBurst: 2, Concurrency: 1})
	ctx := context.Background()
	go c.Poll(ctx, Request{URL: tsBlocking.URL}, testNow)
	<-blocked
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { c.Poll(ctx, Request{URL: tsPaced.URL}, testNow) })
	}
	// Long enough for the paced host's bucket to refill whole, were its
	// waiting requests holding tokens already.
	time.Sleep(1200 * time.Millisecond)
	close(hold)
	wg.Wait()
	if got := seen.maxInWindow(400 * time.Millisecond); got > 3 {
		t.Errorf("%d requests within 0.4 s; a bucket of 2 at 2/s allows 2.8", got)
	}
}
