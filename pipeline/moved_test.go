package pipeline

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A feed that moves with its body unchanged is polled at its new URL from
// the first poll that sees the move, whether the new URL answers 304 to
// the stored validators or sends the same body again.
func TestFeedMovedAsItWasMovesAtOnce(t *testing.T) {
	for _, withETag := range []bool{true, false} {
		t.Run(fmt.Sprintf("etag=%v", withETag), func(t *testing.T) {
			var moved atomic.Bool
			var oldHits, newHits, notModified atomic.Int32
			feed := func(w http.ResponseWriter, r *http.Request) {
				if withETag {
					w.Header().Set("ETag", `"same"`)
					if r.Header.Get("If-None-Match") == `"same"` {
						notModified.Add(1)
						w.WriteHeader(http.StatusNotModified)
						return
					}
				}
				fmt.Fprintf(w, tinyRSS, "Moving", "m-1", "m-1")
			}
			mux := http.NewServeMux()
			mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
				oldHits.Add(1)
				if moved.Load() {
					http.Redirect(w, r, "/new", http.StatusMovedPermanently)
					return
				}
				feed(w, r)
			})
			mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
				newHits.Add(1)
				feed(w, r)
			})
			ts := httptest.NewServer(mux)
			defer ts.Close()
			cfg := testConfig(t, oneUser(t, ts.URL+"/old"), "")
			runAt(t, cfg, "2026-11-21T12:00:00Z")
			moved.Store(true)
			sum := runAt(t, cfg, "2026-11-22T00:05:00Z")
			if sum.Unchanged != 1 {
				t.Fatalf("the poll through the move: %+v, want unchanged", sum)
			}
			if withETag && notModified.Load() != 1 {
				t.Fatalf("the new URL answered %d 304s, want 1", notModified.Load())
			}
			f := feedRecord(t, cfg.State, ts.URL+"/old")
			if f.EffectiveURL != ts.URL+"/new" || f.MovedAt.IsZero() {
				t.Fatalf("after the move: effective URL %q, moved at %v", f.EffectiveURL, f.MovedAt)
			}
			if status := readFile(t, filepath.Join(cfg.SiteDir, "status.html")); !strings.Contains(status, ts.URL+"/new") {
				t.Error("status.html does not show the new URL")
			}
			runAt(t, cfg, "2026-11-23T00:05:00Z")
			if oldHits.Load() != 2 || newHits.Load() != 2 {
				t.Errorf("old URL asked %d times (want 2), new %d (want 2)", oldHits.Load(), newHits.Load())
			}
		})
	}
}
