package pipeline

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// habitServer is a feed server with the validator habits of a real one,
// good or bad: how its ETag and Last-Modified are made, whether it
// answers 304, whether it refuses conditional requests, and a limit on
// request headers. It publishes on the days a test says and records what
// each day's poll sent.
type habitServer struct {
	mu      sync.Mutex
	day     int
	items   []string // entry ids, oldest first
	changed int      // the day the body last changed

	etag, lastModified func(p *habitServer) string // "": none
	honours            bool                        // 304 when the validators sent match
	refuse             int                         // this status to any conditional request, 0: none
	headerLimit        int                         // 431 to request headers over this many bytes, 0: none
	also               int                         // a further day with a new entry, 0: none
	comparesDates      bool                        // 304 to an If-Modified-Since not before the last change (Rails, Django)

	// How the server answers a HEAD: this status (with Retry-After
	// headRetry when set), 0 for as a GET; staleHead: with the
	// validators of the last GET, a cache in front of the origin.
	headStatus int
	headRetry  string
	staleHead  bool
	lastGet    [2]string // the ETag and Last-Modified of the last GET's answer

	served map[int][]string // by day: each request's method and conditional headers
}

const window = 10 // entries in a body

func (p *habitServer) body() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Server habits</title>`)
	items := p.items[max(0, len(p.items)-window):]
	for i := len(items) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `<item><guid>%[1]s</guid><title>Post %[1]s</title><link>https://site.example/%[1]s</link></item>`, items[i])
	}
	b.WriteString(`</channel></rss>`)
	return b.String()
}

func (p *habitServer) publish(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items = append(p.items, id)
	p.changed = p.day
}

func (p *habitServer) setDay(d int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.day = d
}

func (p *habitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inm, ims := r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
	p.served[p.day] = append(p.served[p.day], fmt.Sprintf("%s(INM=%d IMS=%q)", r.Method, len(inm), ims))
	size := 0
	for k, vs := range r.Header {
		for _, v := range vs {
			size += len(k) + len(v) + 4
		}
	}
	if p.headerLimit > 0 && size > p.headerLimit {
		w.WriteHeader(http.StatusRequestHeaderFieldsTooLarge)
		return
	}
	if p.refuse != 0 && (inm != "" || ims != "") {
		w.WriteHeader(p.refuse)
		return
	}
	if r.Method == http.MethodHead && p.headStatus != 0 {
		if p.headRetry != "" {
			w.Header().Set("Retry-After", p.headRetry)
		}
		w.WriteHeader(p.headStatus)
		return
	}
	etag, lm := p.etag(p), p.lastModified(p)
	switch {
	case r.Method == http.MethodHead && p.staleHead:
		etag, lm = p.lastGet[0], p.lastGet[1]
	case r.Method == http.MethodGet:
		p.lastGet = [2]string{etag, lm}
	}
	if p.comparesDates && inm == "" && p.notModifiedSince(ims) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if lm != "" {
		w.Header().Set("Last-Modified", lm)
	}
	w.Header().Set("Content-Type", "application/rss+xml")
	if p.honours && ((inm != "" && inm == etag) || (inm == "" && ims != "" && ims == lm)) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodGet {
		w.Write([]byte(p.body()))
	}
}

// notModifiedSince says whether If-Modified-Since ims is a date not
// before the body's last change, as a server comparing dates reads it.
func (p *habitServer) notModifiedSince(ims string) bool {
	since, err := http.ParseTime(ims)
	return err == nil && !dayTime(p.changed).After(since)
}

// The habits of validators.
var (
	etagOfBody = func(p *habitServer) string { return fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(p.body())))[:18] + `"` }
	fixedETag  = func(*habitServer) string { return `"static"` }
	dailyETag  = func(p *habitServer) string { return fmt.Sprintf(`"day-%d"`, p.day) }
	hugeETag   = func(p *habitServer) string { return etagOfBody(p)[:17] + strings.Repeat("x", 12<<10) + `"` }
	lmOfChange = func(p *habitServer) string { return dayTime(p.changed).Format(http.TimeFormat) }
	fixedLM    = func(*habitServer) string { return "Sun, 01 Nov 2026 08:00:00 GMT" } // a template's mtime
	dailyLM    = func(p *habitServer) string { return dayTime(p.day).Format(http.TimeFormat) }
)

// frozenAfter is the ETag of the body until day last, then the one it
// had that day: a cache that stops noticing changes.
func frozenAfter(last int) func(p *habitServer) string {
	var frozen string
	return func(p *habitServer) string {
		if p.day <= last {
			frozen = etagOfBody(p)
		}
		return frozen
	}
}

// dayTime is the time of day d's run.
func dayTime(d int) time.Time { return at("2026-11-02T00:05:00Z").AddDate(0, 0, d) }

// Each server habit, polled daily for two weeks with new entries on some
// days: every entry is delivered exactly once, and each poll makes the
// requests DESIGN allows for that server, no more; status says what was
// learned of the server.
func TestServerHabitsOverTwoWeeks(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		const days = 14
		newOn := map[int]bool{1: true, 2: true, 3: true, 5: true, 12: true, 13: true}
		// (a) and (b): the conditional GET is the poll until a poll shows the
		// stored body again with the trusted validator unchanged (day 4); then
		// a HEAD first, by the trusted validator only; a GET follows it when
		// that validator changed, and 7 days after the last GET (day 12)
		// whatever the HEAD says.
		headFirst := []string{"GET", "GET", "GET", "GET", "GET", "HEAD,GET", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD,GET", "HEAD,GET"}
		gets := func(first ...string) []string {
			out := append([]string(nil), first...)
			for len(out) < days {
				out = append(out, "GET")
			}
			return out
		}
		tests := []struct {
			name   string
			pub    *habitServer
			want   []string // each day's methods
			server string   // what status says of the server
			check  func(t *testing.T, day int, sent []string)
		}{
			{"(a) a fixed Last-Modified and a changing ETag, conditional requests ignored",
				&habitServer{etag: etagOfBody, lastModified: fixedLM}, headFirst,
				"ignores conditional requests; a quick check (HEAD) by its ETag first, a full download when it changed and at least weekly; its Last-Modified stayed the same while the feed changed, so it is not used",
				func(t *testing.T, day int, sent []string) {
					if day > 1 && strings.Contains(strings.Join(sent, ","), "IMS=\"Sun") {
						t.Errorf("day %d: the distrusted Last-Modified was sent: %s", day, sent)
					}
				}},
			{"(b) a static ETag and a changing Last-Modified, conditional requests ignored",
				&habitServer{etag: fixedETag, lastModified: lmOfChange}, headFirst,
				"ignores conditional requests; a quick check (HEAD) by its Last-Modified first, a full download when it changed and at least weekly; its ETag stayed the same while the feed changed, so it is not used",
				func(t *testing.T, day int, sent []string) {
					if day > 1 && !strings.Contains(strings.Join(sent, ","), "INM=0") {
						t.Errorf("day %d: the distrusted ETag was sent: %s", day, sent)
					}
				}},
			{"a trusted ETag that sticks while on HEADs: the weekly GET finds the entry and distrusts it, not the HEAD",
				&habitServer{etag: frozenAfter(5), lastModified: lmOfChange, also: 7}, headFirst,
				"ignores conditional requests; a quick check (HEAD) by its Last-Modified first, a full download when it changed and at least weekly; its ETag stayed the same while the feed changed, so it is not used",
				nil},
			{"(c) both validators fixed forever while the body changes",
				&habitServer{etag: fixedETag, lastModified: fixedLM}, gets(),
				"its ETag and Last-Modified stayed the same while the feed changed, so neither is used: every poll downloads the whole feed",
				func(t *testing.T, day int, sent []string) {
					if day > 1 && sent[0] != `GET(INM=0 IMS="")` {
						t.Errorf("day %d: not a plain GET: %s", day, sent)
					}
				}},
			{"(d) validators that change every day without the body",
				&habitServer{etag: dailyETag, lastModified: dailyLM, honours: true}, gets(),
				"offers conditional requests (by ETag)", nil},
			{"(e) a server that answers 304",
				&habitServer{etag: etagOfBody, lastModified: lmOfChange, honours: true}, gets(),
				"supports conditional requests (by ETag)", nil},
			{"(f) a 12 KB ETag behind a server refusing request headers over 8 KB",
				&habitServer{etag: hugeETag, lastModified: lmOfChange, honours: true, headerLimit: 8 << 10}, gets(),
				"supports conditional requests (by Last-Modified)", func(t *testing.T, day int, sent []string) {
					if !strings.HasPrefix(sent[0], "GET(INM=0 ") {
						t.Errorf("day %d: the 12 KB ETag was sent back: %.60s", day, sent)
					}
				}},
			{"(g) 400 to conditional requests",
				&habitServer{etag: etagOfBody, lastModified: lmOfChange, honours: true, refuse: http.StatusBadRequest}, gets("GET", "GET,GET"),
				"rejects conditional requests (answers 400, 413 or 431 to them): every poll downloads the whole feed", nil},
			{"(g) 413 to conditional requests",
				&habitServer{etag: etagOfBody, lastModified: lmOfChange, honours: true, refuse: http.StatusRequestEntityTooLarge}, gets("GET", "GET,GET"),
				"rejects conditional requests (answers 400, 413 or 431 to them): every poll downloads the whole feed", nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel() // a server and a state of its own
				pub := tt.pub
				pub.served = map[int][]string{}
				for i := range 3 {
					pub.items = append(pub.items, fmt.Sprintf("p-%d", i))
				}
				ts := httptest.NewServer(pub)
				defer ts.Close()
				url := ts.URL + "/feed"
				cfg := testConfig(t, state, oneUser(t, url), "")
				published := len(pub.items)
				for day := range days {
					pub.setDay(day)
					if newOn[day] || day == pub.also {
						pub.publish(fmt.Sprintf("p-%d", published))
						published++
					}
					sum, err := Run(context.Background(), cfg, Options{Now: dayTime(day)})
					if err != nil {
						t.Fatalf("day %d: %v", day, err)
					}
					pub.mu.Lock()
					sent := pub.served[day]
					pub.mu.Unlock()
					var methods []string
					for _, s := range sent {
						methods = append(methods, s[:strings.Index(s, "(")])
					}
					if got := strings.Join(methods, ","); got != tt.want[day] || sum.Requests != len(sent) || sum.FeedsPolled != 1 {
						t.Errorf("day %d: %d polls, %s (%d counted), want %s: %v", day, sum.FeedsPolled, got, sum.Requests, tt.want[day], sent)
					}
					if sum.Failed != 0 {
						t.Errorf("day %d: the poll failed: %v", day, sum.FeedErrors)
					}
					if tt.check != nil && len(sent) > 0 {
						tt.check(t, day, sent)
					}
				}
				got := delivered(t, cfg, "ada")
				for i := range published {
					if id := fmt.Sprintf("p-%d", i); got[id] != 1 {
						t.Errorf("%s delivered %d times, want once", id, got[id])
					}
				}
				if len(got) != published {
					t.Errorf("delivered %v, want p-0 to p-%d", keys(got), published-1)
				}
				rows, err := Status(context.Background(), cfg, dayTime(days))
				if err != nil || len(rows) != 1 {
					t.Fatalf("status: %v %v", rows, err)
				}
				if rows[0].Server != tt.server || rows[0].State != "ok" {
					t.Errorf("status of the server: %s, %q\nwant %q", rows[0].State, rows[0].Server, tt.server)
				}
			})
		}
	})
}
