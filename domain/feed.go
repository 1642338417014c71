package domain

import "time"

// Feed is everything kept about one subscribed feed URL: its identity,
// the validators of the last body, what was learned about its server, and
// when it may be polled next.
type Feed struct {
	ID           int64
	URL          string // as configured: the subscription's identity
	EffectiveURL string // where it is polled after a permanent redirect; "" = URL
	PendingURL   string // a permanent redirect to another origin, waiting for the user
	Title        string
	SiteURL      string
	Language     string // the feed's language as a BCP 47 tag ("ar"), "" when it gives none

	// Validators and body hash, stored exactly as received.
	ETag         string
	LastModified string
	BodyHash     string
	BodyError    string // the body they describe is not a usable feed: why; "" when it is
	Repaired     string // what was mended in the last body read, "" when nothing

	LastSuccess time.Time
	LastStatus  int
	LastError   string

	// The last thing that went wrong, as a code with its facts (worded
	// in each reader's language when a digest is written), when, and
	// since when it went wrong then: kept after the feed recovers, so a
	// digest can say that it could not be read for a while since the
	// previous one. Problem is the words an older version kept instead
	// of a code ("not found (404)"): shown as they are where ProblemCode
	// is zero, and no longer written.
	ProblemCode  ProblemCode
	Problem      string
	ProblemAt    time.Time
	ProblemSince time.Time

	// Schedule is when the feed may be polled next, and why.
	Schedule

	MovedAt      time.Time // EffectiveURL changed by a permanent redirect
	MovedFrom    string
	OriginFlagAt time.Time // PendingURL was set

	// Learned server behaviour (see fetch: when HEAD pays).
	Answers304         bool
	RefusesHEAD        bool // no HEAD: refused or failed, no validators that tell, or found stale
	IgnoresConditional bool
	Distrust           Distrust  // validators found lying: never trusted again
	LastGet            time.Time // a GET of the feed last had an answer (a body or a 304)

	TTL   time.Duration // the feed's own ttl / sy:updatePeriod hint
	Polls int           // polls that got an answer with a body or 304

	// Whole articles (full_text): of the last poll that asked for its new
	// entries' pages, how many it asked for and how many held an article
	// (the others kept the feed's own text); 0 and 0 for a feed without
	// full_text, or before its first such poll.
	ArticlesAsked int
	ArticlesRead  int
}

// Distrust is what a feed's server has shown of its validators: one it
// lied with is never trusted again, nor sent back to it. It only grows.
type Distrust struct {
	ETag         bool // the ETag stayed the same while the body changed
	LastModified bool // Last-Modified stayed the same while the body changed
	// Conditional: a conditional GET was answered 400, 413 or 431, and the
	// same GET without validators in full: no validator is sent again.
	Conditional bool
}

// Or is what d and o have shown together.
func (d Distrust) Or(o Distrust) Distrust {
	return Distrust{ETag: d.ETag || o.ETag, LastModified: d.LastModified || o.LastModified,
		Conditional: d.Conditional || o.Conditional}
}

// Schedule is the scheduling part of a feed record: what the polling
// rules (package schedule) read and decide after each poll.
type Schedule struct {
	LastPoll      time.Time
	NextPoll      time.Time     // no scheduled poll before this
	Reason        string        // why NextPoll is where it is
	ErrorCount    int           // consecutive failed polls
	FirstError    time.Time     // start of the current run of errors
	RetryPending  bool          // failed for a passing reason: poll again when allowed
	GoneAt        time.Time     // 410: never polled again
	DeadAt        time.Time     // 90 days of errors: no longer polled
	OverflowGap   time.Duration // >0: extra polls every gap, to not miss entries
	NextExtraPoll time.Time
}

// PollURL is the URL a poll should request.
func (f Feed) PollURL() string {
	if f.EffectiveURL != "" {
		return f.EffectiveURL
	}
	return f.URL
}

// Lands is where a poll of the feed lands now, normalised
// (NormalizeFeedURL): the target of a permanent redirect to another site
// that waits for the user (PendingURL; its body is read there all the
// same), else PollURL. Two records that land on one URL are one feed
// known by two addresses (an old one that answers 301 onto the new, a
// web page and the feed it names, two old ones moved to one new): a pass
// polls it once, and a digest of a user who lists both shows it once.
func (f Feed) Lands() string {
	u := f.PollURL()
	if f.PendingURL != "" {
		u = f.PendingURL
	}
	if n, err := NormalizeFeedURL(u); err == nil {
		return n
	}
	return u
}

// FeedState is a feed's health, as the status page and command show it.
type FeedState string

const (
	FeedNew       FeedState = "new"     // never polled yet
	FeedOK        FeedState = "ok"      // the last poll succeeded
	FeedFailing   FeedState = "failing" // the last polls failed; retried after a penalty
	FeedGone      FeedState = "gone"    // 410: never polled again
	FeedDead      FeedState = "dead"    // only errors for 90 days: no longer polled
	FeedMoved     FeedState = "moved"   // polled at the target of a permanent redirect
	FeedMovedAway FeedState = "moved to another site?"
)

// State is the feed's health: the first of gone, dead, failing, moved
// (to another site, waiting for the user, or followed), new, ok.
func (f Feed) State() FeedState {
	switch {
	case !f.GoneAt.IsZero():
		return FeedGone
	case !f.DeadAt.IsZero():
		return FeedDead
	case f.ErrorCount > 0:
		return FeedFailing
	case f.PendingURL != "":
		return FeedMovedAway
	case f.EffectiveURL != "":
		return FeedMoved
	case f.LastPoll.IsZero():
		return FeedNew
	}
	return FeedOK
}

// Stopped says whether a feed in this state is never polled again.
func (s FeedState) Stopped() bool { return s == FeedGone || s == FeedDead }
