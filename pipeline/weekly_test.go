package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Three weeks of hourly runs for a weekly user whose busy feed shows its
// 10 newest entries and gains 5 a day (35 a week): the daily polls at the
// digest hour keep every entry, and each reaches exactly one weekly digest.
func TestWeeklyUserOverThreeWeeks(t *testing.T) {
	if testing.Short() {
		t.Skip("three weeks of hourly runs")
	}
	pub := newPublisher(t)
	pub.window = 10
	cfg := testConfig(t, fmt.Sprintf(`
[[users]]
name = "ada"
timezone = "Europe/London"
digest_hour = 6
every = "week"
digest_day = "monday"
feeds = [%q]
`, pub.url("/busy")), "")
	// Ten entries before the first run: the first digest shows the 5
	// newest (as for a daily user), the rest are never shown.
	start := at("2026-10-21T09:30:00Z") // a Wednesday, after the digest hour
	for i := range 10 {
		pub.add("/busy", item{id: fmt.Sprintf("old-%d", i), title: "Old", published: start.Add(time.Duration(i-20) * time.Hour)})
	}
	// Then 5 entries a day at uneven hours, over the end of summer time on
	// Sunday 25 October, with a run every hour until the Monday digest
	// after the last of them.
	var posted []string
	end := at("2026-11-09T06:30:00Z") // Monday 9 November, 06:30 GMT
	digests := 0
	for now := start; !now.After(end); now = now.Add(time.Hour) {
		if now.After(start) && now.Before(end.Add(-24*time.Hour)) && isPostHour(now.Hour()) {
			id := fmt.Sprintf("e-%d", len(posted)+1)
			pub.add("/busy", item{id: id, title: "Post " + id, published: now})
			posted = append(posted, id)
		}
		digests += runAt(t, cfg, now.Format(time.RFC3339)).DigestsBuilt
	}
	pages, _ := filepath.Glob(filepath.Join(cfg.SiteDir, "ada", "????-??-??.html"))
	var dates []string
	for _, p := range pages {
		dates = append(dates, strings.TrimSuffix(filepath.Base(p), ".html"))
	}
	// The first digest at once (dated the Monday before the start), then
	// one each Monday at 06:00.
	if want := "2026-10-19 2026-10-26 2026-11-02 2026-11-09"; strings.Join(dates, " ") != want || digests != 4 {
		t.Errorf("%d digests built, pages %v; want %s", digests, dates, want)
	}
	got := delivered(t, cfg, "ada")
	if len(posted) < 85 {
		t.Fatalf("only %d entries posted", len(posted))
	}
	for _, id := range posted {
		if got[id] != 1 {
			t.Errorf("%s is in %d weekly digests, want 1", id, got[id])
		}
	}
	// The first digest shows the 5 newest of the entries from before the
	// first run; none is ever shown twice.
	first := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-10-19.html"))
	for i := range 10 {
		id := fmt.Sprintf("old-%d", i)
		if n := got[id]; n > 1 {
			t.Errorf("%s is in %d digests", id, n)
		}
		if shown := strings.Contains(first, "https://site.example/"+id+`"`); shown != (i >= 5) {
			t.Errorf("%s in the first digest: %v, want %v", id, shown, i >= 5)
		}
	}
	// Polled about once a day, not every hour: a weekly user costs the
	// publisher no more than a daily one.
	gets := 0
	for _, r := range pub.requests() {
		if strings.HasPrefix(r, "GET /busy ") {
			gets++
		}
	}
	if days := int(end.Sub(start).Hours()/24) + 1; gets < days-1 || gets > days+2 {
		t.Errorf("%d requests over %d days, want one a day", gets, days)
	}
}

// isPostHour spreads the 5 posts of a day over it, unevenly.
func isPostHour(h int) bool {
	switch h {
	case 1, 5, 9, 14, 20:
		return true
	}
	return false
}
