package pipeline

import (
	"reflect"
	"testing"

	"feeddigest/domain"
	"feeddigest/schedule"
	"feeddigest/store"
)

// Records of one feed ride along with the one a pass polls, under one
// host's claim (that of the URL they land on, even across sites), and
// the poll goes first to the record that needs no redirect; a record
// gone or dead does not ride along, and feeds apart are left as they are.
func TestTwinsArePlannedTogetherAndPolledOnce(t *testing.T) {
	feeds := map[string]*domain.Feed{
		"https://old.example/rss":    {ID: 1, URL: "https://old.example/rss", PendingURL: "https://coast.example/feed"},
		"https://coast.example/feed": {ID: 2, URL: "https://coast.example/feed"},
		"https://coast.example/":     {ID: 3, URL: "https://coast.example/", EffectiveURL: "https://coast.example/feed", Schedule: domain.Schedule{GoneAt: at("2026-11-20T00:00:00Z")}},
		"https://news.example/feed":  {ID: 4, URL: "https://news.example/feed"},
		"https://moved.example/a":    {ID: 5, URL: "https://moved.example/a", EffectiveURL: "https://moved.example/b"},
	}
	polls := withTwins([]schedule.Poll{{URL: "https://old.example/rss", Why: schedule.Retry}, {URL: "https://news.example/feed", Why: schedule.Scheduled},
		{URL: "https://moved.example/a", Why: schedule.Scheduled}}, feeds)
	want := []schedule.Poll{{URL: "https://old.example/rss", Why: schedule.Retry}, {URL: "https://news.example/feed", Why: schedule.Scheduled},
		{URL: "https://moved.example/a", Why: schedule.Scheduled}, {URL: "https://coast.example/feed", Why: schedule.Retry}}
	if !reflect.DeepEqual(polls, want) {
		t.Fatalf("polls %+v, want %+v", polls, want)
	}
	shared := sharedLands(polls, feeds)
	hosts := map[string]string{}
	for _, p := range polls {
		hosts[p.URL] = claimHost(feeds[p.URL], shared)
	}
	wantHosts := map[string]string{"https://old.example/rss": "coast.example", "https://coast.example/feed": "coast.example",
		"https://news.example/feed": "news.example", "https://moved.example/a": "moved.example"}
	if !reflect.DeepEqual(hosts, wantHosts) {
		t.Errorf("claimed by %v, want %v", hosts, wantHosts)
	}
	claimed := []store.ClaimedFeed{{Feed: *feeds["https://old.example/rss"]}, {Feed: *feeds["https://coast.example/feed"]}}
	groups := twinsOf(claimed, nil)
	if len(groups) != 1 || len(groups[0]) != 2 || groups[0][0].Feed.ID != 2 {
		t.Errorf("groups %+v, want one, polled first at the URL they land on", groups)
	}
	// With whole articles asked for by the other, that one polls.
	if groups := twinsOf(claimed, map[string]int{"https://old.example/rss": 3}); groups[0][0].Feed.ID != 2 {
		t.Errorf("a redirect to follow still comes after the direct record: %+v", groups)
	}
}

// A group's poll carries its first record's validators only when all
// hold the same; else it asks for the whole body.
func TestTwinRequestDropsValidatorsTheTwinsDoNotShare(t *testing.T) {
	a := domain.Feed{ID: 1, URL: "https://a.example/", ETag: `"1"`, BodyHash: "h1"}
	b := domain.Feed{ID: 2, URL: "https://b.example/", EffectiveURL: "https://a.example/", ETag: `"1"`, BodyHash: "h1"}
	if got := twinRequest([]store.ClaimedFeed{{Feed: a}, {Feed: b}}); got.ETag != `"1"` || got.BodyHash != "h1" {
		t.Errorf("shared validators dropped: %+v", got)
	}
	b.BodyHash = "h0"
	if got := twinRequest([]store.ClaimedFeed{{Feed: a}, {Feed: b}}); got.ETag != "" || got.BodyHash != "" || got.ID != 1 {
		t.Errorf("validators kept though the twins differ: %+v", got)
	}
}
