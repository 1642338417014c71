package schedule

import (
	"math/rand/v2"
	"strconv"
	"time"

	"feeddigest/domain"
)

// Class sorts what a poll brought back into what the policy cares about.
type Class int

const (
	Fresh       Class = iota // a new body, parsed
	Unchanged                // 304, same validators, or same body hash
	Gone                     // 410
	NotFound                 // 404
	ServerError              // 5xx (503 without Retry-After included)
	RateLimited              // 429, or 503 with Retry-After
	Transient                // timeout, connection refused or reset, DNS, TLS
	Broken                   // parse error, body too large, other 4xx, too many redirects
)

// Passing says whether a failure of this class is worth a retry between
// subscribers' midnights (Artemis's retry job).
func (c Class) Passing() bool {
	return c == ServerError || c == RateLimited || c == Transient
}

// Failed says whether the poll failed.
func (c Class) Failed() bool { return c != Fresh && c != Unchanged && c != Gone }

// Outcome is one poll's result, as the policy sees it.
type Outcome struct {
	Class      Class
	Status     int
	RetryAfter time.Time     // zero when the server sent none
	Hint       time.Duration // publisher freshness hint (max-age, Expires, ttl, sy:*), 0 when none
	HintSource string        // e.g. "Cache-Control max-age", "RSS ttl"
	Entries    int           // entries in the body (Fresh only)
	New        int           // of which not stored before
	FirstPoll  bool          // the feed had never been polled successfully
}

// Policy holds the numbers of the polling rules.
type Policy struct {
	Floor        time.Duration // least time between two scheduled polls
	HintCap      time.Duration // longest a publisher hint or Retry-After may defer a poll
	MaxPenalty   time.Duration
	DeadAfter    time.Duration // only errors for this long: the feed is dead
	MinOverflow  time.Duration // shortest gap between overflow polls
	NormalPeriod time.Duration // an overflow gap this long is back to normal
}

// DefaultPolicy is the polling policy of docs/design.md.
var DefaultPolicy = Policy{
	Floor:        15 * time.Minute,
	HintCap:      7 * 24 * time.Hour,
	MaxPenalty:   7 * 24 * time.Hour,
	DeadAfter:    90 * 24 * time.Hour,
	MinOverflow:  time.Hour,
	NormalPeriod: 24 * time.Hour,
}

// Salt returns a random extra wait for a deadline d away: up to a quarter
// of d, at most an hour. Deadlines carry it so that installations never
// fall into lock step.
type Salt func(d time.Duration) time.Duration

// RandomSalt draws salts from rng.
func RandomSalt(rng *rand.Rand) Salt {
	return func(d time.Duration) time.Duration {
		limit := min(d/4, time.Hour)
		if limit <= 0 {
			return 0
		}
		return time.Duration(rng.Int64N(int64(limit)))
	}
}

// Next is the feed's schedule after a poll with outcome o at now.
func (p Policy) Next(prev domain.Schedule, o Outcome, now time.Time, salt Salt) domain.Schedule {
	s := prev
	s.LastPoll = now
	switch {
	case o.Class == Gone:
		s.GoneAt, s.RetryPending, s.Reason = now, false, "gone (410): never polled again"
		s.NextPoll = time.Time{}
		return s
	case o.Class.Failed():
		return p.afterFailure(s, o, now, salt)
	}
	s.ErrorCount, s.FirstError, s.RetryPending = 0, time.Time{}, false
	wait, reason := p.Floor, ""
	if hint := min(o.Hint, p.HintCap); hint > wait {
		wait, reason = hint, "publisher hint ("+o.HintSource+")"
	}
	s.NextPoll = now.Add(wait + salt(wait))
	s.Reason = reason
	p.trackOverflow(&s, prev, o, now)
	return s
}

func (p Policy) afterFailure(s domain.Schedule, o Outcome, now time.Time, salt Salt) domain.Schedule {
	s.ErrorCount++
	if s.FirstError.IsZero() {
		s.FirstError = now
	}
	if now.Sub(s.FirstError) >= p.DeadAfter {
		s.DeadAt, s.RetryPending, s.NextPoll = now, false, time.Time{}
		s.Reason = "dead: only errors for 90 days; no longer polled"
		return s
	}
	s.RetryPending = o.Class.Passing()
	if o.Class == RateLimited && !o.RetryAfter.IsZero() {
		until := o.RetryAfter
		if latest := now.Add(p.HintCap); until.After(latest) {
			until = latest
		}
		if until.Before(now) {
			until = now
		}
		s.NextPoll = until.Add(salt(until.Sub(now)))
		s.Reason = "Retry-After"
		return s
	}
	base, why := p.penaltyBase(o)
	penalty := base << min(s.ErrorCount-1, 20)
	if penalty > p.MaxPenalty || penalty <= 0 {
		penalty = p.MaxPenalty
	}
	s.NextPoll = now.Add(min(penalty+salt(penalty), p.MaxPenalty))
	s.Reason = "penalty (" + why + ")"
	return s
}

// penaltyBase is NewsGator's penalty box: 24 h for a 404, 4 h for a
// server error, and an hour, doubling, for everything else.
func (p Policy) penaltyBase(o Outcome) (time.Duration, string) {
	switch o.Class {
	case NotFound:
		return 24 * time.Hour, "404"
	case ServerError:
		return 4 * time.Hour, statusText(o.Status, "server error")
	case RateLimited:
		return time.Hour, statusText(o.Status, "rate limited")
	case Transient:
		return time.Hour, "network error"
	case Broken:
		if o.Status >= 200 && o.Status < 300 {
			return time.Hour, "not a usable feed"
		}
		return time.Hour, statusText(o.Status, "error")
	default:
		return time.Hour, statusText(o.Status, "error")
	}
}

func statusText(status int, fallback string) string {
	if status == 0 {
		return fallback
	}
	return fallback + ", " + strconv.Itoa(status)
}

// trackOverflow keeps a busy feed from losing entries between polls. A
// body where no entry was known means the window rolled past entries we
// never saw: halve the gap that overflowed (down to MinOverflow) and poll
// that often between midnights. The gap doubles back only when a poll a
// whole gap after the last one found fewer than half of the entries new:
// then twice the gap still fits in the window. A poll that came sooner
// (a subscriber's midnight in between) measures nothing about the gap.
// No salt stretches it.
func (p Policy) trackOverflow(s *domain.Schedule, prev domain.Schedule, o Outcome, now time.Time) {
	gap := prev.OverflowGap
	sinceLast := now.Sub(prev.LastPoll)
	switch {
	case o.Class == Fresh && !o.FirstPoll && o.Entries > 0 && o.New == o.Entries:
		if prev.LastPoll.IsZero() {
			sinceLast = p.NormalPeriod
		}
		gap = max(sinceLast/2, p.MinOverflow)
	case gap == 0:
		return
	case sinceLast >= gap && (o.Class == Unchanged || o.New*2 < o.Entries):
		gap *= 2
	}
	if gap >= p.NormalPeriod {
		s.OverflowGap, s.NextExtraPoll = 0, time.Time{}
		return
	}
	s.OverflowGap, s.NextExtraPoll = gap, now.Add(gap)
}
