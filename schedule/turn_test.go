package schedule

import (
	"strings"
	"testing"
	"time"
)

// The next poll of a feed is the first of its subscribers' digest hours
// at which its own wait is over, a retry at the end of its wait, or a
// busy feed's extra poll; never the bare earliest allowed poll.
func TestNextTurn(t *testing.T) {
	london := mustZone(t, "Europe/London")
	tokyo := mustZone(t, "Asia/Tokyo")
	now := at("2026-11-22T00:20:00Z") // after London's midnight pass
	ada := Subscriber{User: User{Name: "ada", Location: london}}
	bob := Subscriber{User: User{Name: "bob", Location: london}}
	kenji := Subscriber{User: User{Name: "kenji", Location: tokyo, DigestHour: 6}}               // 06:00 Tokyo: 21:00 UTC
	weekly := Subscriber{User: User{Name: "wes", Location: london, DigestHour: 7, Weekly: true}} // daily polls at 07:00
	dueAda := ada
	dueAda.Due = true
	polled := FeedState{LastPoll: at("2026-11-22T00:05:00Z"), NextPoll: at("2026-11-22T00:21:00Z")}
	tests := []struct {
		name  string
		feed  FeedState
		subs  []Subscriber
		at    string
		why   Why
		users string
		waits bool
		hour  bool
	}{
		{"the floor is not the next poll: ada's next midnight is", polled, []Subscriber{ada}, "2026-11-23T00:00:00Z", Scheduled, "ada", false, true},
		{"the first subscriber's hour of several", polled, []Subscriber{ada, kenji}, "2026-11-22T21:00:00Z", Scheduled, "kenji", false, true},
		{"subscribers sharing the hour are named in order", polled, []Subscriber{bob, kenji, ada}, "2026-11-22T21:00:00Z", Scheduled, "kenji", false, true},
		{"two at one hour", polled, []Subscriber{bob, ada}, "2026-11-23T00:00:00Z", Scheduled, "bob,ada", false, true},
		{"a user due now polls it at the next run", FeedState{LastPoll: at("2026-11-21T00:05:00Z"), NextPoll: at("2026-11-21T00:20:00Z")},
			[]Subscriber{dueAda}, "2026-11-22T00:20:00Z", Scheduled, "ada", false, true},
		{"a penalty past the hour moves it to the next hour", FeedState{LastPoll: polled.LastPoll, NextPoll: at("2026-11-23T02:00:00Z")},
			[]Subscriber{ada}, "2026-11-24T00:00:00Z", Scheduled, "ada", true, true},
		{"a weekly user's daily poll, owed from the hour", polled, []Subscriber{weekly}, "2026-11-22T07:00:00Z", Scheduled, "wes", false, true},
		{"a weekly user's daily poll waits out the penalty the same day", FeedState{LastPoll: at("2026-11-21T07:05:00Z"), NextPoll: at("2026-11-22T09:30:00Z")},
			[]Subscriber{weekly}, "2026-11-22T09:30:00Z", Scheduled, "wes", true, false},
		{"a retry when the penalty ends, whoever is due", FeedState{LastPoll: polled.LastPoll, NextPoll: at("2026-11-22T04:05:00Z"), RetryPending: true},
			[]Subscriber{ada}, "2026-11-22T04:05:00Z", Retry, "", true, false},
		{"a retry whose wait is over is due", FeedState{LastPoll: polled.LastPoll, NextPoll: at("2026-11-22T00:10:00Z"), RetryPending: true},
			[]Subscriber{ada}, "2026-11-22T00:20:00Z", Retry, "", false, false},
		{"a busy feed's extra poll before the hour", FeedState{LastPoll: polled.LastPoll, NextPoll: polled.NextPoll, OverflowGap: 2 * time.Hour, NextExtraPoll: at("2026-11-22T02:05:00Z")},
			[]Subscriber{ada}, "2026-11-22T02:05:00Z", Overflow, "", false, false},
		{"never polled, nobody due: the next hour", FeedState{}, []Subscriber{ada}, "2026-11-23T00:00:00Z", Scheduled, "ada", false, true},
		{"gone", FeedState{Gone: true, NextPoll: polled.NextPoll}, []Subscriber{dueAda}, "", "", "", false, false},
		{"dead", FeedState{Dead: true, RetryPending: true}, []Subscriber{dueAda}, "", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NextTurn(tt.feed, tt.subs, now)
			want := time.Time{}
			if tt.at != "" {
				want = at(tt.at)
			}
			if !got.At.Equal(want) || got.Why != tt.why || strings.Join(got.Users, ",") != tt.users || got.Waits != tt.waits || got.Hour != tt.hour {
				t.Errorf("turn %s %s %v waits=%v hour=%v, want %s %s %s waits=%v hour=%v",
					got.At.Format(time.RFC3339), got.Why, got.Users, got.Waits, got.Hour, tt.at, tt.why, tt.users, tt.waits, tt.hour)
			}
		})
	}
}

// What NextTurn says is what the runs do: stepping the clock hour by
// hour through FeedsToPoll, the feed is first polled at the turn's hour.
func TestNextTurnIsThePollOfTheRunsToCome(t *testing.T) {
	london := mustZone(t, "Europe/London")
	tokyo := mustZone(t, "Asia/Tokyo")
	now := at("2026-11-22T00:05:00Z")
	for _, next := range []string{"2026-11-22T00:20:00Z", "2026-11-22T22:10:00Z", "2026-11-23T03:00:00Z", "2026-11-25T00:00:00Z"} {
		for _, weekly := range []bool{false, true} {
			users := []User{
				{Name: "ada", Location: london, Weekly: weekly, Feeds: []string{"f"}},
				{Name: "kenji", Location: tokyo, DigestHour: 6, Feeds: []string{"f"}},
			}
			f := FeedState{URL: "f", LastPoll: now, NextPoll: at(next)}
			var subs []Subscriber
			for _, u := range users {
				subs = append(subs, Subscriber{User: u})
			}
			turn := NextTurn(f, subs, now)
			built := map[string]bool{"ada " + users[0].DigestDate(now): true, "kenji " + users[1].DigestDate(now): true}
			var polledAt time.Time
			for h := now.Truncate(time.Hour).Add(time.Hour); h.Before(now.AddDate(0, 0, 9)); h = h.Add(time.Hour) {
				due := DueUsers(users, h, func(u, d string) bool { return built[u+" "+d] })
				for _, d := range due {
					built[d.Name+" "+d.Date] = true
				}
				if len(FeedsToPoll(due, DailyPolls(users, due, h), map[string]FeedState{"f": f}, h)) > 0 {
					polledAt = h
					break
				}
			}
			// Runs come on the hour: the turn is polled by the first run at
			// or after it.
			if first := turn.At.Add(time.Hour - time.Nanosecond).Truncate(time.Hour); !polledAt.Equal(first) {
				t.Errorf("next poll allowed %s, weekly ada %v: turn %s (%s %v), the runs poll it at %s",
					next, weekly, turn.At.Format(time.RFC3339), turn.Why, turn.Users, polledAt.Format(time.RFC3339))
			}
		}
	}
}
