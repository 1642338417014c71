package schedule

import (
	"time"

	"feeddigest/domain"
)

// Subscriber is a user as the next poll of one of their feeds sees them.
type Subscriber struct {
	User
	// Due says the user's current digest is not built yet: the next run
	// builds it, and polls their feeds for it.
	Due bool
}

// Turn is when a feed is polled next, and why: what status and
// status.html say instead of the bare earliest allowed poll, which a
// reader takes for the poll itself.
type Turn struct {
	At  time.Time // zero: never (gone, dead) or nobody to poll it for
	Why Why       // Scheduled (a subscriber's digest hour), Retry, Overflow
	// Users are, for Scheduled, the subscribers whose digest hour At is,
	// in the order given.
	Users []string
	// Waits says the feed's own wait (NextPoll: a penalty, a hint,
	// Retry-After) put the turn later than its subscribers' next hour.
	Waits bool
	// Hour says At is the Users' digest hour; false when a weekly user's
	// daily poll, owed all day, waits for the end of the feed's wait.
	Hour bool
}

// NextTurn is the next poll of feed f among its subscribers as of now,
// as FeedsToPoll decides it in the runs to come (cron running every
// hour): a retry once the feed's wait is over; else the first of its
// subscribers' digest hours at which it may be polled (a user whose
// digest is due now polls it at the next run, a weekly user's feeds are
// polled daily too), or an extra poll of a busy feed, whichever comes
// first. Subscribers sharing that hour are all named.
func NextTurn(f FeedState, subs []Subscriber, now time.Time) Turn {
	if f.Gone || f.Dead {
		return Turn{}
	}
	allowed := now
	if f.NextPoll.After(now) {
		allowed = f.NextPoll
	}
	if f.RetryPending {
		return Turn{At: allowed, Why: Retry, Waits: allowed.After(now)}
	}
	var best Turn
	consider := func(t Turn) {
		switch {
		case best.At.IsZero() || t.At.Before(best.At):
			best = t
		case t.At.Equal(best.At) && t.Why == Scheduled && best.Why == Scheduled:
			best.Users = append(best.Users, t.Users...)
		}
	}
	for _, s := range subs {
		consider(s.turn(f, allowed, now))
	}
	if f.OverflowGap > 0 {
		extra := f.NextExtraPoll
		if allowed.After(extra) {
			extra = allowed
		}
		consider(Turn{At: extra, Why: Overflow, Waits: extra.After(f.NextExtraPoll) && extra.After(now)})
	}
	return best
}

// turn is the subscriber's next poll of f, not before allowed.
func (s Subscriber) turn(f FeedState, allowed, now time.Time) Turn {
	daily := s.User
	daily.Weekly = false // a weekly user's feeds are polled daily too
	hour := daily.NextDigest(now)
	owed := s.Due || s.Weekly && s.owesDailyPoll(f.LastPoll, LocalDate(now, s.Location, s.DigestHour))
	if owed {
		hour = now
	}
	t := Turn{At: hour, Why: Scheduled, Users: []string{s.Name}, Hour: true}
	if !allowed.After(hour) {
		return t
	}
	t.Waits = true
	if s.Weekly {
		// From the digest hour on, the day's poll is owed until it is
		// made: at the end of the wait.
		t.At, t.Hour = allowed, false
		return t
	}
	// Missed: the digest is built without it; the first hour at or after
	// the end of the wait.
	t.At = daily.NextDigest(allowed.Add(-time.Nanosecond))
	return t
}

// StateOf is what deciding about a poll needs to know of feed record f.
func StateOf(f domain.Feed) FeedState {
	return FeedState{
		URL: f.URL, LastPoll: f.LastPoll, NextPoll: f.NextPoll, Gone: !f.GoneAt.IsZero(), Dead: !f.DeadAt.IsZero(),
		RetryPending: f.RetryPending, OverflowGap: f.OverflowGap, NextExtraPoll: f.NextExtraPoll,
	}
}
