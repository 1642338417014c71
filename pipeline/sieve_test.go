package pipeline

import (
	"testing"

	"feeddigest/config"
	"feeddigest/domain"
)

// A user's rules apply to all their feeds; rules written on a feed of
// theirs apply to that feed in their digests only, never to another
// subscriber's; a user without rules has no sieve (no entry is read for
// rules).
func TestSieveOfUserAndFeedRules(t *testing.T) {
	cfg, err := config.Parse([]byte(`
[[users]]
name = "ada"
timezone = "UTC"
mute = ["author:^press office$"]
feeds = ["https://a.example/feed", { url = "https://b.example/feed", keep = ["category:^go$"] }]
[[users]]
name = "grace"
timezone = "UTC"
feeds = ["https://b.example/feed"]
`), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	ada, _ := cfg.User("ada")
	grace, _ := cfg.User("grace")
	a, b := "https://a.example/feed", "https://b.example/feed"
	sieve := sieveOf(ada)
	for _, tt := range []struct {
		name string
		e    domain.Entry
		out  bool
	}{
		{"user mute, feed a", domain.Entry{FeedURL: a, Author: "Press Office"}, true},
		{"user mute, feed b", domain.Entry{FeedURL: b, Author: "Press Office", Categories: []string{"Go"}}, true},
		{"feed b keeps Go", domain.Entry{FeedURL: b, Categories: []string{"go"}}, false},
		{"feed b leaves out the rest", domain.Entry{FeedURL: b, Categories: []string{"Rust"}}, true},
		{"feed b's keep is not feed a's", domain.Entry{FeedURL: a, Categories: []string{"Rust"}}, false},
	} {
		if got := sieve(tt.e); got != tt.out {
			t.Errorf("ada, %s: left out %v, want %v", tt.name, got, tt.out)
		}
	}
	if sieveOf(grace) != nil {
		t.Error("grace has no rules, yet a sieve: ada's rules on feed b reach her")
	}
}
