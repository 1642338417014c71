//go:build linux

// BenchmarkPoll2000Feeds measures a whole run's polling: 2000 feeds on
// 200 hosts, a first pass where every feed is new and a second where none
// changed. Run it alone (it takes about a minute; Linux only, since it
// listens on 127.0.0.2 to 127.0.0.201):
//
//	go test -run XXX -bench Poll2000 -benchtime 1x ./fetch/
//
// Add -cpuprofile cpu.out for a profile; the cpu-ms/feed figures already
// count the whole process (client and the fake servers) from rusage.
package fetch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const (
	benchHosts       = 200
	benchFeedsOfHost = 10
	benchLatency     = 50 * time.Millisecond
	benchWorkers     = 64
)

// benchFarm is 200 feed servers, each on its own loopback address, so each
// is its own host to the client's politeness.
type benchFarm struct {
	urls     []string // host by host
	requests atomic.Int64
	conns    atomic.Int64
}

func newBenchFarm(b *testing.B) *benchFarm {
	farm := &benchFarm{}
	bodies := make([][]byte, benchFeedsOfHost)
	for i := range bodies {
		bodies[i] = benchFeed(i)
	}
	handler := func(w http.ResponseWriter, r *http.Request) {
		farm.requests.Add(1)
		time.Sleep(benchLatency)
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/feed/"))
		if err != nil || i < 0 || i >= len(bodies) {
			http.NotFound(w, r)
			return
		}
		etag := fmt.Sprintf(`"feed-%d-v1"`, i)
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/rss+xml")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(bodies[i])))
		if r.Method == http.MethodGet {
			w.Write(bodies[i])
		}
	}
	for h := range benchHosts {
		ts := listenOn(b, fmt.Sprintf("127.0.0.%d", h+2), http.HandlerFunc(handler))
		ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				farm.conns.Add(1)
			}
		}
		for i := range benchFeedsOfHost {
			farm.urls = append(farm.urls, fmt.Sprintf("%s/feed/%d", ts.URL, i))
		}
	}
	return farm
}

// benchFeed is an RSS feed of 20 items, about 20 KB.
func benchFeed(n int) []byte {
	var sb strings.Builder
	fmt.Fprintf(&sb, `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Bench feed %d</title><link>https://example.org/%d/</link>
`, n, n)
	para := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 14)
	for i := range 20 {
		fmt.Fprintf(&sb, `<item><title>Entry %d of feed %d</title><link>https://example.org/%d/%d</link><guid>urn:bench:%d:%d</guid>
<pubDate>Sat, 21 Nov 2026 %02d:00:00 GMT</pubDate><description>&lt;p&gt;%s&lt;/p&gt;</description></item>
`, i, n, n, i, n, i, i, para)
	}
	sb.WriteString("</channel></rss>\n")
	return []byte(sb.String())
}

// passStats is what one pass over all feeds cost.
type passStats struct {
	wall     time.Duration
	cpu      time.Duration // whole process: client and servers
	requests int
	bytes    int64
	allocs   uint64 // heap bytes allocated, whole process
	peakHeap uint64 // heap objects (live, and dead not yet swept) at the highest sample
}

// polledFeed is what the benchmark keeps of a Result: as in the pipeline,
// which stores each Result as it arrives, the parsed feed is not held.
type polledFeed struct {
	outcome  Outcome
	err      error
	requests int
	entries  int
	next     Request // what the pipeline would pass next time
}

// runPass polls every request with benchWorkers workers taking them in
// order, as the pipeline does, and samples the heap while it runs.
func runPass(c *Client, reqs []Request) ([]polledFeed, passStats) {
	runtime.GC()
	var st passStats
	stopSampling := sampleHeap(&st.peakHeap)
	allocsBefore := heapAllocs()
	cpuBefore := processCPU()
	start := time.Now()

	polled := make([]polledFeed, len(reqs))
	var requests, bytes atomic.Int64
	work := make(chan int)
	var wg sync.WaitGroup
	for range benchWorkers {
		wg.Go(func() {
			for i := range work {
				r := c.Poll(context.Background(), reqs[i], testNow)
				requests.Add(int64(r.Requests))
				bytes.Add(r.Bytes)
				p := polledFeed{outcome: r.Outcome, err: r.Err, requests: r.Requests,
					next: Request{URL: reqs[i].URL, ETag: r.ETag, LastModified: r.LastModified,
						BodyHash: r.BodyHash, Answers304: r.Answers304, RefusesHEAD: r.RefusesHEAD}}
				if r.Feed != nil {
					p.entries = len(r.Feed.Entries)
				}
				polled[i] = p
			}
		})
	}
	for i := range reqs {
		work <- i
	}
	close(work)
	wg.Wait()

	st.wall = time.Since(start)
	st.cpu = processCPU() - cpuBefore
	st.allocs = heapAllocs() - allocsBefore
	stopSampling()
	st.requests, st.bytes = int(requests.Load()), bytes.Load()
	return polled, st
}

func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap records the peak of live heap objects every few milliseconds
// (runtime/metrics, which does not stop the world as ReadMemStats does).
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			*peak = max(*peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkPoll2000Feeds(b *testing.B) {
	farm := newBenchFarm(b)
	feeds := len(farm.urls)
	orders := []struct {
		name  string
		order func([]string) []string
	}{
		{"shuffled", func(urls []string) []string {
			// As the pipeline does (schedule.Shuffle), with a fixed seed.
			out := append([]string(nil), urls...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			return out
		}},
		{"spread-by-host", func(urls []string) []string {
			// Shuffled as above, then SpreadByHost.
			out := append([]string(nil), urls...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			return SpreadByHost(out, func(u string) string { return u })
		}},
	}
	for _, o := range orders {
		b.Run(o.name, func(b *testing.B) {
			urls := o.order(farm.urls)
			var p1, p2 passStats
			var conns int64
			for b.Loop() {
				// A new Client for each pass, as each run builds one: the
				// token buckets of a pass an hour ago are full again.
				newClient := func() *Client {
					return New(Options{AllowPrivateNetworks: true, PerHost: 2, HostRate: 1, HostBurst: 4})
				}
				farm.requests.Store(0)
				farm.conns.Store(0)

				first := make([]Request, feeds)
				for i, u := range urls {
					first[i] = Request{URL: u}
				}
				c := newClient()
				polled, st := runPass(c, first)
				c.Close()
				p1 = st
				second := make([]Request, feeds)
				for i, p := range polled {
					if p.outcome != OutcomeFresh || p.entries != 20 || p.requests != 1 {
						b.Fatalf("pass 1, %s: outcome %v, %d entries, %d requests, err %v", urls[i], p.outcome, p.entries, p.requests, p.err)
					}
					second[i] = p.next
				}
				if p1.requests != feeds || farm.requests.Load() != int64(feeds) {
					b.Fatalf("pass 1: %d requests counted, %d served, want %d", p1.requests, farm.requests.Load(), feeds)
				}

				farm.requests.Store(0)
				c = newClient()
				polled, p2 = runPass(c, second)
				c.Close()
				for i, p := range polled {
					if p.outcome != OutcomeUnchanged || !p.next.Answers304 {
						b.Fatalf("pass 2, %s: outcome %v, err %v", urls[i], p.outcome, p.err)
					}
				}
				// Validators, no 304 seen yet: one conditional GET, answered 304.
				if p2.requests != feeds || farm.requests.Load() != int64(feeds) {
					b.Fatalf("pass 2: %d requests counted, %d served, want %d", p2.requests, farm.requests.Load(), feeds)
				}
				conns = farm.conns.Load()
			}
			n := float64(feeds)
			b.ReportMetric(p1.wall.Seconds(), "pass1-s")
			b.ReportMetric(p2.wall.Seconds(), "pass2-s")
			b.ReportMetric(float64(p1.requests)/n, "pass1-req/feed")
			b.ReportMetric(float64(p2.requests)/n, "pass2-req/feed")
			b.ReportMetric(float64(p1.bytes)/n, "pass1-B/feed")
			b.ReportMetric(float64(p2.bytes)/n, "pass2-B/feed")
			b.ReportMetric(float64(p1.cpu.Microseconds())/1000/n, "pass1-cpu-ms/feed")
			b.ReportMetric(float64(p2.cpu.Microseconds())/1000/n, "pass2-cpu-ms/feed")
			b.ReportMetric(float64(p1.allocs)/1024/n, "pass1-alloc-KB/feed")
			b.ReportMetric(float64(p2.allocs)/1024/n, "pass2-alloc-KB/feed")
			b.ReportMetric(float64(max(p1.peakHeap, p2.peakHeap))/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(conns)/n/2, "conns/feed")
		})
	}
}
