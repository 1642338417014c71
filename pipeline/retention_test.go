package pipeline

import (
	"fmt"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// A personal blog whose feed keeps its last ten posts for months (a post
// every three weeks, so each stays listed for seven months), read by
// daily runs for half a year with the default retention of 60 days: the
// state forgets no post while the feed lists it, so none is shown twice
// when the feed changes again, and none of those the first digest left
// out (older than its newest five) is shown later.
func TestBlogKeepingItsPostsForMonths(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		const days, every, window = 150, 21, 10
		pub := feedtest.Start(t)
		pub.SetWindow(window)
		cfg := testConfig(t, state, fmt.Sprintf(`
[[users]]
name = "ada"
timezone = "UTC"
digest_hour = 7
feeds = [%q]
`, pub.URL+"/blog"), "")
		if cfg.Retention != 60*24*time.Hour {
			t.Fatalf("retention %v, want the default 60 days", cfg.Retention)
		}
		start := at("2026-06-01T08:00:00Z")
		n := 0
		post := func(published time.Time) string {
			n++
			id := fmt.Sprintf("post-%d", n)
			pub.Add("/blog", feedtest.Entry{ID: id, Title: "Post " + id, Body: "<p>Words of " + id + ".</p>", Published: published})
			return id
		}
		// The blog as first read: its last ten posts (and two older it no
		// longer lists), one every three weeks.
		var before []string
		for i := 12; i > 0; i-- {
			before = append(before, post(start.AddDate(0, 0, -every*i)))
		}
		var later []string
		for d := range days {
			now := start.AddDate(0, 0, d)
			if d > 0 && d%every == 0 {
				later = append(later, post(now.Add(-3*time.Hour)))
			}
			runAt(t, cfg, now.Format(time.RFC3339))
		}
		got := delivered(t, cfg, "ada")
		// The first digest shows the five newest the feed listed, and
		// leaves out the five before them for good.
		for i, id := range before {
			want := 0
			if i >= len(before)-5 {
				want = 1
			}
			if got[id] != want {
				t.Errorf("%s, posted before the first digest: in %d digests, want %d", id, got[id], want)
			}
		}
		for _, id := range later {
			if got[id] != 1 {
				t.Errorf("%s: in %d digests, want 1", id, got[id])
			}
		}
	})
}
