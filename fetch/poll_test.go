package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"feeddigest/domain"
)

var testNow = time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)

// readTestdata reads a body the tests serve: the body cases live with
// the package that reads them.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "parse", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recorder is a feed server that records every request it receives.
type recorder struct {
	mu       sync.Mutex
	requests []*http.Request
	handler  http.HandlerFunc
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests = append(r.requests, req.Clone(context.Background()))
	r.mu.Unlock()
	r.handler(w, req)
}

func (r *recorder) methods() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var m []string
	for _, req := range r.requests {
		m = append(m, req.Method)
	}
	return strings.Join(m, ",")
}

func (r *recorder) last() *http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests[len(r.requests)-1]
}

func serve(t *testing.T, h http.HandlerFunc) (*recorder, *httptest.Server) {
	t.Helper()
	rec := &recorder{handler: h}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return rec, ts
}

func testClient(opts Options) *Client {
	opts.AllowPrivateNetworks = true
	opts.HostRate = 1000
	return New(opts)
}

// conditionalFeed serves body with validators and answers 304 when they match.
func conditionalFeed(body []byte, etag, lastModified string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastModified)
		w.Header().Set("Content-Type", "application/rss+xml")
		if (etag != "" && r.Header.Get("If-None-Match") == etag) || (lastModified != "" && r.Header.Get("If-Modified-Since") == lastModified) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	}
}

func TestFirstPollIsOneUnconditionalGET(t *testing.T) {
	rec, ts := serve(t, conditionalFeed(readTestdata(t, "rss.xml"), `W/"odd etag"`, "Sat, 21 Nov 2026 10:00:00 GMT"))
	res := testClient(Options{}).Poll(context.Background(), Request{URL: ts.URL}, testNow)
	if res.Outcome != OutcomeFresh || res.Err != nil {
		t.Fatalf("outcome %v err %v", res.Outcome, res.Err)
	}
	if rec.methods() != "GET" {
		t.Fatalf("requests %s, want one GET", rec.methods())
	}
	req := rec.last()
	for _, h := range []string{"If-None-Match", "If-Modified-Since", "A-IM", "Cookie", "Referer"} {
		if v := req.Header.Get(h); v != "" {
			t.Errorf("first poll sent %s: %q", h, v)
		}
	}
	if res.ETag != `W/"odd etag"` || res.LastModified != "Sat, 21 Nov 2026 10:00:00 GMT" {
		t.Errorf("validators not kept as received: %q %q", res.ETag, res.LastModified)
	}
	if res.BodyHash == "" || len(res.Feed.Entries) != 4 {
		t.Errorf("hash %q entries %d", res.BodyHash, len(res.Feed.Entries))
	}
}

func TestValidatorsEchoedByteForByte(t *testing.T) {
	etag := `W/"  spaced, \"quoted\"  "`
	lm := "Sat,  21 Nov 2026 10:00:00 GMT" // not canonical: must not be reformatted
	rec, ts := serve(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotModified) })
	res := testClient(Options{}).Poll(context.Background(), Request{URL: ts.URL, ETag: etag, LastModified: lm, Answers304: true}, testNow)
	if res.Outcome != OutcomeUnchanged {
		t.Fatalf("outcome %v err %v", res.Outcome, res.Err)
	}
	req := rec.last()
	if got := req.Header["If-None-Match"]; len(got) != 1 || got[0] != etag {
		t.Errorf("If-None-Match = %q, want %q", got, etag)
	}
	if got := req.Header["If-Modified-Since"]; len(got) != 1 || got[0] != lm {
		t.Errorf("If-Modified-Since = %q, want %q", got, lm)
	}
	if req.Header.Get("A-IM") != "feed" {
		t.Errorf("A-IM = %q", req.Header.Get("A-IM"))
	}
	if res.ETag != etag || res.LastModified != lm {
		t.Errorf("304 without validators must keep the stored ones: %q %q", res.ETag, res.LastModified)
	}
}

// One request per poll where the server answers conditional GETs; HEAD
// first only where it has shown it ignores them and HEAD can tell, or
// always with head = "always".
func TestHeadThenGet(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	etag, lm := `"v1"`, "Sat, 21 Nov 2026 10:00:00 GMT"
	hash := hashOf(body)
	var counter atomic.Int32
	tests := []struct {
		name        string
		handler     http.HandlerFunc
		req         Request
		opts        Options
		wantMethods string
		wantOutcome Outcome
		check       func(*testing.T, Result)
	}{
		{"validators: one conditional GET, answered 304", conditionalFeed(body, etag, lm), Request{ETag: etag},
			Options{}, "GET", OutcomeUnchanged, func(t *testing.T, r Result) {
				if !r.Answers304 {
					t.Error("a 304 teaches that the server answers conditional requests")
				}
			}},
		{"validators, changed feed: one conditional GET", conditionalFeed(body, `"v2"`, lm), Request{ETag: etag},
			Options{}, "GET", OutcomeFresh, nil},
		{"no validators: GET alone", conditionalFeed(body, etag, lm), Request{},
			Options{}, "GET", OutcomeFresh, nil},
		{"no validators, ignoring known: GET alone", conditionalFeed(body, etag, lm), Request{IgnoresConditional: true},
			Options{}, "GET", OutcomeFresh, nil},
		{"conditional GET ignored: learned", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", etag)
			w.Write(body)
		}, Request{ETag: etag, BodyHash: hash}, Options{}, "GET", OutcomeUnchanged, func(t *testing.T, r Result) {
			if !r.IgnoresConditional {
				t.Error("ignoring conditional GETs not learned from a 200 with the stored ETag")
			}
		}},
		{"the stored body in full, without validators, to a conditional GET: learned", func(w http.ResponseWriter, r *http.Request) {
			w.Write(body)
		}, Request{ETag: `"0"`, BodyHash: hash}, Options{}, "GET", OutcomeUnchanged, func(t *testing.T, r Result) {
			if !r.IgnoresConditional {
				t.Error("ignoring conditional GETs not learned from the stored body hash")
			}
		}},
		{"the stored body with a new ETag: the 200 was right, nothing learned", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", fmt.Sprintf(`"%d"`, counter.Add(1)))
			w.Write(body)
		}, Request{ETag: `"0"`, BodyHash: hash}, Options{}, "GET", OutcomeUnchanged, func(t *testing.T, r Result) {
			if r.IgnoresConditional || r.Distrust != (domain.Distrust{}) {
				t.Errorf("learned ignoring %v, distrust %+v from validators that changed", r.IgnoresConditional, r.Distrust)
			}
		}},
		{"ignoring known: HEAD 304 ends the poll", conditionalFeed(body, etag, lm), Request{ETag: etag, IgnoresConditional: true},
			Options{}, "HEAD", OutcomeUnchanged, nil},
		{"ignoring known, changed feed: HEAD then GET", conditionalFeed(body, `"v2"`, lm), Request{ETag: etag, IgnoresConditional: true},
			Options{}, "HEAD,GET", OutcomeFresh, nil},
		{"ignoring known: HEAD with the stored validators ends the poll", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", etag)
			w.Write(body)
		}, Request{ETag: etag, IgnoresConditional: true}, Options{}, "HEAD", OutcomeUnchanged, func(t *testing.T, r Result) {
			if !r.IgnoresConditional {
				t.Error("ignoring conditional requests forgotten")
			}
		}},
		{"HEAD refused: learn it and GET", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			conditionalFeed(body, `"v2"`, lm)(w, r)
		}, Request{ETag: etag, IgnoresConditional: true}, Options{}, "HEAD,GET", OutcomeFresh, func(t *testing.T, r Result) {
			if !r.RefusesHEAD {
				t.Error("405 to HEAD not learned")
			}
		}},
		{"server refusing HEAD is not asked again", conditionalFeed(body, etag, lm), Request{ETag: etag, RefusesHEAD: true, IgnoresConditional: true},
			Options{}, "GET", OutcomeUnchanged, func(t *testing.T, r Result) {
				if r.IgnoresConditional {
					t.Error("a 304 to a conditional GET must unlearn ignoring them")
				}
			}},
		{"HEAD without validators: learned, GET", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("ETag", etag)
				w.Write(body)
			}
		}, Request{ETag: etag, BodyHash: hash, IgnoresConditional: true}, Options{}, "HEAD,GET", OutcomeUnchanged, func(t *testing.T, r Result) {
			if !r.RefusesHEAD {
				t.Error("a HEAD without validators not learned")
			}
		}},
		{"HEAD validators that do not tell: learned", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", fmt.Sprintf(`"%d"`, counter.Add(1)))
			w.Write(body)
		}, Request{ETag: `"0"`, BodyHash: hash, IgnoresConditional: true}, Options{}, "HEAD,GET", OutcomeUnchanged, func(t *testing.T, r Result) {
			if !r.RefusesHEAD {
				t.Error("HEAD said changed, the body said not: not learned")
			}
		}},
		{"head always, even on a first poll", conditionalFeed(body, etag, lm), Request{},
			Options{HeadAlways: true}, "HEAD,GET", OutcomeFresh, nil},
		{"head always, even when 304s are known", conditionalFeed(body, etag, lm), Request{ETag: etag, Answers304: true},
			Options{HeadAlways: true}, "HEAD", OutcomeUnchanged, nil},
		{"head always: a week after the last GET, HEAD then GET", conditionalFeed(body, etag, lm),
			Request{ETag: etag, Answers304: true, LastGet: testNow.Add(-ConfirmEvery)},
			Options{HeadAlways: true}, "HEAD,GET", OutcomeUnchanged, nil},
		{"head always, changed feed", conditionalFeed(body, `"v2"`, lm), Request{ETag: etag, Answers304: true},
			Options{HeadAlways: true}, "HEAD,GET", OutcomeFresh, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ts := serve(t, tt.handler)
			tt.req.URL = ts.URL
			if tt.req.LastGet.IsZero() {
				tt.req.LastGet = testNow.Add(-24 * time.Hour) // a GET yesterday
			}
			res := testClient(tt.opts).Poll(context.Background(), tt.req, testNow)
			if got := rec.methods(); got != tt.wantMethods {
				t.Errorf("requests %s, want %s", got, tt.wantMethods)
			}
			if res.Outcome != tt.wantOutcome {
				t.Errorf("outcome %v (err %v), want %v", res.Outcome, res.Err, tt.wantOutcome)
			}
			if res.Requests != strings.Count(tt.wantMethods, ",")+1 {
				t.Errorf("counted %d requests", res.Requests)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func hashOf(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

func TestSameBodyHashIsUnchanged(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	c := testClient(Options{})
	first := c.Poll(context.Background(), Request{URL: ts.URL}, testNow)
	second := c.Poll(context.Background(), Request{URL: ts.URL, BodyHash: first.BodyHash}, testNow)
	if first.Outcome != OutcomeFresh || second.Outcome != OutcomeUnchanged || second.Feed != nil {
		t.Errorf("first %v, second %v (feed %v)", first.Outcome, second.Outcome, second.Feed != nil)
	}
}

func TestRequestHygiene(t *testing.T) {
	rec, ts := serve(t, conditionalFeed(readTestdata(t, "rss.xml"), `"v"`, ""))
	c := testClient(Options{Contact: "https://example.org/bot"})
	c.Poll(context.Background(), Request{URL: ts.URL + "/feed.xml?a=1"}, testNow)
	req := rec.last()
	if ua := req.Header.Get("User-Agent"); ua != "feeddigest/"+Version+" (+https://example.org/bot)" {
		t.Errorf("User-Agent = %q", ua)
	}
	if accept := req.Header.Get("Accept"); !strings.Contains(accept, "application/atom+xml") || !strings.Contains(accept, "application/rss+xml") {
		t.Errorf("Accept = %q", accept)
	}
	if req.Header.Get("Accept-Encoding") != "gzip, deflate, br, zstd" {
		t.Errorf("Accept-Encoding = %q", req.Header.Get("Accept-Encoding"))
	}
	if req.URL.RequestURI() != "/feed.xml?a=1" {
		t.Errorf("URL changed: %s", req.URL.RequestURI())
	}
}

func TestGzipDecodedWithLimit(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(readTestdata(t, "rss.xml"))
	zw.Close()
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(zipped.Bytes())
	})
	res := testClient(Options{}).Poll(context.Background(), Request{URL: ts.URL}, testNow)
	if res.Outcome != OutcomeFresh {
		t.Fatalf("gzip body: %v %v", res.Outcome, res.Err)
	}
	if res.Bytes != int64(zipped.Len()) {
		t.Errorf("bytes on the wire %d, want %d", res.Bytes, zipped.Len())
	}
	// A bomb: 4 MB of zeros in 4 KB, four times the limit. (Compressing
	// more takes seconds under -race and shows nothing more.)
	var bomb bytes.Buffer
	zw = gzip.NewWriter(&bomb)
	zw.Write(make([]byte, 4<<20))
	zw.Close()
	_, ts = serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb.Bytes())
	})
	res = testClient(Options{MaxBody: 1 << 20}).Poll(context.Background(), Request{URL: ts.URL}, testNow)
	if !errors.Is(res.Err, ErrTooLarge) || res.Outcome != OutcomeBroken {
		t.Errorf("gzip bomb: outcome %v err %v", res.Outcome, res.Err)
	}
}

func TestStatusCodes(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
		want       Outcome
		wantAfter  time.Duration
	}{
		{http.StatusGone, "", OutcomeGone, 0},
		{http.StatusNotFound, "", OutcomeHTTPError, 0},
		{http.StatusInternalServerError, "", OutcomeHTTPError, 0},
		{http.StatusTooManyRequests, "120", OutcomeHTTPError, 2 * time.Minute},
		{http.StatusServiceUnavailable, testNow.Add(time.Hour).Format(http.TimeFormat), OutcomeHTTPError, time.Hour},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
			})
			res := testClient(Options{}).Poll(context.Background(), Request{URL: ts.URL}, testNow)
			if res.Outcome != tt.want || res.Status != tt.status {
				t.Errorf("outcome %v status %d", res.Outcome, res.Status)
			}
			var se *ErrStatus
			if !errors.As(res.Err, &se) || se.Code != tt.status {
				t.Errorf("err %v", res.Err)
			}
			if got := res.RetryAfter.Sub(testNow); tt.wantAfter != 0 && got != tt.wantAfter {
				t.Errorf("Retry-After in %v, want %v", got, tt.wantAfter)
			}
		})
	}
}

func TestRefusesPrivateAddresses(t *testing.T) {
	rec, ts := serve(t, conditionalFeed(readTestdata(t, "rss.xml"), `"v"`, ""))
	c := New(Options{}) // allow_private_networks off
	// A DNS name that resolves to loopback is refused as well.
	url := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)
	res := c.Poll(context.Background(), Request{URL: url}, testNow)
	if !errors.Is(res.Err, ErrPrivateAddress) || res.Outcome != OutcomeBroken {
		t.Errorf("outcome %v err %v", res.Outcome, res.Err)
	}
	if rec.methods() != "" {
		t.Errorf("a request reached the server: %s", rec.methods())
	}
}

func TestRedirects(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	mux := http.NewServeMux()
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/feed", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/temp", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/feed", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) })
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	rec, ts := serve(t, mux.ServeHTTP)
	c := testClient(Options{})

	res := c.Poll(context.Background(), Request{URL: ts.URL + "/old"}, testNow)
	if res.Outcome != OutcomeFresh || res.PermanentURL != ts.URL+"/feed" || res.OriginChanged {
		t.Errorf("301: outcome %v permanent %q origin changed %v", res.Outcome, res.PermanentURL, res.OriginChanged)
	}
	if ref := rec.last().Header.Get("Referer"); ref != "" {
		t.Errorf("redirect sent a Referer: %q", ref)
	}
	res = c.Poll(context.Background(), Request{URL: ts.URL + "/temp"}, testNow)
	if res.Outcome != OutcomeFresh || res.PermanentURL != "" {
		t.Errorf("302: outcome %v permanent %q", res.Outcome, res.PermanentURL)
	}
	res = c.Poll(context.Background(), Request{URL: ts.URL + "/loop"}, testNow)
	if !errors.Is(res.Err, ErrTooManyRedirects) || res.Outcome != OutcomeBroken {
		t.Errorf("loop: outcome %v err %v", res.Outcome, res.Err)
	}
}

func TestTimeoutIsANetError(t *testing.T) {
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		// Drip: headers at once, then a byte now and then, past the timeout.
		w.WriteHeader(http.StatusOK)
		for range 20 {
			w.Write([]byte(" "))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	start := time.Now()
	res := testClient(Options{Timeout: 200 * time.Millisecond}).Poll(context.Background(), Request{URL: ts.URL}, testNow)
	if res.Outcome != OutcomeNetError {
		t.Errorf("outcome %v err %v", res.Outcome, res.Err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("a dripping server held the poll for %v", elapsed)
	}
}
