package schedule

import (
	"slices"
	"testing"
	"time"
)

func TestDigestDate(t *testing.T) {
	london := mustZone(t, "Europe/London")
	newYork := mustZone(t, "America/New_York")
	tokyo := mustZone(t, "Asia/Tokyo")
	weekly := func(loc *time.Location, day time.Weekday, hour int) User {
		return User{Name: "u", Location: loc, DigestHour: hour, Weekly: true, DigestDay: day}
	}
	tests := []struct {
		name string
		user User
		now  string
		want string
	}{
		{"daily is the local date", User{Location: london, DigestHour: 6}, "2026-11-25T07:00:00Z", "2026-11-25"},
		{"daily before the digest hour", User{Location: london, DigestHour: 6}, "2026-11-25T05:00:00Z", "2026-11-24"},
		{"weekly mid-week: the Monday before", weekly(london, time.Monday, 6), "2026-11-25T07:00:00Z", "2026-11-23"},
		{"digest day, before the digest hour", weekly(london, time.Monday, 6), "2026-11-23T05:59:00Z", "2026-11-16"},
		{"digest day, at the digest hour", weekly(london, time.Monday, 6), "2026-11-23T06:00:00Z", "2026-11-23"},
		{"the day before the digest day, late", weekly(london, time.Monday, 6), "2026-11-29T23:59:00Z", "2026-11-23"},
		{"digest hour past midnight: Monday 03:00 is Sunday's", weekly(london, time.Monday, 5), "2026-11-30T03:00:00Z", "2026-11-23"},
		{"Sunday digest", weekly(london, time.Sunday, 0), "2026-11-25T12:00:00Z", "2026-11-22"},
		{"Saturday digest on a Saturday", weekly(london, time.Saturday, 0), "2026-11-28T00:00:00Z", "2026-11-28"},
		{"across the year's end", weekly(london, time.Thursday, 0), "2027-01-02T12:00:00Z", "2026-12-31"},
		{"across a month's end", weekly(london, time.Friday, 0), "2026-12-03T12:00:00Z", "2026-11-27"},
		{"tokyo's Monday comes first", weekly(tokyo, time.Monday, 0), "2026-11-22T15:00:00Z", "2026-11-23"},
		{"new york's Monday comes later", weekly(newYork, time.Monday, 0), "2026-11-23T04:59:00Z", "2026-11-16"},
		// London springs forward on Sunday 29 March 2026: 01:00 GMT becomes 02:00 BST.
		{"spring forward: before the gap", weekly(london, time.Sunday, 1), "2026-03-29T00:59:00Z", "2026-03-22"},
		{"spring forward: the digest hour skipped", weekly(london, time.Sunday, 1), "2026-03-29T01:00:00Z", "2026-03-29"},
		// New York falls back on Sunday 1 November 2026: 02:00 EDT becomes 01:00 EST.
		{"fall back: first 01:00", weekly(newYork, time.Sunday, 1), "2026-11-01T05:00:00Z", "2026-11-01"},
		{"fall back: repeated 01:00", weekly(newYork, time.Sunday, 1), "2026-11-01T06:00:00Z", "2026-11-01"},
		{"fall back: just before", weekly(newYork, time.Sunday, 1), "2026-11-01T04:59:00Z", "2026-10-25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.user.DigestDate(at(tt.now)); got != tt.want {
				t.Errorf("DigestDate(%s) = %s, want %s", tt.now, got, tt.want)
			}
		})
	}
}

func TestNextDigest(t *testing.T) {
	london := mustZone(t, "Europe/London")
	newYork := mustZone(t, "America/New_York")
	tests := []struct {
		name string
		user User
		now  string
		want string
	}{
		{"daily: tomorrow at the digest hour", User{Location: london}, "2026-11-22T14:00:00Z", "2026-11-23T00:00:00Z"},
		{"daily, before today's digest hour", User{Location: london, DigestHour: 6}, "2026-11-22T05:00:00Z", "2026-11-22T06:00:00Z"},
		{"weekly mid-week: next Monday", User{Location: london, DigestHour: 6, Weekly: true, DigestDay: time.Monday}, "2026-11-25T12:00:00Z", "2026-11-30T06:00:00Z"},
		{"weekly, digest day before the hour: today", User{Location: london, DigestHour: 6, Weekly: true, DigestDay: time.Monday}, "2026-11-23T05:00:00Z", "2026-11-23T06:00:00Z"},
		{"weekly, digest day after the hour: a week on", User{Location: london, DigestHour: 6, Weekly: true, DigestDay: time.Monday}, "2026-11-23T06:00:00Z", "2026-11-30T06:00:00Z"},
		{"weekly into summer time", User{Location: london, DigestHour: 6, Weekly: true, DigestDay: time.Monday}, "2026-03-25T12:00:00Z", "2026-03-30T05:00:00Z"},
		// 02:00 does not exist in New York on 8 March 2026: the day starts at 03:00 EDT.
		{"digest hour in the spring gap", User{Location: newYork, DigestHour: 2}, "2026-03-07T12:00:00Z", "2026-03-08T07:00:00Z"},
		// 01:00 comes twice on 1 November 2026: the first one counts.
		{"digest hour repeated in the autumn", User{Location: newYork, DigestHour: 1}, "2026-10-31T12:00:00Z", "2026-11-01T05:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.user.NextDigest(at(tt.now)); !got.Equal(at(tt.want)) {
				t.Errorf("NextDigest(%s) = %s, want %s", tt.now, got.UTC().Format(time.RFC3339), tt.want)
			}
		})
	}
}

// NextDigest is exactly where DigestDate changes, in every zone and on
// every day of a year, daylight-saving days included.
func TestNextDigestIsWhereTheDigestDateChanges(t *testing.T) {
	for _, zone := range []string{"Europe/London", "America/New_York", "Australia/Lord_Howe", "America/Havana", "Asia/Kolkata"} {
		loc := mustZone(t, zone)
		for _, u := range []User{{Location: loc, DigestHour: 0}, {Location: loc, DigestHour: 2},
			{Location: loc, DigestHour: 1, Weekly: true, DigestDay: time.Sunday}, {Location: loc, DigestHour: 23, Weekly: true, DigestDay: time.Wednesday}} {
			start := at("2026-01-01T00:00:00Z")
			for now := start; now.Before(start.AddDate(1, 0, 0)); now = now.Add(5 * time.Hour) {
				next := u.NextDigest(now)
				if !next.After(now) {
					t.Fatalf("%s %+v: NextDigest(%s) = %s, not after now", zone, u, now, next)
				}
				if before := u.DigestDate(next.Add(-time.Second)); before != u.DigestDate(now) {
					t.Fatalf("%s hour %d weekly %v: a second before NextDigest(%s) = %s the digest date is %s, want %s",
						zone, u.DigestHour, u.Weekly, now, next, before, u.DigestDate(now))
				}
				if u.DigestDate(next) == u.DigestDate(now) {
					t.Fatalf("%s hour %d weekly %v: at NextDigest(%s) = %s the digest date is still %s", zone, u.DigestHour, u.Weekly, now, next, u.DigestDate(now))
				}
			}
		}
	}
}

// A weekly user's first digest is built at once, mid-week; the next one
// on the digest day at the digest hour, and one a week after that for a
// year of half-hourly runs.
func TestWeeklyDigestsAcrossAYear(t *testing.T) {
	for _, zone := range []string{"Europe/London", "America/New_York", "Australia/Lord_Howe"} {
		loc := mustZone(t, zone)
		u := User{Name: "w", Location: loc, DigestHour: 6, Weekly: true, DigestDay: time.Friday}
		have := digests{}
		start := at("2026-01-07T12:00:00Z") // a Wednesday
		var built []string
		for now := start; now.Before(start.AddDate(1, 0, 0)); now = now.Add(30 * time.Minute) {
			for _, d := range DueUsers([]User{u}, now, have.has) {
				have[d.Name+"/"+d.Date] = true
				built = append(built, d.Date)
				local := now.In(loc)
				if len(built) > 1 && (local.Weekday() != time.Friday || local.Hour() != 6) {
					t.Errorf("%s: digest %s built at %s local, want a Friday at 06:xx", zone, d.Date, local.Format(time.RFC1123))
				}
			}
			if now.Equal(start) && len(built) != 1 {
				t.Fatalf("%s: the first run built %d digests, want one at once", zone, len(built))
			}
		}
		if built[0] != "2026-01-02" {
			t.Errorf("%s: the first digest is dated %s, want the Friday before (2026-01-02)", zone, built[0])
		}
		if len(built) != 53 {
			t.Errorf("%s: %d digests in a year from a Wednesday, want 1 at once + 52 Fridays", zone, len(built))
		}
	}
}

func TestDailyPolls(t *testing.T) {
	london := mustZone(t, "Europe/London")
	users := []User{
		{Name: "day", Location: london, Feeds: []string{"a"}},
		{Name: "week", Location: london, DigestHour: 6, Weekly: true, DigestDay: time.Monday, Feeds: []string{"b"}},
		{Name: "week-due", Location: london, Weekly: true, DigestDay: time.Monday, Feeds: []string{"c"}},
	}
	now := at("2026-11-25T07:00:00Z")
	due := []Due{{User: users[2], Date: "2026-11-23"}}
	got := DailyPolls(users, due, now)
	if len(got) != 1 || got[0].Name != "week" || got[0].Date != "2026-11-25" {
		t.Errorf("DailyPolls = %+v, want the weekly user without a digest due, for 2026-11-25", got)
	}
	// Before the digest hour, the day is still yesterday.
	if got := DailyPolls(users[1:2], nil, at("2026-11-25T05:59:00Z")); len(got) != 1 || got[0].Date != "2026-11-24" {
		t.Errorf("before the digest hour: DailyPolls = %+v, want the poll of 2026-11-24", got)
	}
}

func TestFeedsToPollDailyPollOfAWeeklyUser(t *testing.T) {
	london := mustZone(t, "Europe/London")
	now := at("2026-11-25T07:00:00Z") // Wednesday, an hour after the digest hour
	u := User{Name: "w", Location: london, DigestHour: 6, Weekly: true, DigestDay: time.Monday,
		Feeds: []string{"yesterday", "before-hour", "after-hour", "new", "waiting", "gone", "failed-today"}}
	feeds := map[string]FeedState{
		"yesterday":    {URL: "yesterday", LastPoll: at("2026-11-24T06:30:00Z")},
		"before-hour":  {URL: "before-hour", LastPoll: at("2026-11-25T05:59:00Z")}, // a retry before the day began
		"after-hour":   {URL: "after-hour", LastPoll: at("2026-11-25T06:10:00Z")},  // polled this day already
		"waiting":      {URL: "waiting", LastPoll: at("2026-11-24T06:30:00Z"), NextPoll: now.Add(time.Hour)},
		"gone":         {URL: "gone", LastPoll: at("2026-11-20T06:30:00Z"), Gone: true},
		"failed-today": {URL: "failed-today", LastPoll: at("2026-11-25T06:30:00Z"), RetryPending: true, NextPoll: now.Add(time.Hour)},
	}
	daily := DailyPolls([]User{u}, nil, now)
	got := FeedsToPoll(nil, daily, feeds, now)
	want := []Poll{{"before-hour", Scheduled}, {"new", Scheduled}, {"yesterday", Scheduled}}
	if !slices.Equal(got, want) {
		t.Errorf("polls = %v, want %v", got, want)
	}
	// Without the daily poll nothing is owed: the user's digest is days away.
	if got := FeedsToPoll(nil, nil, feeds, now); len(got) != 0 {
		t.Errorf("without daily polls: %v", got)
	}
	// The next hour, once the polls are stored, nothing more is owed.
	later := now.Add(time.Hour)
	for _, url := range []string{"yesterday", "before-hour", "new"} {
		feeds[url] = FeedState{URL: url, LastPoll: now, NextPoll: now.Add(15 * time.Minute)}
	}
	want = []Poll{{"failed-today", Retry}, {"waiting", Scheduled}}
	if got := FeedsToPoll(nil, DailyPolls([]User{u}, nil, later), feeds, later); !slices.Equal(got, want) {
		t.Errorf("an hour later: %v, want %v: the feed whose next poll has come, and the retry", got, want)
	}
}

// A user who turns weekly mid-week, after a daily digest, gets the next
// digest on the digest day, not one dated the Monday before at once.
func TestTurningWeeklyMidWeek(t *testing.T) {
	london := mustZone(t, "Europe/London")
	have := digests{"ada/2026-11-25": true} // Wednesday's daily digest
	u := User{Name: "ada", Location: london, Weekly: true, DigestDay: time.Monday, NewestDigest: "2026-11-25"}
	for _, now := range []string{"2026-11-26T12:00:00Z", "2026-11-29T23:59:00Z"} {
		if due := DueUsers([]User{u}, at(now), have.has); len(due) != 0 {
			t.Errorf("at %s: due %v, want nothing before Monday", now, dueNames(due))
		}
	}
	if due := dueNames(DueUsers([]User{u}, at("2026-11-30T00:00:00Z"), have.has)); len(due) != 1 || due[0] != "ada/2026-11-30" {
		t.Errorf("on Monday: due %v, want ada/2026-11-30", due)
	}
	// Daily again: the next digest is today's, at once.
	u.Weekly = false
	if due := dueNames(DueUsers([]User{u}, at("2026-11-26T12:00:00Z"), have.has)); len(due) != 1 || due[0] != "ada/2026-11-26" {
		t.Errorf("daily again: due %v", due)
	}
}
