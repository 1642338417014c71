package fetch

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// A Last-Modified later than the clock of the answer that carried it (its
// Date, or without one the run's clock) is a wrong clock, not a validator:
// never kept, never sent back. Nor is a stored one later than now.
func TestLastModifiedLaterThanTheClock(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	const (
		future  = "Tue, 01 Jan 2030 00:00:00 GMT"
		loose   = "Tue, 1 Jan 2030 00:00:00 +0000" // as some servers write it, and frameworks read it
		past    = "Sat, 21 Nov 2026 10:00:00 GMT"
		stored  = "Fri, 20 Nov 2026 10:00:00 GMT"
		dateNow = "Sun, 22 Nov 2026 00:05:00 GMT" // testNow
	)
	// lmServer answers every request with Last-Modified lm and the Date
	// date ("" for none), and the body.
	lmServer := func(lm, date string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Last-Modified", lm)
			if date == "" {
				w.Header()["Date"] = nil // net/http adds one otherwise
			} else {
				w.Header().Set("Date", date)
			}
			w.Header().Set("Content-Type", "application/rss+xml")
			w.Write(body)
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		req     Request
		sent    string
		keptLM  string
	}{
		{"later than its Date: not kept", lmServer(future, dateNow), Request{}, "GET()", ""},
		{"later than its Date, loosely written: not kept", lmServer(loose, dateNow), Request{}, "GET()", ""},
		{"later than its Date: nor the stored one kept", lmServer(future, dateNow),
			Request{LastModified: stored, BodyHash: "other"}, "GET(IMS=" + stored + " A-IM)", ""},
		{"no Date, later than now: not kept", lmServer(future, ""), Request{}, "GET()", ""},
		{"no Date, one second later than now: not kept", lmServer("Sun, 22 Nov 2026 00:05:01 GMT", ""), Request{}, "GET()", ""},
		{"no Date, earlier than now: kept", lmServer(past, ""), Request{}, "GET()", past},
		{"equal to its Date: kept", lmServer(dateNow, dateNow), Request{}, "GET()", dateNow},
		{"later than now but not than its Date: the answer's clock decides", lmServer(future, "Wed, 02 Jan 2030 00:00:00 GMT"),
			Request{}, "GET()", future},
		{"not a date: kept, byte for byte", lmServer("yesterday", dateNow), Request{}, "GET()", "yesterday"},
		{"a stored one later than now is not sent back, and forgotten", lmServer(past, dateNow),
			Request{ETag: `"e1"`, LastModified: future, BodyHash: "other"}, `GET(INM="e1" A-IM)`, past},
		{"a stored one later than now, alone: a plain GET", lmServer(past, dateNow),
			Request{LastModified: future, BodyHash: "other"}, "GET()", past},
		{"a stored one later than now and an answer without any: forgotten", answer(body, `"e2"`, ""),
			Request{LastModified: future, BodyHash: "other"}, "GET()", ""},
		{"a stored one earlier than now is sent back", lmServer(past, dateNow),
			Request{LastModified: stored, BodyHash: "other"}, "GET(IMS=" + stored + " A-IM)", past},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ts := serve(t, tt.handler)
			tt.req.URL = ts.URL
			res := testClient(Options{}).Poll(context.Background(), tt.req, testNow)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := rec.sent(); got != tt.sent {
				t.Errorf("sent %s, want %s", got, tt.sent)
			}
			if res.LastModified != tt.keptLM {
				t.Errorf("Last-Modified kept %q, want %q", res.LastModified, tt.keptLM)
			}
		})
	}
}

// The HEAD's 304 keeps the validators it carries by the same rule.
func TestHeadLastModifiedLaterThanItsDate(t *testing.T) {
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", "Tue, 01 Jan 2030 00:00:00 GMT")
		w.Header().Set("ETag", `"e1"`)
		w.WriteHeader(http.StatusNotModified)
	})
	req := Request{URL: ts.URL, ETag: `"e1"`, LastModified: "Sat, 21 Nov 2026 10:00:00 GMT", BodyHash: "h",
		IgnoresConditional: true, LastGet: testNow.Add(-time.Hour)}
	res := testClient(Options{}).Poll(context.Background(), req, testNow)
	if res.Outcome != OutcomeUnchanged || res.Requests != 1 || res.LastModified != "" || res.ETag != `"e1"` {
		t.Errorf("outcome %v after %d requests, validators %q %q: want the HEAD's 304, the ETag alone kept",
			res.Outcome, res.Requests, res.ETag, res.LastModified)
	}
}
