package fetch

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// A HEAD is a hint, never a verdict: a server whose HEAD fails (a CDN
// rule, a framework without HEAD) while its GET works loses nothing,
// and is asked no HEAD again.
func TestHeadIsAHint(t *testing.T) {
	old, changed := readTestdata(t, "rss.xml"), readTestdata(t, "atom.xml")
	e1, e2 := `"e1"`, `"e2"`
	lm1, lm2 := "Sat, 21 Nov 2026 10:00:00 GMT", "Sun, 22 Nov 2026 10:00:00 GMT"
	ignoring := Request{ETag: e1, LastModified: lm1, BodyHash: hashOf(old), IgnoresConditional: true,
		LastGet: testNow.Add(-24 * time.Hour)}
	for _, status := range []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusGone,
		http.StatusInternalServerError, http.StatusNotImplemented, http.StatusBadGateway, http.StatusServiceUnavailable,
		http.StatusForbidden} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			rec, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodHead {
					w.Header().Set("Retry-After", "3600") // not for the GET
					w.WriteHeader(status)
					return
				}
				answer(changed, e2, lm2)(w, r)
			})
			req := ignoring
			req.URL = ts.URL
			c := testClient(Options{})
			res := c.Poll(context.Background(), req, testNow)
			if got := rec.methods(); got != "HEAD,GET" || res.Requests != 2 {
				t.Errorf("requests %s (%d counted), want HEAD,GET", got, res.Requests)
			}
			if res.Outcome != OutcomeFresh || res.Err != nil || res.Status != http.StatusOK || !res.RetryAfter.IsZero() ||
				res.Feed == nil || len(res.Feed.Entries) == 0 {
				t.Fatalf("outcome %v, status %d, err %v, retry after %v: want the GET's new body", res.Outcome, res.Status,
					res.Err, res.RetryAfter)
			}
			if !res.RefusesHEAD {
				t.Error("a HEAD answered " + strconv.Itoa(status) + " is still to be asked")
			}
			// The next poll, with what this one learned: a GET alone.
			next := learned(req, res)
			c.Poll(context.Background(), next, testNow.Add(time.Hour))
			if got := rec.methods(); got != "HEAD,GET,GET" {
				t.Errorf("requests %s, want HEAD,GET then GET", got)
			}
		})
	}
}

// A 429 to a HEAD is honoured as any 429: no GET in that poll, Retry-After
// kept, and the next request is a GET.
func TestHeadTooManyRequests(t *testing.T) {
	old, changed := readTestdata(t, "rss.xml"), readTestdata(t, "atom.xml")
	e1, lm1 := `"e1"`, "Sat, 21 Nov 2026 10:00:00 GMT"
	rec, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Retry-After", "7200")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		answer(changed, `"e2"`, lm1)(w, r)
	})
	req := Request{URL: ts.URL, ETag: e1, LastModified: lm1, BodyHash: hashOf(old), IgnoresConditional: true,
		LastGet: testNow.Add(-24 * time.Hour)}
	c := testClient(Options{})
	res := c.Poll(context.Background(), req, testNow)
	if got := rec.methods(); got != "HEAD" || res.Requests != 1 {
		t.Errorf("requests %s (%d counted), want HEAD alone", got, res.Requests)
	}
	if res.Outcome != OutcomeHTTPError || res.Status != http.StatusTooManyRequests ||
		!res.RetryAfter.Equal(testNow.Add(2*time.Hour)) {
		t.Errorf("outcome %v, status %d, retry after %v: want the 429 honoured until %v", res.Outcome, res.Status,
			res.RetryAfter, testNow.Add(2*time.Hour))
	}
	if !res.RefusesHEAD {
		t.Fatal("a HEAD answered 429 is still to be asked")
	}
	next := c.Poll(context.Background(), learned(req, res), res.RetryAfter)
	if got := rec.methods(); got != "HEAD,GET" || next.Outcome != OutcomeFresh {
		t.Errorf("requests %s, outcome %v: want a GET after the 429, with the new body", got, next.Outcome)
	}
}

// learned is req after a poll's result res, as the caller stores it.
func learned(req Request, res Result) Request {
	req.ETag, req.LastModified, req.BodyHash = res.ETag, res.LastModified, res.BodyHash
	req.Answers304, req.RefusesHEAD, req.IgnoresConditional = res.Answers304, res.RefusesHEAD, res.IgnoresConditional
	req.Distrust = req.Distrust.Or(res.Distrust)
	if res.LastGet.After(req.LastGet) {
		req.LastGet = res.LastGet
	}
	return req
}
