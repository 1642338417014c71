// Package render turns stored digests into what people read: HTML pages,
// the status page, the per-user Atom feed and the email's headers and
// bodies (package mail composes and sends them). It knows nothing of HTTP
// polling, SQL or SMTP; the caller hands it plain values.
package render

import "time"

// Entry is one feed entry as stored, before any sanitising.
type Entry struct {
	Title     string // may be empty: a display title is derived
	Link      string // the entry's own URL (may be relative to FeedURL)
	Content   string // raw HTML from the feed (full content), unsanitised
	Summary   string // raw HTML/text summary, unsanitised; used when Content is empty
	Author    string
	Published time.Time // zero when the feed gave no usable date
	FirstSeen time.Time
}

// FeedGroup is one feed's entries in a digest, newest first.
type FeedGroup struct {
	FeedURL  string // the subscribed URL
	FeedName string // the feed's title, or its host when it has none
	SiteURL  string // the feed's home page, may be empty
	Entries  []Entry
	// More counts the feed's entries in this digest beyond Entries: a
	// digest lists a bounded number per feed and says how many more.
	More int
}

// Notice tells the reader once about a feed that changed for good.
type Notice struct {
	FeedURL  string
	FeedName string
	Kind     string // "gone" (410), "moved" (301/308, new URL in NewURL), "dead" (90 days of errors), "origin" (moved to another site: user should check)
	NewURL   string
	Detail   string
}

// Digest is one user's digest for one local date.
type Digest struct {
	User      string         // user name, [a-z0-9-]+
	Email     string         // recipient, may be empty
	Date      string         // local date, YYYY-MM-DD
	Location  *time.Location // the user's zone, for showing times
	BuiltAt   time.Time
	IntroHTML string // optional, already-rendered trusted HTML (from Markdown); may be empty
	Groups    []FeedGroup
	Notices   []Notice
}

// DigestRef names one digest in an archive listing.
type DigestRef struct {
	Date    string // YYYY-MM-DD
	Entries int
	BuiltAt time.Time
}

// FeedStatus is one row of the status page: why a feed is or is not polled.
type FeedStatus struct {
	URL          string
	EffectiveURL string // after a permanent redirect; empty when unchanged
	Title        string
	LastPoll     time.Time // zero: never polled
	LastStatus   int       // HTTP status of the last poll, 0 when none or a network error
	LastError    string    // empty when the last poll succeeded
	NextPoll     time.Time // zero: as soon as a subscriber is due
	ErrorCount   int
	Reason       string // why the next poll waits: "penalty (404)", "Retry-After", "max-age hint", ...
	State        string // "ok", "failing", "gone", "dead", "moved"
	Subscribers  []string
	Entries      int
}
