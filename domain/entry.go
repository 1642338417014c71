package domain

import "time"

// Entry is one feed entry: as parsed from a body (Key to Enclosures), and
// as stored (with its ID, its feed, and when it was first seen).
type Entry struct {
	ID      int64
	FeedID  int64
	FeedURL string
	Key     string // identity within the feed: "id:<guid>", else "link:<url>", else "hash:<sha256 of title and content>"
	Title   string // may be empty: pages derive a display title
	Link    string // the entry's own URL, absolute when parsed
	Content string // raw HTML from the feed (full content), unsanitised
	Summary string // raw HTML/text summary, unsanitised; shown when Content is empty
	Author  string
	// Categories are the entry's tags as the feed gives them, bounded
	// in number and length when parsed; rules match them.
	Categories []string
	Published  time.Time // zero when the feed gave no usable date
	// Enclosures are the files the entry carries: a podcast episode's
	// audio, a video. Bounded in number and size when parsed.
	Enclosures []Enclosure
	FirstSeen  time.Time
	// Fragments are the entry as shown; a stored entry without texts
	// (dropped, see store.Store.DropTexts) has none.
	Fragments Fragments
	// Overflow marks an entry past what a digest shows of its poll: it
	// was stored without its texts and never gains them (see store).
	// Read and written only by a copy of a whole state (migrate).
	Overflow bool
	// LeftAt is when the feed's body stopped listing the entry, zero
	// while its latest body lists it: its retention runs from then (see
	// store.Store.Prune). Read and written only by a copy of a whole
	// state (migrate).
	LeftAt time.Time
}

// Enclosure is a file an entry carries (RSS <enclosure>, Atom
// rel="enclosure", JSON Feed attachments).
type Enclosure struct {
	URL      string        // absolute http(s) URL
	Type     string        // MIME type as the feed gives it ("audio/mpeg"), "" when none
	Length   int64         // size in bytes, 0 when unknown
	Duration time.Duration // playing time (itunes:duration), 0 when unknown
}

// Fragments are what a digest shows of an entry, made once when the
// entry is stored (package ingest makes them, ingest.FragmentRules says
// by which rules) so that pages, email and Atom never parse or sanitise
// feed HTML again. Rules 0 means there are none: render has ingest make
// them from the texts when it shows the entry.
type Fragments struct {
	Rules   int    // the version of the rules that made them
	Title   string // the display title, plain text
	Excerpt string // a short plain-text taste of the text
	// HTML is the sanitised content (else summary): relative URLs
	// resolved against the entry's link, rel="noopener noreferrer" on
	// links, headings from h4 down.
	HTML string
	// Whole says the excerpt is all of HTML's text.
	Whole bool
	// Words is the length of the text in words (a CJK character half
	// of one), for the reading time a digest shows.
	Words int
	// Links are the targets of HTML's links, in order, for a digest's
	// "Links mentioned".
	Links []string
}
