package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const articlePage = `<!doctype html><html><head><title>A</title></head><body><article><p>Whole.</p></article></body></html>`

// gzipBomb is a gzip stream of size zero bytes, as many one-megabyte
// members: a kilobyte each on the wire.
func gzipBomb(t *testing.T, size int64) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(member.Bytes(), int(size>>20))
}

func TestPageBadInput(t *testing.T) {
	bomb := gzipBomb(t, 1<<30) // 1 GB decoded
	stalled := make(chan struct{})
	t.Cleanup(func() { close(stalled) })
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantErr func(error) bool
	}{
		{"a 1 GB gzip bomb is cut at max_body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		}, func(err error) bool { return errors.Is(err, ErrTooLarge) }},
		{"a page that is not HTML", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4"))
		}, func(err error) bool { return errors.Is(err, ErrNotHTML) }},
		{"a 404", http.NotFound, func(err error) bool {
			var status *ErrStatus
			return errors.As(err, &status) && status.Code == 404
		}},
		{"a page that stalls ends at the timeout", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>"))
			w.(http.Flusher).Flush()
			select {
			case <-stalled:
			case <-r.Context().Done():
			}
		}, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := serve(t, tt.handler)
			timeout := 10 * time.Second // a loaded machine decodes the bomb's megabyte slowly
			if strings.Contains(tt.name, "stalls") {
				timeout = 300 * time.Millisecond
			}
			c := testClient(Options{MaxBody: 1 << 20, Timeout: timeout})
			page, err := c.Page(context.Background(), ts.URL+"/post")
			if err == nil || !tt.wantErr(err) {
				t.Errorf("err %v", err)
			}
			if page.Body != nil || page.Requests != 1 {
				t.Errorf("body of %d bytes, %d requests; want none and one", len(page.Body), page.Requests)
			}
		})
	}
}

func TestPageReadsHTMLWithTheUserAgent(t *testing.T) {
	rec, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/post", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "application/xhtml+xml; charset=utf-8")
		w.Write([]byte(articlePage))
	})
	c := testClient(Options{Contact: "https://example.org/bot"})
	page, err := c.Page(context.Background(), ts.URL+"/old")
	if err != nil {
		t.Fatal(err)
	}
	if string(page.Body) != articlePage || page.URL != ts.URL+"/post" || page.Requests != 2 || page.Bytes != int64(len(articlePage)) {
		t.Errorf("page %+v", page)
	}
	got := rec.last()
	if ua := got.Header.Get("User-Agent"); ua != c.UserAgent() || !strings.Contains(ua, "example.org/bot") {
		t.Errorf("User-Agent %q", ua)
	}
	if got.Header.Get("Cookie") != "" || got.Header.Get("Referer") != "" {
		t.Errorf("sent %v", got.Header)
	}
}

func TestPageRedirectToPrivateAddressRefused(t *testing.T) {
	var private recorder
	private.handler = func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(articlePage)) }
	inside := listenOn(t, "127.0.0.2", &private)
	var public recorder
	public.handler = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inside.URL+"/post", http.StatusFound)
	}
	outside := listenOn(t, "127.0.0.1", &public)
	onlyDotTwo := func(ip net.IP) bool { return ip.Equal(net.IPv4(127, 0, 0, 2)) }
	c := New(Options{HostRate: 1000, privateAddr: onlyDotTwo})
	if _, err := c.Page(context.Background(), outside.URL+"/post"); !errors.Is(err, ErrPrivateAddress) {
		t.Errorf("err %v, want the redirect's target refused", err)
	}
	if got := private.methods(); got != "" {
		t.Errorf("the private server was reached: %q", got)
	}
}

// TestPagesShareTheFeedPollsLimits: page fetches and feed polls of one
// host take the same slots and the same rate tokens.
func TestPagesShareTheFeedPollsLimits(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	var times []time.Time
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		times = append(times, time.Now())
		mu.Unlock()
		time.Sleep(5 * time.Millisecond) // holds the slot a while: overlap would show
		mu.Lock()
		inFlight--
		mu.Unlock()
		if r.URL.Path == "/feed" {
			w.Header().Set("Content-Type", "application/rss+xml")
			w.Write(readTestdata(t, "rss.xml"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(articlePage))
	})
	const rate = 40.0
	c := New(Options{AllowPrivateNetworks: true, PerHost: 1, HostRate: rate, HostBurst: 1})
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			if i%2 == 0 {
				c.Poll(context.Background(), Request{URL: ts.URL + "/feed"}, testNow)
			} else if _, err := c.Page(context.Background(), ts.URL+"/post"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d requests in flight at once, want per_host 1", most)
	}
	if span, least := times[len(times)-1].Sub(times[0]), time.Duration(float64(len(times)-1)/rate*float64(time.Second)); span < least*9/10 {
		t.Errorf("%d requests in %v, want at least %v at %v a second", len(times), span, least, rate)
	}
}
