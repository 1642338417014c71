package fetch

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"feeddigest/parse"
)

// A body that is not a usable feed fails the poll, but its validators and
// hash are kept: the next poll is conditional, and a 304 or the same body
// again says "still broken" without a download. A usable body clears it.
func TestBrokenBodyIsPolledConditionally(t *testing.T) {
	etag, lm := `"broken-1"`, "Sat, 21 Nov 2026 10:00:00 GMT"
	tests := []struct {
		name, contentType, body string
	}{
		{"plain text", "text/plain", "The feed has moved, sorry."},
		{"HTML page with no feed", "text/html", readTestdataString(t, "page_no_feed.html")},
		{"empty body", "application/rss+xml", ""},
	}
	for _, tt := range tests {
		for _, validators := range []bool{true, false} {
			name := tt.name + ", validators"
			if !validators {
				name = tt.name + ", no validators"
			}
			t.Run(name, func(t *testing.T) {
				var fixed atomic.Bool
				rec, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
					if fixed.Load() {
						conditionalFeed(readTestdata(t, "rss.xml"), `"good"`, "")(w, r)
						return
					}
					if validators {
						w.Header().Set("ETag", etag)
						w.Header().Set("Last-Modified", lm)
						if r.Header.Get("If-None-Match") == etag {
							w.WriteHeader(http.StatusNotModified)
							return
						}
					}
					w.Header().Set("Content-Type", tt.contentType)
					w.Write([]byte(tt.body))
				})
				c := testClient(Options{})
				first := c.Poll(context.Background(), Request{URL: ts.URL}, testNow)
				if first.Outcome != OutcomeBroken || !errors.Is(first.Err, parse.ErrNotFeed) {
					t.Fatalf("first poll: outcome %v err %v, want broken", first.Outcome, first.Err)
				}
				if first.BodyHash == "" || first.BodyError != first.Err.Error() {
					t.Fatalf("broken body not described: hash %q body error %q", first.BodyHash, first.BodyError)
				}
				if validators && (first.ETag != etag || first.LastModified != lm) {
					t.Fatalf("validators of the broken body dropped: %q %q", first.ETag, first.LastModified)
				}
				next := Request{URL: ts.URL, ETag: first.ETag, LastModified: first.LastModified,
					BodyHash: first.BodyHash, BodyError: first.BodyError, Answers304: first.Answers304}
				second := c.Poll(context.Background(), next, testNow)
				if validators {
					req := rec.last()
					if req.Header.Get("If-None-Match") != etag || req.Header.Get("If-Modified-Since") != lm {
						t.Errorf("second poll not conditional: %q %q", req.Header.Get("If-None-Match"), req.Header.Get("If-Modified-Since"))
					}
					if second.Status != http.StatusNotModified || second.Bytes != 0 {
						t.Errorf("second poll: status %d, %d bytes, want a 304 and no body", second.Status, second.Bytes)
					}
				}
				if second.Outcome != OutcomeBroken || !errors.Is(second.Err, ErrStillBroken) {
					t.Fatalf("second poll: outcome %v err %v, want still broken", second.Outcome, second.Err)
				}
				if second.BodyError != first.BodyError || second.BodyHash != first.BodyHash || second.ETag != first.ETag {
					t.Errorf("second poll lost the broken body's description: %+v", second)
				}

				fixed.Store(true)
				third := c.Poll(context.Background(), Request{URL: ts.URL, ETag: second.ETag, LastModified: second.LastModified,
					BodyHash: second.BodyHash, BodyError: second.BodyError}, testNow)
				if third.Outcome != OutcomeFresh || third.BodyError != "" || third.ETag != `"good"` {
					t.Errorf("repaired feed: outcome %v err %v body error %q etag %q", third.Outcome, third.Err, third.BodyError, third.ETag)
				}
			})
		}
	}
}

func readTestdataString(t *testing.T, name string) string { return string(readTestdata(t, name)) }
