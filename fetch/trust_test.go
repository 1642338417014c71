package fetch

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
)

// answer is a handler answering every request with the given validators
// ("" for none) and, to a GET, body: a server that ignores conditional
// requests.
func answer(body []byte, etag, lm string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if etag != "" {
			w.Header().Set("ETag", etag)
		}
		if lm != "" {
			w.Header().Set("Last-Modified", lm)
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	}
}

// staleHead is a server ignoring conditional requests whose HEAD answers
// validators headETag and headLM, and whose GET answers body with
// validators etag and lm: a cache in front of the origin that keeps the
// validators of an old body.
func staleHead(body []byte, headETag, headLM, etag, lm string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			answer(nil, headETag, headLM)(w, r)
			return
		}
		answer(body, etag, lm)(w, r)
	}
}

func dropsHEAD(t *testing.T, r Result) {
	t.Helper()
	if !r.RefusesHEAD {
		t.Error("the HEAD is still to be asked")
	}
}

func keepsHEAD(t *testing.T, r Result) {
	t.Helper()
	if r.RefusesHEAD {
		t.Error("the HEAD is no longer asked")
	}
}

// sent is what a request carried of the conditional headers.
func sent(r *http.Request) string {
	var parts []string
	if v := r.Header.Get("If-None-Match"); v != "" {
		parts = append(parts, "INM="+v)
	}
	if v := r.Header.Get("If-Modified-Since"); v != "" {
		parts = append(parts, "IMS="+v)
	}
	if r.Header.Get("A-IM") != "" {
		parts = append(parts, "A-IM")
	}
	return r.Method + "(" + strings.Join(parts, " ") + ")"
}

func (r *recorder) sent() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []string
	for _, req := range r.requests {
		all = append(all, sent(req))
	}
	return strings.Join(all, ",")
}

type trustCase struct {
	name     string
	handler  http.HandlerFunc
	req      Request
	sent     string // each request's method and conditional headers
	outcome  Outcome
	distrust domain.Distrust
	ignores  bool
	check    func(*testing.T, Result)
}

// The decision table of which validators are trusted, what a poll sends,
// when HEAD may end a poll, and what a server's answer teaches.
func TestValidatorTrust(t *testing.T) {
	old, changed := readTestdata(t, "rss.xml"), readTestdata(t, "atom.xml")
	hash := hashOf(old)
	e1, e2 := `"e1"`, `"e2"`
	lm1, lm2 := "Sat, 21 Nov 2026 10:00:00 GMT", "Sun, 22 Nov 2026 10:00:00 GMT"
	yesterday := testNow.Add(-24 * time.Hour)
	ignoring := Request{ETag: e1, LastModified: lm1, BodyHash: hash, IgnoresConditional: true, LastGet: yesterday}
	with := func(r Request, f func(*Request)) Request { f(&r); return r }
	long := `"` + strings.Repeat("x", MaxValidator) + `"`

	tests := []trustCase{
		// What a 200 to a conditional GET teaches.
		{"(a) new body, Last-Modified fixed: Last-Modified distrusted", answer(changed, e2, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh, domain.Distrust{LastModified: true}, false, nil},
		{"(b) new body, ETag fixed: ETag distrusted", answer(changed, e1, lm2),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh, domain.Distrust{ETag: true}, false, nil},
		{"(c) new body, both fixed: both distrusted", answer(changed, e1, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh, domain.Distrust{ETag: true, LastModified: true}, false, nil},
		{"(d) the stored body, both validators new: the 200 was right", answer(old, e2, lm2),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{}, false, func(t *testing.T, r Result) {
				if r.ETag != e2 || r.LastModified != lm2 {
					t.Errorf("validators %q %q, want the new ones", r.ETag, r.LastModified)
				}
			}},
		{"the stored body, validators the same: ignores conditional GETs", answer(old, e1, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{}, true, nil},
		{"the stored body, ETag the same, Last-Modified new: the ETag decides, ignoring", answer(old, e1, lm2),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{}, true, nil},
		{"the stored body, ETag new, Last-Modified the same: the ETag decides, the 200 was right", answer(old, e2, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{}, false, nil},
		{"the stored body, ETag distrusted: Last-Modified decides", answer(old, e2, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash, Distrust: domain.Distrust{ETag: true}},
			"GET(IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{ETag: true}, true, nil},
		{"a first poll judges nothing", answer(old, e1, lm1), Request{},
			"GET()", OutcomeFresh, domain.Distrust{}, false, nil},

		// What is sent: only trusted validators.
		{"ETag distrusted: only If-Modified-Since", conditionalFeed(old, e1, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash, Distrust: domain.Distrust{ETag: true}},
			"GET(IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{ETag: true}, false, nil},
		{"Last-Modified distrusted: only If-None-Match", conditionalFeed(old, e1, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash, Distrust: domain.Distrust{LastModified: true}},
			"GET(INM=" + e1 + " A-IM)", OutcomeUnchanged, domain.Distrust{LastModified: true}, false, nil},
		{"both distrusted: a plain GET, even to a server that would answer 304", conditionalFeed(changed, e1, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash, IgnoresConditional: true, LastGet: yesterday,
				Distrust: domain.Distrust{ETag: true, LastModified: true}},
			"GET()", OutcomeFresh, domain.Distrust{ETag: true, LastModified: true}, true, nil},
		{"conditional requests refused before: a plain GET", conditionalFeed(old, e1, lm1),
			Request{ETag: e1, LastModified: lm1, BodyHash: hash, Distrust: domain.Distrust{Conditional: true}},
			"GET()", OutcomeUnchanged, domain.Distrust{Conditional: true}, false, nil},

		// When HEAD may end a poll: by a trusted validator, within a week of a GET.
		{"HEAD: a trusted ETag equal decides, whatever Last-Modified says", answer(changed, e1, lm2), ignoring,
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{}, true, nil},
		{"HEAD: the ETag distrusted, Last-Modified new: GET", answer(changed, e1, lm2),
			with(ignoring, func(r *Request) { r.Distrust.ETag = true }),
			"HEAD(IMS=" + lm1 + " A-IM),GET(IMS=" + lm1 + " A-IM)", OutcomeFresh, domain.Distrust{ETag: true}, true, nil},
		{"HEAD: the ETag distrusted, Last-Modified the same: unchanged", answer(changed, e2, lm1),
			with(ignoring, func(r *Request) { r.Distrust.ETag = true }),
			"HEAD(IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{ETag: true}, true, nil},
		{"HEAD: Last-Modified distrusted, the same; ETag new: GET", answer(changed, e2, lm1),
			with(ignoring, func(r *Request) { r.Distrust.LastModified = true }),
			"HEAD(INM=" + e1 + " A-IM),GET(INM=" + e1 + " A-IM)", OutcomeFresh, domain.Distrust{LastModified: true}, true, nil},
		{"HEAD: only a distrusted validator in the answer: GET", answer(changed, "", lm1),
			with(ignoring, func(r *Request) { r.Distrust.LastModified = true }),
			"HEAD(INM=" + e1 + " A-IM),GET(INM=" + e1 + " A-IM)", OutcomeFresh, domain.Distrust{LastModified: true}, true, nil},
		{"no HEAD with no validator left to trust", answer(changed, e1, lm1),
			with(ignoring, func(r *Request) { r.Distrust = domain.Distrust{ETag: true, LastModified: true} }),
			"GET()", OutcomeFresh, domain.Distrust{ETag: true, LastModified: true}, true, nil},
		{"the weekly GET: last GET 7 days ago, the GET follows the HEAD's unchanged; the validators lied, not the HEAD", answer(changed, e1, lm1),
			with(ignoring, func(r *Request) { r.LastGet = testNow.Add(-ConfirmEvery) }),
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh,
			domain.Distrust{ETag: true, LastModified: true}, true,
			func(t *testing.T, r Result) {
				if !r.LastGet.Equal(testNow) {
					t.Errorf("last GET %v, want now", r.LastGet)
				}
				if r.RefusesHEAD {
					t.Error("the HEAD blamed for validators that the GET brought too")
				}
			}},
		{"the weekly GET: never a GET recorded, the GET follows", answer(old, e1, lm1),
			with(ignoring, func(r *Request) { r.LastGet = time.Time{} }),
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged,
			domain.Distrust{}, true, keepsHEAD},

		// A HEAD that said "unchanged" while the GET after it brings a
		// changed body: a cache in front of the origin.
		{"the weekly GET: the HEAD said unchanged, the GET a new body under new validators: the HEAD is stale",
			staleHead(changed, e1, lm1, e2, lm2), with(ignoring, func(r *Request) { r.LastGet = testNow.Add(-ConfirmEvery) }),
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh,
			domain.Distrust{}, true, dropsHEAD},
		{"the weekly GET: a HEAD's 304, the GET a new body under new validators: the HEAD is stale",
			func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodHead {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				answer(changed, e2, lm2)(w, r)
			}, with(ignoring, func(r *Request) { r.LastGet = testNow.Add(-ConfirmEvery) }),
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh,
			domain.Distrust{}, true, dropsHEAD},
		{"the weekly GET: the HEAD said unchanged, the GET the stored body: the HEAD keeps its trust",
			staleHead(old, e1, lm1, e2, lm2), with(ignoring, func(r *Request) { r.LastGet = testNow.Add(-ConfirmEvery) }),
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged,
			domain.Distrust{}, true, keepsHEAD},
		{"the weekly GET: the HEAD said unchanged by the ETag, the GET a new body under the same ETag: the ETag lied",
			staleHead(changed, e1, lm1, e1, lm2), with(ignoring, func(r *Request) { r.LastGet = testNow.Add(-ConfirmEvery) }),
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh,
			domain.Distrust{ETag: true}, true, keepsHEAD},
		{"a stale HEAD is not asked again", staleHead(changed, e1, lm1, e2, lm2),
			with(ignoring, func(r *Request) { r.RefusesHEAD = true }),
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeFresh, domain.Distrust{}, true, nil},
		{"6 days after a GET: HEAD alone", answer(old, e1, lm1),
			with(ignoring, func(r *Request) { r.LastGet = testNow.Add(-6 * 24 * time.Hour) }),
			"HEAD(INM=" + e1 + " IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{}, true, func(t *testing.T, r Result) {
				if !r.LastGet.Equal(testNow.Add(-6 * 24 * time.Hour)) {
					t.Errorf("a HEAD moved the last GET to %v", r.LastGet)
				}
			}},

		// Validators over 1 KB, and requests refused for their headers.
		{"a validator over 1 KB is not kept", answer(old, long, lm1), Request{},
			"GET()", OutcomeFresh, domain.Distrust{}, false, func(t *testing.T, r Result) {
				if r.ETag != "" || r.LastModified != lm1 {
					t.Errorf("kept %d-byte ETag, Last-Modified %q", len(r.ETag), r.LastModified)
				}
			}},
		{"a stored validator over 1 KB is not sent", conditionalFeed(old, e1, lm1),
			Request{ETag: long, LastModified: lm1, BodyHash: hash},
			"GET(IMS=" + lm1 + " A-IM)", OutcomeUnchanged, domain.Distrust{}, false, func(t *testing.T, r Result) {
				if r.ETag != e1 {
					t.Errorf("ETag %q, want the new short one", r.ETag)
				}
			}},
		{"1 KB exactly is kept", answer(old, long[:MaxValidator], ""), Request{},
			"GET()", OutcomeFresh, domain.Distrust{}, false, func(t *testing.T, r Result) {
				if r.ETag != long[:MaxValidator] {
					t.Errorf("ETag of %d bytes, want the 1 KB one", len(r.ETag))
				}
			}},
	}
	for _, status := range []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusRequestHeaderFieldsTooLarge} {
		refusing := func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
				w.WriteHeader(status)
				return
			}
			answer(changed, e2, lm2)(w, r)
		}
		tests = append(tests, trustCase{http.StatusText(status) + " to a conditional GET: validators dropped, GET again without them", refusing,
			Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET()", OutcomeFresh, domain.Distrust{Conditional: true}, false,
			func(t *testing.T, r Result) {
				if !r.ValidatorsDropped || r.ETag != e2 || r.LastModified != lm2 || r.Err != nil {
					t.Errorf("dropped %v, validators %q %q, err %v: want dropped and the new ones kept",
						r.ValidatorsDropped, r.ETag, r.LastModified, r.Err)
				}
			}}, trustCase{http.StatusText(status) + " to every GET: validators dropped, nothing learned", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
		}, Request{ETag: e1, LastModified: lm1, BodyHash: hash},
			"GET(INM=" + e1 + " IMS=" + lm1 + " A-IM),GET()", OutcomeHTTPError, domain.Distrust{}, false,
			func(t *testing.T, r Result) {
				if !r.ValidatorsDropped || r.ETag != "" || r.LastModified != "" || r.Status != status {
					t.Errorf("dropped %v, validators %q %q, status %d", r.ValidatorsDropped, r.ETag, r.LastModified, r.Status)
				}
			}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ts := serve(t, tt.handler)
			tt.req.URL = ts.URL
			res := testClient(Options{}).Poll(context.Background(), tt.req, testNow)
			if got := rec.sent(); got != tt.sent {
				t.Errorf("sent %s\nwant %s", got, tt.sent)
			}
			if res.Outcome != tt.outcome {
				t.Errorf("outcome %v (err %v), want %v", res.Outcome, res.Err, tt.outcome)
			}
			if res.Requests != strings.Count(tt.sent, "),")+1 {
				t.Errorf("counted %d requests", res.Requests)
			}
			if res.Distrust != tt.distrust {
				t.Errorf("distrust %+v, want %+v", res.Distrust, tt.distrust)
			}
			if res.IgnoresConditional != tt.ignores {
				t.Errorf("ignores conditional %v, want %v", res.IgnoresConditional, tt.ignores)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}
