package pages

import (
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/schedule"
)

// The next poll in words a reader takes right: whose digest hour, in
// their own time; a retry; a busy feed's extra poll; "has come" only for
// a turn that has.
func TestNextPollInWords(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 0, 20, 0, 0, time.UTC)
	sub := func(name string, loc *time.Location, due, weekly bool) schedule.Subscriber {
		return schedule.Subscriber{User: schedule.User{Name: name, Location: loc, Weekly: weekly, DigestHour: 7}, Due: due}
	}
	polled := domain.Feed{URL: "https://a.example/feed"}
	polled.LastPoll, polled.NextPoll, polled.Reason = now.Add(-10*time.Minute), now.Add(5*time.Minute), ""
	hinted := polled
	hinted.NextPoll, hinted.Reason = now.Add(30*time.Hour), "publisher hint (RSS ttl)"
	limited := polled
	limited.NextPoll, limited.Reason, limited.RetryPending, limited.ErrorCount = now.Add(2*time.Hour), "Retry-After", true, 1
	busy := polled
	busy.OverflowGap, busy.NextExtraPoll = 2*time.Hour, now.Add(time.Hour)
	gone := polled
	gone.GoneAt, gone.Reason = now, "gone (410): never polled again"
	weeklyWait := polled
	weeklyWait.LastPoll, weeklyWait.NextPoll, weeklyWait.Reason, weeklyWait.ErrorCount = now.Add(-24*time.Hour), now.Add(9*time.Hour), "penalty (404)", 1
	tests := []struct {
		name  string
		feed  domain.Feed
		subs  []schedule.Subscriber
		words string
	}{
		{"a digest hour", polled, []schedule.Subscriber{sub("ada", london, false, false)}, "at ada's digest hour, 07:00 London"},
		{"a city of two words", polled, []schedule.Subscriber{sub("nia", newYork, false, false)}, "at nia's digest hour, 07:00 New York"},
		{"two sharing it", polled, []schedule.Subscriber{sub("ada", london, false, false), sub("bob", london, false, false)}, "at ada's and bob's digest hour, 07:00 London"},
		{"three", polled, []schedule.Subscriber{sub("ada", london, false, false), sub("bob", london, false, false), sub("cy", london, false, false)}, "at ada's and 2 others' digest hour, 07:00 London"},
		{"a hint that moves it", hinted, []schedule.Subscriber{sub("ada", london, false, false)}, "at ada's digest hour, 07:00 London, after its publisher hint (RSS ttl)"},
		{"a user due now", domain.Feed{URL: polled.URL}, []schedule.Subscriber{sub("ada", london, true, false)}, "ada's digest hour has come"},
		{"Retry-After", limited, []schedule.Subscriber{sub("ada", london, false, false)}, "retry, as the server's Retry-After asks"},
		{"a busy feed", busy, []schedule.Subscriber{sub("ada", london, false, false)}, "an extra poll of a busy feed"},
		{"a weekly user's daily poll after a penalty", weeklyWait, []schedule.Subscriber{sub("wes", london, false, true)}, "for wes's daily poll, after its penalty (404)"},
		{"gone", gone, []schedule.Subscriber{sub("ada", london, true, false)}, "gone (410): never polled again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, words := nextPoll(tt.feed, tt.subs, now); words != tt.words {
				t.Errorf("%q, want %q", words, tt.words)
			}
		})
	}
}

// What the status page says of a server's validators comes from its
// answers: a feed polled but never answered (a 500, a dropped
// connection) has no note, not "sends no ETag or Last-Modified".
func TestServerNoteOnlyFromAnswers(t *testing.T) {
	polled := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)
	never := domain.Feed{LastStatus: 500}
	never.LastPoll, never.ErrorCount = polled, 3
	if note := serverNote(never); note != "" {
		t.Errorf("a server that never answered: %q, want no note", note)
	}
	answered := domain.Feed{LastGet: polled, LastStatus: 200}
	answered.LastPoll = polled
	if note := serverNote(answered); note != "sends no ETag or Last-Modified, so a poll cannot ask whether the feed changed: every poll downloads the whole feed" {
		t.Errorf("a server that answered without validators: %q", note)
	}
	answered.ETag = `"v1"`
	if note := serverNote(answered); note != "offers conditional requests (by ETag)" {
		t.Errorf("a server that sent an ETag: %q", note)
	}
}
