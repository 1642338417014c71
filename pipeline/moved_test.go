package pipeline

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// A feed that moves with its body unchanged is polled at its new URL from
// the first poll that sees the move, whether the new URL answers 304 to
// the stored validators or sends the same body again.
func TestFeedMovedAsItWasMovesAtOnce(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		for _, withETag := range []bool{true, false} {
			t.Run(fmt.Sprintf("etag=%v", withETag), func(t *testing.T) {
				feed := feedtest.Feed{Title: "Moving", Entries: []feedtest.Entry{post("m-1")}, NoValidators: !withETag}
				if withETag {
					feed.Header = http.Header{"ETag": {`"same"`}}
				}
				ts := feedtest.Start(t)
				ts.Publish("/old", feed)
				ts.Publish("/new", feed)
				cfg := testConfig(t, state, oneUser(t, ts.URL+"/old"), "")
				runAt(t, cfg, "2026-11-21T12:00:00Z")
				ts.Redirect("/old", "/new", http.StatusMovedPermanently)
				sum := runAt(t, cfg, "2026-11-22T00:05:00Z")
				if sum.Unchanged != 1 {
					t.Fatalf("the poll through the move: %+v, want unchanged", sum)
				}
				notModified := 0
				for _, r := range ts.Requests() {
					if r == "GET /new 304" {
						notModified++
					}
				}
				if withETag && notModified != 1 {
					t.Fatalf("the new URL answered %d 304s, want 1", notModified)
				}
				f := feedRecord(t, cfg.State, ts.URL+"/old")
				if f.EffectiveURL != ts.URL+"/new" || f.MovedAt.IsZero() {
					t.Fatalf("after the move: effective URL %q, moved at %v", f.EffectiveURL, f.MovedAt)
				}
				if status := readFile(t, filepath.Join(cfg.SiteDir, "status.html")); !strings.Contains(status, ts.URL+"/new") {
					t.Error("status.html does not show the new URL")
				}
				runAt(t, cfg, "2026-11-23T00:05:00Z")
				if ts.Count("/old") != 2 || ts.Count("/new") != 2 {
					t.Errorf("old URL asked %d times (want 2), new %d (want 2)", ts.Count("/old"), ts.Count("/new"))
				}
			})
		}
	})
}
