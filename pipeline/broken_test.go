package pipeline

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A broken feed (here an HTML page with no feed in it) goes to the penalty
// box, but its validators and hash are stored: its next poll is
// conditional, and the 304 it gets keeps it failing with its error, no
// body sent again.
func TestBrokenFeedIsPolledConditionally(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		const etag, lm = `"page-1"`, "Sat, 21 Nov 2026 10:00:00 GMT"
		var mu sync.Mutex
		var seen []string // "If-None-Match|If-Modified-Since -> status"
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			w.Header().Set("ETag", etag)
			w.Header().Set("Last-Modified", lm)
			status := http.StatusOK
			if r.Header.Get("If-None-Match") == etag {
				status = http.StatusNotModified
			}
			seen = append(seen, fmt.Sprintf("%s %s|%s -> %d", r.Method, r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since"), status))
			if status == http.StatusNotModified {
				w.WriteHeader(status)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><html><head><title>Moved</title></head><body>Our feed is gone.</body></html>`)
		}))
		defer ts.Close()
		cfg := testConfig(t, state, oneUser(t, ts.URL+"/feed"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		first := feedRecord(t, cfg.State, ts.URL+"/feed")
		if first.ErrorCount != 1 || first.ETag != etag || first.LastModified != lm || first.BodyHash == "" || first.BodyError == "" {
			t.Fatalf("after the broken body: errors %d, etag %q, last-modified %q, hash %q, body error %q",
				first.ErrorCount, first.ETag, first.LastModified, first.BodyHash, first.BodyError)
		}
		sum := runAt(t, cfg, "2026-11-22T00:05:00Z")
		mu.Lock()
		want := []string{"GET | -> 200", fmt.Sprintf("GET %s|%s -> 304", etag, lm)}
		if strings.Join(seen, "; ") != strings.Join(want, "; ") {
			t.Errorf("requests %q, want the second conditional, answered 304: %q", seen, want)
		}
		mu.Unlock()
		if sum.Failed != 1 || sum.Bytes != 0 {
			t.Errorf("second run: %d failed, %d bytes, want the feed still failing and no body", sum.Failed, sum.Bytes)
		}
		second := feedRecord(t, cfg.State, ts.URL+"/feed")
		if second.ErrorCount != 2 || !strings.Contains(second.LastError, first.BodyError) || second.BodyError != first.BodyError {
			t.Errorf("still broken: errors %d, last error %q, body error %q; want 2 and the first error kept (%q)",
				second.ErrorCount, second.LastError, second.BodyError, first.BodyError)
		}
		status := readFile(t, filepath.Join(cfg.SiteDir, "status.html"))
		if !strings.Contains(status, "failing") || !strings.Contains(status, "no feed link") {
			t.Error("status.html does not show the feed failing with its error")
		}
	})
}
