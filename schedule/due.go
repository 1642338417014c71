// Package schedule holds feeddigest's decisions about time: which users'
// digests are due, which feeds a run polls, and when a feed may be polled
// next. Every function here is pure: the caller passes `now` and any
// randomness, so tests can replay any day, zone or failure.
package schedule

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sort"
	"time"
)

// User is what scheduling needs to know of a user.
type User struct {
	Name       string
	Location   *time.Location
	DigestHour int
	Weekly     bool         // one digest a week, on DigestDay, instead of one a day
	DigestDay  time.Weekday // a weekly user's day
	Feeds      []string
	// NewestDigest is the date of the user's newest digest, "" when none.
	// A user who turns weekly mid-week has one newer than the week's date:
	// their next digest is on the next digest day, not a second one dated
	// in the past.
	NewestDigest string
}

// Due is a user whose digest for Date is to be built in this run.
type Due struct {
	User
	Date string
}

// LocalDate is the user's local day at now: the calendar date at now
// minus digest_hour, read on the local wall clock so that a
// daylight-saving change moves nothing. It is a daily user's digest date.
func LocalDate(now time.Time, loc *time.Location, digestHour int) string {
	return localDay(now, loc, digestHour).Format(time.DateOnly)
}

// localDay is LocalDate as noon UTC of that date, for date arithmetic.
func localDay(now time.Time, loc *time.Location, digestHour int) time.Time {
	local := now.In(loc)
	y, m, d := local.Date()
	if local.Hour() < digestHour {
		d--
	}
	return time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
}

// periodStart is the local day a digest built at now belongs to: the
// local day itself for a daily user, the most recent DigestDay at or
// before it for a weekly user.
func (u User) periodStart(now time.Time) time.Time {
	day := localDay(now, u.Location, u.DigestHour)
	if !u.Weekly {
		return day
	}
	back := (int(day.Weekday()) - int(u.DigestDay) + 7) % 7
	return day.AddDate(0, 0, -back)
}

// DigestDate is the date that identifies the user's digest built at now:
// LocalDate for a daily user; for a weekly user, the date of the most
// recent DigestDay at or before LocalDate.
func (u User) DigestDate(now time.Time) string {
	return u.periodStart(now).Format(time.DateOnly)
}

// NextDigest is when the digest after the one of now falls due: the
// user's digest hour on the next day (daily) or the next DigestDay
// (weekly), local time. On a day that skips the digest hour (a
// daylight-saving gap) it is the first moment after the gap.
func (u User) NextDigest(now time.Time) time.Time {
	days := 1
	if u.Weekly {
		days = 7
	}
	next := u.periodStart(now).AddDate(0, 0, days)
	want := next.Format(time.DateOnly)
	y, m, d := next.Date()
	t := time.Date(y, m, d, u.DigestHour, 0, 0, 0, u.Location)
	// time.Date resolves a wall time in a gap or an overlap either way:
	// move to the first instant whose local day is the next one.
	const step = 15 * time.Minute // every zone's offsets are multiples of it
	for range 8 {
		if LocalDate(t, u.Location, u.DigestHour) >= want {
			break
		}
		t = t.Add(step)
	}
	for range 8 {
		if LocalDate(t.Add(-step), u.Location, u.DigestHour) < want {
			break
		}
		t = t.Add(-step)
	}
	return t
}

// DueUsers returns the users with no digest yet for their current digest
// date (DigestDate), in the order given. This single rule covers a first
// run (due at once, weekly users too), late or skipped runs (one catch-up
// digest), a repeated run in the same hour (nothing due), and
// daylight-saving days.
func DueUsers(users []User, now time.Time, hasDigest func(user, date string) bool) []Due {
	var due []Due
	for _, u := range users {
		if date, ok := u.Due(now, hasDigest); ok {
			due = append(due, Due{User: u, Date: date})
		}
	}
	return due
}

// Due says whether the user's digest of now (for date, DigestDate) is
// still to be built: no digest has that date (nor, for a weekly user, a
// later one).
func (u User) Due(now time.Time, hasDigest func(user, date string) bool) (date string, due bool) {
	date = u.DigestDate(now)
	if hasDigest(u.Name, date) || (u.Weekly && u.NewestDigest >= date) {
		return date, false
	}
	return date, true
}

// DailyPoll is a weekly user between two digests, owed the poll of their
// feeds for the local day Date (YYYY-MM-DD, as LocalDate), so that a feed
// whose window rolls faster than a week loses nothing.
type DailyPoll struct {
	User
	Date string
}

// DailyPolls returns the weekly users whose digest is not due in this run:
// their feeds are still polled once a local day, from their digest hour,
// as a daily user's are (FeedsToPoll decides which, from the feeds' last
// polls, so the rule needs no record of its own). A user due for a digest
// is polled for it anyway.
func DailyPolls(users []User, due []Due, now time.Time) []DailyPoll {
	isDue := map[string]bool{}
	for _, d := range due {
		isDue[d.Name] = true
	}
	var polls []DailyPoll
	for _, u := range users {
		if u.Weekly && !isDue[u.Name] {
			polls = append(polls, DailyPoll{User: u, Date: LocalDate(now, u.Location, u.DigestHour)})
		}
	}
	return polls
}

// owesDailyPoll says whether a weekly user is owed the poll of a feed
// last polled at lastPoll (zero: never) on their local date: no poll of
// it since their digest hour began that date.
func (u User) owesDailyPoll(lastPoll time.Time, date string) bool {
	return lastPoll.IsZero() || LocalDate(lastPoll, u.Location, u.DigestHour) < date
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
	LastPoll      time.Time // the last poll, failed or not; zero: never
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
// next allowed poll has come; the feeds of the daily polls not polled yet
// on that local day of that user (the last poll, whatever its outcome,
// was on an earlier one); plus the feeds owed an extra poll (retry or
// overflow) whose deadline has come, whoever is due. Gone and dead feeds
// are never polled. Feeds without a state are new and polled at once.
//
// A daily poll is owed until a poll of the feed is stored, and the feed
// record is stored with the poll's entries in one transaction: a run
// killed half-way leaves the feeds it did not finish owed, and the next
// run polls them.
func FeedsToPoll(due []Due, daily []DailyPoll, feeds map[string]FeedState, now time.Time) []Poll {
	wanted := map[string]Why{}
	for _, d := range due {
		for _, url := range d.Feeds {
			wanted[url] = Scheduled
		}
	}
	for _, d := range daily {
		for _, url := range d.Feeds {
			f, known := feeds[url]
			if !known || d.owesDailyPoll(f.LastPoll, d.Date) {
				wanted[url] = Scheduled
			}
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

// UsersInTurn orders polls, already shuffled, user by user: the feeds of
// the first due user, then those of the second not polled for the first,
// and so on, and last the feeds of no due user (the daily polls of weekly
// users, the retries), each user's feeds in their shuffled order. The
// users take their turns in the order in which the shuffle placed their
// first feed, so the order stays random. Spread by host after this
// (fetch.SpreadByHost), each host's feeds are still polled one a round;
// but a user's feeds, on hosts of many feeds, come in the early rounds or
// in the late ones together, not at random: most users have all their
// feeds polled long before the poll ends, and a pass that builds a digest
// as soon as its user's feeds are polled builds most while the poll goes
// on.
func UsersInTurn(polls []Poll, due []Due) {
	at := make(map[string]int, len(polls))
	for i, p := range polls {
		at[p.URL] = i
	}
	// first is where each due user's first polled feed is.
	type turn struct{ user, first int }
	turns := make([]turn, 0, len(due))
	for i, d := range due {
		first := len(polls)
		for _, url := range d.Feeds {
			if j, ok := at[url]; ok {
				first = min(first, j)
			}
		}
		turns = append(turns, turn{user: i, first: first})
	}
	slices.SortStableFunc(turns, func(a, b turn) int { return cmp.Compare(a.first, b.first) })
	rank := make(map[string]int, len(polls))
	for r, t := range turns {
		for _, url := range due[t.user].Feeds {
			if _, ok := rank[url]; !ok {
				rank[url] = r
			}
		}
	}
	rankOf := func(p Poll) int {
		if r, ok := rank[p.URL]; ok {
			return r
		}
		return len(turns)
	}
	slices.SortStableFunc(polls, func(a, b Poll) int { return cmp.Compare(rankOf(a), rankOf(b)) })
}
