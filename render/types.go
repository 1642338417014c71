// Package render turns stored digests into what people read: HTML pages,
// the status page, the per-user Atom feed and the email's headers and
// bodies (package mail composes and sends them). It knows nothing of HTTP
// polling, SQL or SMTP; the caller hands it plain values. What a poll
// makes of an entry's texts and stores (sanitised HTML, display title,
// excerpt, word count) is package ingest's: render shows it.
package render

import (
	"iter"
	"time"

	"feeddigest/domain"
	"feeddigest/locale"
)

// FeedGroup is one feed's entries in a digest, newest first.
type FeedGroup struct {
	FeedURL  string // the subscribed URL
	FeedName string // the user's title for the feed, else the feed's own, else its host
	SiteURL  string // the feed's home page, may be empty
	// Folder groups the feed under a heading; "" for the feeds without
	// one. A digest shows its folders in the order of their first feed in
	// Groups, and feeds in their order within a folder.
	Folder string
	// Lang is the language of the feed's texts as a BCP 47 tag ("ar"),
	// "" when the feed gives none; its entries carry it (lang).
	Lang    string
	Entries []domain.Entry
	// Listed, when set, yields the entries the page lists in full (texts
	// and fragments), read as the feed's section is written: the page of a
	// large digest is written one feed at a time and never held whole.
	// Entries then need only be what the contents count and the Atom feed
	// shows (see store.Reader's DigestTitles); the email shows Entries.
	Listed iter.Seq2[domain.Entry, error]
	// Unread counts the feed's entries listed in the digest but not given
	// in Entries because no email could carry them (the entries before
	// them already fill one): the email counts them among those on the
	// page, and never shows them.
	Unread int
	// More counts the feed's entries in this digest beyond Entries: a
	// digest lists a bounded number per feed and says how many more.
	More int
	// Full is how many of the feed's first entries show in full (excerpt
	// and content, the key full_entries); the rest of Entries follow as a
	// compact list of linked titles with their times, so that a busy feed
	// stays calm. 0: all of them.
	Full int
	// Older counts the feed's older entries this digest left out when it
	// introduced the feed to the user (their first digest of it starts
	// with its newest); 0 for a feed introduced before.
	Older int
	// Lands is where the feed's polls land (domain.Feed.Lands), ""
	// when unknown: two groups that land on one URL are one feed that
	// the user lists twice, never "also in" each other.
	Lands string
	// AlsoIn names, by entry ID, the other feeds that carry the story
	// of one of Entries; Elsewhere holds the IDs of the feed's entries
	// shown under another feed's as one story (see MergeStories).
	AlsoIn    map[int64][]string
	Elsewhere map[int64]bool
}

// Notice tells the reader once about a feed that changed for good.
type Notice struct {
	domain.Notice
	FeedName string
}

// Problem names a feed of the user's that could not be read since the
// previous digest.
type Problem struct {
	domain.Problem
	FeedName string
}

// Digest is one user's digest for one local date.
type Digest struct {
	User string // user name, [a-z0-9-]+
	// Lang is the reader's language, in which everything the digest
	// says in its own words is worded (nil: English).
	Lang  *locale.Locale
	Email string // recipient, may be empty
	// Unsubscribe is the mailto: or https: address the operator handles
	// to stop this user's digests ([email] unsubscribe, for this user);
	// the email names it in List-Unsubscribe. "" for none.
	Unsubscribe string
	// Weekly says the digest is a weekly user's, identified by the first
	// day of its week and titled by the days it covers: from the day
	// Since falls on to the day of BuiltAt (see daysCovered).
	Weekly   bool
	Date     string         // local date, YYYY-MM-DD
	Location *time.Location // the user's zone, for showing times
	// Since is when the user's previous digest was built, zero for a
	// first digest: this one holds what was first seen after it.
	Since     time.Time
	BuiltAt   time.Time
	IntroHTML string      // optional, already-rendered trusted HTML (from Markdown); may be empty
	Groups    []FeedGroup // in the user's order (see FeedGroup.Folder)
	Notices   []Notice
	// Problems are the feeds that could not be read, in the user's order.
	Problems []Problem
	// LeftOut is how many entries the user's rules left out (shown as
	// one quiet line, never in the counts).
	LeftOut int
	// LeftOutTitles are the first of those, which the page lists under
	// the quiet line for the reader to check a rule.
	LeftOutTitles []domain.LeftOutTitle
	// MailInDoubt is the date of the user's previous digest when its
	// email may not have arrived (its send was cut off between the end of
	// the message's data and the mail server's answer, and it is not sent
	// again): this digest says so, with a link to its page. "" for none.
	MailInDoubt string
	// Prev and Next are the user's digests just before and after this
	// one (Date "" when there is none): the page links them, named as the
	// archive names them.
	Prev, Next DigestRef
	// Links, when not nil, are the links mentioned as the digest's page
	// counted them (PageBody.Links): the email shows them without reading
	// every entry's links again.
	Links []HostCount
}

// DigestRef names one digest in an archive listing: a weekly user's by
// the days it covers, as its page's title (see Digest).
type DigestRef struct {
	Date    string // YYYY-MM-DD
	Entries int
	BuiltAt time.Time
	// Weekly, Since and Location are Digest's: a weekly digest is listed
	// by the days from Since to BuiltAt in the user's zone.
	Weekly   bool
	Since    time.Time
	Location *time.Location
	// Lang is the language the digest is named in (nil: English).
	Lang *locale.Locale
}

// UserStatus is one user's row of the status page: when their next
// digest comes.
type UserStatus struct {
	Name       string
	Rhythm     string         // e.g. "daily at 00:00 Europe/London", "weekly on Monday at 06:00 Europe/London"
	Location   *time.Location // the user's zone: NextDigest is shown in it
	Due        bool           // the current digest is not built yet: at the next run
	NextDigest time.Time      // when the next digest falls due; zero when Due
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
	// Server is what polling has taught about the feed's server, in plain
	// words ("answers 304; trusts ETag"): why it is polled the way it is.
	Server      string
	State       domain.FeedState
	Subscribers []string
	Entries     int
}
