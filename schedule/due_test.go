package schedule

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestLocalDate(t *testing.T) {
	london := mustZone(t, "Europe/London")
	newYork := mustZone(t, "America/New_York")
	tokyo := mustZone(t, "Asia/Tokyo")
	tests := []struct {
		name string
		now  string
		loc  *time.Location
		hour int
		want string
	}{
		{"london just after midnight", "2026-11-22T00:05:00Z", london, 0, "2026-11-22"},
		{"london just before midnight", "2026-11-21T23:55:00Z", london, 0, "2026-11-21"},
		{"tokyo is ahead", "2026-11-21T15:05:00Z", tokyo, 0, "2026-11-22"},
		{"new york is behind", "2026-11-22T04:59:00Z", newYork, 0, "2026-11-21"},
		{"digest hour 6, before it", "2026-11-22T05:30:00Z", london, 6, "2026-11-21"},
		{"digest hour 6, at it", "2026-11-22T06:00:00Z", london, 6, "2026-11-22"},
		{"first of month with digest hour", "2026-12-01T03:00:00Z", london, 7, "2026-11-30"},
		{"first of year", "2027-01-01T00:10:00Z", london, 1, "2026-12-31"},
		// Spring forward in London: 01:00 GMT becomes 02:00 BST. Local 06:00 is 05:00Z.
		{"spring forward, local 06:00", "2026-03-29T05:00:00Z", london, 6, "2026-03-29"},
		{"spring forward, local 05:59", "2026-03-29T04:59:00Z", london, 6, "2026-03-28"},
		// Fall back in New York: 02:00 EDT becomes 01:00 EST. Local 00:30 EDT is 04:30Z.
		{"fall back day, after midnight", "2026-11-01T04:30:00Z", newYork, 0, "2026-11-01"},
		{"fall back day, repeated hour", "2026-11-01T06:30:00Z", newYork, 1, "2026-11-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LocalDate(at(tt.now), tt.loc, tt.hour); got != tt.want {
				t.Errorf("LocalDate(%s, %s, %d) = %s, want %s", tt.now, tt.loc, tt.hour, got, tt.want)
			}
		})
	}
}

// digests is a fake digest table for DueUsers.
type digests map[string]bool

func (d digests) has(user, date string) bool { return d[user+"/"+date] }

func dueNames(due []Due) []string {
	var names []string
	for _, d := range due {
		names = append(names, d.Name+"/"+d.Date)
	}
	return names
}

func TestDueUsers(t *testing.T) {
	london := mustZone(t, "Europe/London")
	tokyo := mustZone(t, "Asia/Tokyo")
	users := []User{{Name: "ada", Location: london}, {Name: "kenji", Location: tokyo}}
	tests := []struct {
		name string
		now  string
		have digests
		want []string
	}{
		{"first run builds at once, mid-day", "2026-11-22T14:00:00Z", digests{}, []string{"ada/2026-11-22", "kenji/2026-11-22"}},
		{"second run in the same hour does nothing", "2026-11-22T00:40:00Z",
			digests{"ada/2026-11-22": true, "kenji/2026-11-22": true}, nil},
		{"tokyo midnight comes first", "2026-11-22T15:05:00Z",
			digests{"ada/2026-11-22": true, "kenji/2026-11-22": true}, []string{"kenji/2026-11-23"}},
		{"skipped runs catch up with one digest", "2026-11-25T10:00:00Z",
			digests{"ada/2026-11-22": true, "kenji/2026-11-22": true}, []string{"ada/2026-11-25", "kenji/2026-11-25"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dueNames(DueUsers(users, at(tt.now), tt.have.has))
			if len(got) != len(tt.want) {
				t.Fatalf("due = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("due = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// A whole simulated year of hourly runs gives exactly one digest per
// local day, daylight-saving days included.
func TestOneDigestPerLocalDayAcrossAYear(t *testing.T) {
	for _, zone := range []string{"Europe/London", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"} {
		loc := mustZone(t, zone)
		for _, hour := range []int{0, 2, 23} {
			have := digests{}
			users := []User{{Name: "u", Location: loc, DigestHour: hour}}
			start := at("2026-01-01T00:00:00Z")
			builds := 0
			for now := start; now.Before(start.AddDate(1, 0, 0)); now = now.Add(30 * time.Minute) {
				for _, d := range DueUsers(users, now, have.has) {
					have[d.Name+"/"+d.Date] = true
					builds++
				}
			}
			if builds < 365 || builds > 366 {
				t.Errorf("%s hour %d: %d digests in a year, want 365 or 366", zone, hour, builds)
			}
		}
	}
}

func TestFeedsToPoll(t *testing.T) {
	now := at("2026-11-22T00:05:00Z")
	due := []Due{{User: User{Name: "ada", Feeds: []string{"a", "b", "c", "d", "e", "new"}}}}
	feeds := map[string]FeedState{
		"a": {URL: "a", NextPoll: now.Add(-time.Minute)},
		"b": {URL: "b", NextPoll: now.Add(time.Hour)},      // Retry-After, penalty or hint
		"c": {URL: "c", Gone: true},                        // 410
		"d": {URL: "d", Dead: true},                        // 90 days of errors
		"e": {URL: "e", NextPoll: now},                     // exactly due
		"r": {URL: "r", RetryPending: true, NextPoll: now}, // no subscriber due: retry
		"s": {URL: "s", RetryPending: true, NextPoll: now.Add(time.Minute)},
		"o": {URL: "o", OverflowGap: time.Hour, NextExtraPoll: now.Add(-time.Second)},
		"p": {URL: "p", OverflowGap: time.Hour, NextExtraPoll: now.Add(time.Minute)},
		"q": {URL: "q"}, // no subscriber due, nothing owed
	}
	got := FeedsToPoll(due, nil, feeds, now)
	want := []Poll{{"a", Scheduled}, {"e", Scheduled}, {"new", Scheduled}, {"o", Overflow}, {"r", Retry}}
	if len(got) != len(want) {
		t.Fatalf("polls = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("polls = %v, want %v", got, want)
		}
	}
}

func TestShuffleIsRandomButRepeatable(t *testing.T) {
	polls := func() []Poll {
		var ps []Poll
		for i := range 20 {
			ps = append(ps, Poll{URL: fmt.Sprintf("https://h%d.example/feed", i), Why: Scheduled})
		}
		return ps
	}
	order := func(seed uint64) string {
		ps := polls()
		Shuffle(ps, rand.New(rand.NewPCG(seed, 1)))
		var urls []string
		for _, p := range ps {
			urls = append(urls, p.URL)
		}
		return strings.Join(urls, " ")
	}
	if first, again := order(1), order(1); first != again {
		t.Error("the same seed gave two orders")
	}
	if order(1) == order(2) {
		t.Error("two seeds gave the same order")
	}
	sorted := polls()
	var urls []string
	for _, p := range sorted {
		urls = append(urls, p.URL)
	}
	if order(1) == strings.Join(urls, " ") {
		t.Error("shuffle left the order as it was")
	}
}

// UsersInTurn takes the due users one after the other, in the order of
// their first feed in the shuffle, each with their feeds not taken yet in
// their shuffled order, and the feeds of no due user last.
func TestUsersInTurn(t *testing.T) {
	due := []Due{
		{User: User{Name: "ada", Feeds: []string{"a1", "a2", "shared"}}},
		{User: User{Name: "bob", Feeds: []string{"b1", "shared", "b2", "b3"}}},
		{User: User{Name: "cy", Feeds: []string{"c1", "not-polled"}}},
	}
	var polls []Poll
	for _, url := range []string{"b2", "extra", "a2", "c1", "shared", "a1", "b1", "b3"} {
		polls = append(polls, Poll{URL: url, Why: Scheduled})
	}
	UsersInTurn(polls, due)
	var got []string
	for _, p := range polls {
		got = append(got, p.URL)
	}
	// bob first (b2 is first), then ada (a2), then cy; the shared feed
	// with bob.
	if want := "b2 shared b1 b3 a2 a1 c1 extra"; strings.Join(got, " ") != want {
		t.Errorf("UsersInTurn = %q, want %q", strings.Join(got, " "), want)
	}
	UsersInTurn(nil, due) // nothing to poll: nothing to do
}
