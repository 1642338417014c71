package domain

import (
	"testing"
	"time"
)

func TestFeedState(t *testing.T) {
	then := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	polled := Schedule{LastPoll: then}
	tests := []struct {
		name string
		feed Feed
		want FeedState
	}{
		{"never polled", Feed{}, FeedNew},
		{"polled", Feed{Schedule: polled}, FeedOK},
		{"moved", Feed{EffectiveURL: "https://b.example/feed", Schedule: polled}, FeedMoved},
		{"redirected to another site", Feed{PendingURL: "https://c.example/feed", EffectiveURL: "https://b.example/feed", Schedule: polled}, FeedMovedAway},
		{"failing", Feed{PendingURL: "https://c.example/feed", Schedule: Schedule{LastPoll: then, ErrorCount: 1}}, FeedFailing},
		{"dead", Feed{Schedule: Schedule{ErrorCount: 900, DeadAt: then}}, FeedDead},
		{"gone", Feed{Schedule: Schedule{ErrorCount: 1, DeadAt: then, GoneAt: then}}, FeedGone},
	}
	for _, tt := range tests {
		if got := tt.feed.State(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, s := range []FeedState{FeedNew, FeedOK, FeedFailing, FeedMoved, FeedMovedAway} {
		if s.Stopped() {
			t.Errorf("%q counts as never polled again", s)
		}
	}
	if !FeedGone.Stopped() || !FeedDead.Stopped() {
		t.Error("gone or dead feeds count as polled again")
	}
}

func TestPollURL(t *testing.T) {
	f := Feed{URL: "https://a.example/feed"}
	if f.PollURL() != f.URL {
		t.Errorf("PollURL %q", f.PollURL())
	}
	f.EffectiveURL = "https://b.example/feed"
	if f.PollURL() != f.EffectiveURL {
		t.Errorf("PollURL after a move %q", f.PollURL())
	}
}

// Lands is where polls end, normalised: a move followed, else one that
// waits for the user to another site, else the URL itself.
func TestLands(t *testing.T) {
	for _, c := range []struct {
		f    Feed
		want string
	}{
		{Feed{URL: "https://a.example/feed"}, "https://a.example/feed"},
		{Feed{URL: "https://a.example/old", EffectiveURL: "HTTPS://A.example:443/new#top"}, "https://a.example/new"},
		{Feed{URL: "https://a.example/old", PendingURL: "https://b.example/feed"}, "https://b.example/feed"},
		{Feed{URL: "https://a.example/old", EffectiveURL: "https://a.example/mid", PendingURL: "https://b.example/feed"}, "https://b.example/feed"},
	} {
		if got := c.f.Lands(); got != c.want {
			t.Errorf("%+v lands at %q, want %q", c.f, got, c.want)
		}
	}
}
