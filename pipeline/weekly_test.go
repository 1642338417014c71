package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
	"feeddigest/render"
)

// Three weeks of hourly runs for a weekly user whose busy feed shows its
// 10 newest entries and gains 5 a day (35 a week): the daily polls at the
// digest hour keep every entry, and each reaches exactly one weekly digest.
func TestWeeklyUserOverThreeWeeks(t *testing.T) {
	if testing.Short() {
		t.Skip("three weeks of hourly runs")
	}
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		pub := feedtest.Start(t)
		pub.SetWindow(10)
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	digest_hour = 6
	every = "week"
	digest_day = "monday"
	feeds = [%q]
	`, pub.URL+"/busy"), "")
		// Ten entries before the first run: the first digest shows the 5
		// newest (as for a daily user), the rest are never shown.
		start := at("2026-10-21T09:30:00Z") // a Wednesday, after the digest hour
		for i := range 10 {
			pub.Add("/busy", feedtest.Entry{ID: fmt.Sprintf("old-%d", i), Title: "Old", Published: start.Add(time.Duration(i-20) * time.Hour)})
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
				pub.Add("/busy", feedtest.Entry{ID: id, Title: "Post " + id, Published: now})
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
		for _, r := range pub.Requests() {
			if strings.HasPrefix(r, "GET /busy ") {
				gets++
			}
		}
		if days := int(end.Sub(start).Hours()/24) + 1; gets < days-1 || gets > days+2 {
			t.Errorf("%d requests over %d days, want one a day", gets, days)
		}
	})
}

// isPostHour spreads the 5 posts of a day over it, unevenly.
func isPostHour(h int) bool {
	switch h {
	case 1, 5, 9, 14, 20:
		return true
	}
	return false
}

// status and status.html show each user's rhythm and next digest, in the
// user's time, and a weekly user's digest is not due between digest days.
func TestStatusShowsRhythmAndNextDigest(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/feed", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	feeds = [%[1]q]
	[[users]]
	name = "kenji"
	timezone = "Asia/Tokyo"
	digest_hour = 6
	every = "week"
	digest_day = "saturday"
	feeds = [%[1]q]
	`, pub.URL+"/feed"), "")
		// Wednesday 25 November, 10:05 in London and 19:05 in Tokyo.
		now := at("2026-11-25T10:05:00Z")
		if sum := runAt(t, cfg, now.Format(time.RFC3339)); sum.DigestsBuilt != 2 {
			t.Fatalf("%d digests built on the first run, want both users' at once", sum.DigestsBuilt)
		}
		users, err := Users(context.Background(), cfg, now)
		if err != nil {
			t.Fatal(err)
		}
		// Each user's rhythm and next digest, as status prints them (its
		// table's headings are cli's TestUsersTable).
		var table strings.Builder
		for _, u := range users {
			fmt.Fprintf(&table, "%s\t%s\t%s\n", u.Name, u.Rhythm, render.NextDigestLabel(u))
		}
		for _, want := range []string{
			"daily at 00:00 Europe/London", "Thu 26 Nov 2026, 00:00 GMT",
			"weekly on Saturday at 06:00 Asia/Tokyo", "Sat 28 Nov 2026, 06:00 JST",
		} {
			if !strings.Contains(table.String(), want) {
				t.Errorf("no %q in\n%s", want, table.String())
			}
		}
		page := readFile(t, filepath.Join(cfg.SiteDir, "status.html"))
		for _, want := range []string{"weekly on Saturday at 06:00 Asia/Tokyo", "Sat 28 Nov 2026, 06:00 JST", `<a href="kenji/index.html">kenji</a>`} {
			if !strings.Contains(page, want) {
				t.Errorf("status.html has no %q", want)
			}
		}
		// A day later ada's digest is due at the next run; kenji's is not.
		users, err = Users(context.Background(), cfg, now.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if !users[0].Due || users[1].Due || !users[1].NextDigest.Equal(at("2026-11-27T21:00:00Z")) {
			t.Errorf("a day later: %+v", users)
		}
		// Before the first run (no state file), every first digest is due.
		fresh := testConfig(t, state, fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nevery = \"week\"\nfeeds = [%q]\n", pub.URL+"/feed"), "")
		if users, err := Users(context.Background(), fresh, now); err != nil || len(users) != 1 || !users[0].Due || users[0].Rhythm != "weekly on Monday at 00:00 UTC" {
			t.Errorf("before the first run: %+v, %v", users, err)
		}
	})
}

// A daily user who turns weekly on a Wednesday gets their next digest on
// the next Monday, with everything since Wednesday's daily digest: no
// digest dated the Monday before, no entry lost.
func TestTurningWeeklyMidWeek(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/feed", entry("a-1", "2026-11-24T10:00:00Z"))
		daily := fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", pub.URL+"/feed")
		cfg := testConfig(t, state, daily, "")
		runAt(t, cfg, "2026-11-25T00:05:00Z") // Wednesday's daily digest
		weekly := strings.Replace(readFile(t, cfg.Path), "name = \"ada\"\n", "name = \"ada\"\nevery = \"week\"\n", 1)
		if err := os.WriteFile(cfg.Path, []byte(weekly), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(cfg.Path)
		if err != nil {
			t.Fatal(err)
		}
		pub.Add("/feed", entry("a-2", "2026-11-25T10:00:00Z"))
		for _, now := range []string{"2026-11-26T00:05:00Z", "2026-11-29T23:05:00Z"} {
			if sum := runAt(t, cfg, now); sum.DigestsBuilt != 0 {
				t.Errorf("at %s: %d digests built, want none before Monday", now, sum.DigestsBuilt)
			}
		}
		if sum := runAt(t, cfg, "2026-11-30T00:05:00Z"); sum.DigestsBuilt != 1 {
			t.Errorf("on Monday: %d digests built, want 1", sum.DigestsBuilt)
		}
		pages, _ := filepath.Glob(filepath.Join(cfg.SiteDir, "ada", "????-??-??.html"))
		if len(pages) != 2 || filepath.Base(pages[1]) != "2026-11-30.html" {
			t.Errorf("pages %v, want Wednesday's and Monday's", pages)
		}
		if got := delivered(t, cfg, "ada"); got["a-1"] != 1 || got["a-2"] != 1 {
			t.Errorf("delivered %v, want a-1 and a-2 once each", got)
		}
	})
}
