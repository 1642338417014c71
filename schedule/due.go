// Package schedule holds feeddigest's decisions about time: which users'
// digests are due, which feeds a run polls, and when a feed may be polled
// next. Every function here is pure: the caller passes `now` and any
// randomness, so tests can replay any day, zone or failure.
package schedule

import (
	"math/rand/v2"
	"sort"
	"time"
)

// User is what scheduling needs to know of a user.
type User struct {
	Name       string
	Location   *time.Location
	DigestHour int
	Feeds      []string
}

// Due is a user whose digest for Date is to be built in this run.
type Due struct {
	User
	Date string
}

// LocalDate is the date a digest built at now belongs to: the user's
// calendar date at now minus digest_hour, read on the local wall clock so
// that a daylight-saving change moves nothing.
func LocalDate(now time.Time, loc *time.Location, digestHour int) string {
	local := now.In(loc)
	y, m, d := local.Date()
	if local.Hour() < digestHour {
		d--
	}
	return time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// DueUsers returns the users with no digest yet for their current local
// date, in the order given. This single rule covers a first run (due at
// once), late or skipped runs (one catch-up digest), a repeated run in the
// same hour (nothing due), and daylight-saving days.
func DueUsers(users []User, now time.Time, hasDigest func(user, date string) bool) []Due {
	var due []Due
	for _, u := range users {
		date := LocalDate(now, u.Location, u.DigestHour)
		if !hasDigest(u.Name, date) {
			due = append(due, Due{User: u, Date: date})
		}
	}
	return due
}

// Why a feed is polled in a run.
type Why string

const (
	Scheduled Why = "scheduled" // a subscriber's digest is due
	Retry     Why = "retry"     // the last poll failed for a passing reason
	Overflow  Why = "overflow"  // the feed's window rolls faster than its subscribers' days
)

// FeedState is what deciding about a poll needs to know of a feed.
type FeedState struct {
	URL           string
	NextPoll      time.Time // no poll before this (floor, hints, penalty, Retry-After)
	Gone, Dead    bool
	RetryPending  bool
	OverflowGap   time.Duration
	NextExtraPoll time.Time
}

// Poll is one feed to poll in this run.
type Poll struct {
	URL string
	Why Why
}

// FeedsToPoll returns, sorted by URL, the feeds of the due users whose
// next allowed poll has come, plus the feeds owed an extra poll (retry or
// overflow) whose deadline has come, whoever is due. Gone and dead feeds
// are never polled. Feeds without a state are new and polled at once.
func FeedsToPoll(due []Due, feeds map[string]FeedState, now time.Time) []Poll {
	wanted := map[string]Why{}
	for _, d := range due {
		for _, url := range d.Feeds {
			wanted[url] = Scheduled
		}
	}
	for url, f := range feeds {
		if _, ok := wanted[url]; ok {
			continue
		}
		switch {
		case f.RetryPending:
			wanted[url] = Retry
		case f.OverflowGap > 0 && !now.Before(f.NextExtraPoll):
			wanted[url] = Overflow
		}
	}
	var polls []Poll
	for url, why := range wanted {
		f, known := feeds[url]
		if known && (f.Gone || f.Dead || now.Before(f.NextPoll)) {
			continue
		}
		polls = append(polls, Poll{URL: url, Why: why})
	}
	sort.Slice(polls, func(i, j int) bool { return polls[i].URL < polls[j].URL })
	return polls
}

// Shuffle puts the polls in a random order, so that no two installations
// (and no two runs) hit the same hosts in the same order.
func Shuffle(polls []Poll, rng *rand.Rand) {
	rng.Shuffle(len(polls), func(i, j int) { polls[i], polls[j] = polls[j], polls[i] })
}
