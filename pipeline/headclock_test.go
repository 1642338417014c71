package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
)

// habitRun is a habitServer polled by one user's daily runs.
type habitRun struct {
	t         *testing.T
	pub       *habitServer
	cfg       *config.Config
	url       string
	published int
}

// newHabitRun serves pub, with three entries to start, to one user.
func newHabitRun(t *testing.T, state backend, pub *habitServer) *habitRun {
	pub.served = map[int][]string{}
	for i := range 3 {
		pub.items = append(pub.items, fmt.Sprintf("p-%d", i))
	}
	ts := httptest.NewServer(pub)
	t.Cleanup(ts.Close)
	url := ts.URL + "/feed"
	return &habitRun{t: t, pub: pub, cfg: testConfig(t, state, oneUser(t, url), ""), url: url, published: len(pub.items)}
}

// day runs day d's pass at its time plus after, first publishing an
// entry when post is set; it returns the pass's summary and the requests
// the server saw that day so far.
func (h *habitRun) day(d int, after time.Duration, post bool) (Summary, []string) {
	h.t.Helper()
	h.pub.setDay(d)
	if post {
		h.pub.publish(fmt.Sprintf("p-%d", h.published))
		h.published++
	}
	sum, err := Run(context.Background(), h.cfg, Options{Now: dayTime(d).Add(after)})
	if err != nil {
		h.t.Fatalf("day %d: %v", d, err)
	}
	h.pub.mu.Lock()
	defer h.pub.mu.Unlock()
	return sum, append([]string(nil), h.pub.served[d]...)
}

// allDeliveredOnce checks that every entry published reached the user
// exactly once.
func (h *habitRun) allDeliveredOnce() {
	h.t.Helper()
	got := delivered(h.t, h.cfg, "ada")
	for i := range h.published {
		if id := fmt.Sprintf("p-%d", i); got[id] != 1 {
			h.t.Errorf("%s delivered %d times, want once", id, got[id])
		}
	}
}

// status is the feed's status row: its state and its server note.
func (h *habitRun) status(d int) (string, string) {
	h.t.Helper()
	rows, err := Status(context.Background(), h.cfg, dayTime(d))
	if err != nil || len(rows) != 1 {
		h.t.Fatalf("status: %v %v", rows, err)
	}
	return string(rows[0].State), rows[0].Server
}

func methodsOf(sent []string) string {
	var m []string
	for _, s := range sent {
		m = append(m, s[:strings.Index(s, "(")])
	}
	return strings.Join(m, ",")
}

// A HEAD answered 404, 405, 410 or 500 (a CDN rule, a framework without
// HEAD) by a server whose GET works: the GET follows in the same poll,
// its entries arrive that day, the feed is not gone nor failing, and the
// server is asked no HEAD again.
func TestHeadErrorIsNoVerdict(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		for _, status := range []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusGone, http.StatusInternalServerError} {
			t.Run(strconv.Itoa(status), func(t *testing.T) {
				t.Parallel()
				h := newHabitRun(t, state, &habitServer{etag: etagOfBody, lastModified: lmOfChange, headStatus: status})
				// Day 1 shows the stored body again under the same
				// validators: conditional GETs ignored, so HEAD first.
				want := []string{"GET", "GET", "HEAD,GET", "GET", "GET", "GET"}
				for d, w := range want {
					sum, sent := h.day(d, 0, d >= 2)
					if got := methodsOf(sent); got != w {
						t.Errorf("day %d: %s, want %s", d, got, w)
					}
					if d >= 2 && (sum.NewEntries != 1 || sum.Failed != 0) {
						t.Errorf("day %d: %d new entries, failed %v: want the day's entry", d, sum.NewEntries, sum.FeedErrors)
					}
				}
				h.allDeliveredOnce()
				if state, note := h.status(len(want)); state != "ok" || !strings.HasSuffix(note, "quick checks (HEAD) refused or unreliable: every poll downloads the whole feed") {
					t.Errorf("status %s, %q: want ok, and the HEAD no longer asked", state, note)
				}
			})
		}
	})
}

// A HEAD answered 429 is honoured as any 429: no request before its
// Retry-After, then a GET (a retry poll between midnights), and no HEAD
// again.
func TestHeadTooManyRequestsHonoured(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		h := newHabitRun(t, state, &habitServer{etag: etagOfBody, lastModified: lmOfChange,
			headStatus: http.StatusTooManyRequests, headRetry: "7200"})
		h.day(0, 0, false)
		h.day(1, 0, false)
		sum, sent := h.day(2, 0, true)
		if got := methodsOf(sent); got != "HEAD" || sum.Failed != 1 {
			t.Fatalf("day 2: %s, failed %d: want a HEAD answered 429, and no GET", got, sum.Failed)
		}
		// An hour later, within the Retry-After: no request.
		if _, sent := h.day(2, time.Hour, false); len(sent) != 1 {
			t.Errorf("within the Retry-After: %v", sent)
		}
		// Past it: the retry poll, a GET, brings the entry.
		sum, sent = h.day(2, 6*time.Hour, false)
		if got := methodsOf(sent); got != "HEAD,GET" || sum.NewEntries != 1 {
			t.Errorf("after the Retry-After: %s, %d new: want a GET with the entry", got, sum.NewEntries)
		}
		for d := 3; d < 6; d++ {
			sum, sent := h.day(d, 0, true)
			if got := methodsOf(sent); got != "GET" || sum.NewEntries != 1 {
				t.Errorf("day %d: %s, %d new: want a GET alone, with the day's entry", d, got, sum.NewEntries)
			}
		}
		h.allDeliveredOnce()
		if state, note := h.status(6); state != "ok" || !strings.HasSuffix(note, "quick checks (HEAD) refused or unreliable: every poll downloads the whole feed") {
			t.Errorf("status %s, %q: want ok, and the HEAD no longer asked", state, note)
		}
	})
}

// A HEAD answered by a cache that keeps the validators of the last GET
// says "unchanged" while the feed changes. The weekly GET, which the HEAD
// now precedes, catches it: from then on no HEAD, and each day's entry
// arrives that day.
func TestStaleHeadCaught(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		h := newHabitRun(t, state, &habitServer{etag: etagOfBody, lastModified: lmOfChange, staleHead: true})
		// Days 2 to 7 on HEADs (the entry of day 3 waits for the weekly
		// GET, 7 days after the last one on day 1), day 8 a HEAD and the
		// GET, then GETs alone.
		want := []string{"GET", "GET", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD,GET", "GET", "GET", "GET"}
		for d, w := range want {
			post := d == 3 || d >= 9
			sum, sent := h.day(d, 0, post)
			if got := methodsOf(sent); got != w {
				t.Errorf("day %d: %s, want %s", d, got, w)
			}
			if d >= 8 && sum.NewEntries != 1 {
				t.Errorf("day %d: %d new entries, want 1", d, sum.NewEntries)
			}
		}
		h.allDeliveredOnce()
		if state, note := h.status(len(want)); state != "ok" || !strings.HasSuffix(note, "quick checks (HEAD) refused or unreliable: every poll downloads the whole feed") {
			t.Errorf("status %s, %q: want ok, and the HEAD no longer asked", state, note)
		}
	})
}

// wrongClock is a Last-Modified years ahead of any clock.
const wrongClock = "Tue, 01 Jan 2030 00:00:00 GMT"

// A server whose Last-Modified is years ahead of its clock, and which
// answers 304 to any If-Modified-Since not before its last change (as
// Rails and Django do): the date is never sent back, and each day's
// entry arrives that day.
func TestLastModifiedAheadOfTheClock(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		h := newHabitRun(t, state, &habitServer{etag: func(*habitServer) string { return "" },
			lastModified: func(*habitServer) string { return wrongClock }, comparesDates: true})
		for d := range 5 {
			sum, sent := h.day(d, 0, d > 0)
			if strings.Contains(strings.Join(sent, ","), "2030") {
				t.Errorf("day %d: the date of 2030 sent back: %v", d, sent)
			}
			if f := storedFeed(t, h.cfg.State, h.url); f.LastModified != "" {
				t.Errorf("day %d: Last-Modified %q stored", d, f.LastModified)
			}
			if d > 0 && sum.NewEntries != 1 {
				t.Errorf("day %d: %d new entries, want the day's entry", d, sum.NewEntries)
			}
		}
		h.allDeliveredOnce()
	})
}

// storedFeed is the record of the feed at url in the state at statePath.
func storedFeed(t *testing.T, statePath, url string) domain.Feed {
	t.Helper()
	st, err := openState(context.Background(), &config.Config{State: statePath})
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

// A state that holds such a date from before (kept by an older version)
// does not send it back either.
func TestStoredLastModifiedAheadOfTheClock(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		h := newHabitRun(t, state, &habitServer{etag: func(*habitServer) string { return "" }, lastModified: lmOfChange,
			comparesDates: true})
		h.day(0, 0, false)
		editFeedRecord(t, h.cfg.State, h.url, func(f *domain.Feed) { f.LastModified = wrongClock })
		for d := 1; d < 4; d++ {
			sum, sent := h.day(d, 0, true)
			if strings.Contains(strings.Join(sent, ","), "2030") {
				t.Errorf("day %d: the stored date of 2030 sent back: %v", d, sent)
			}
			if f := storedFeed(t, h.cfg.State, h.url); f.LastModified == wrongClock {
				t.Errorf("day %d: the date of 2030 still stored", d)
			}
			if sum.NewEntries != 1 {
				t.Errorf("day %d: %d new entries, want the day's entry", d, sum.NewEntries)
			}
		}
		h.allDeliveredOnce()
	})
}
