package domain

import "time"

// Digest is one built digest of one user for one local date, and what
// became of its sending.
type Digest struct {
	User       string
	Date       string // local date, YYYY-MM-DD
	Since      time.Time
	BuiltAt    time.Time
	Notices    []Notice
	Problems   []Problem // the user's feeds that could not be read since the previous digest
	EntryCount int
	LeftOut    int // entries the user's rules left out (not in EntryCount)
	// LeftOutTitles are the first of those, newest first, as the page
	// lists them for the reader to check a rule (at most
	// MaxLeftOutListed; LeftOut says how many in all).
	LeftOutTitles []LeftOutTitle
	// Backlogs are the feeds this digest introduced to its user (their
	// first digest of the feed) leaving older entries out, and how many.
	Backlogs   []Backlog
	RenderedAt time.Time
	SendWanted bool
	SentAt     time.Time
	SendError  string
	// SendStarted is set while a run holds the send (its claim). A claim
	// whose run died before the message's data ended is free again: the
	// server cannot have taken the mail, and the next run sends it.
	SendStarted time.Time
	// SendDataEnded is set just before the end of the message's data
	// goes to the server: from then on the server may have taken it.
	// Still set without SentAt at a later run, the run died (or the
	// server never answered) between the end of the data and the
	// answer: the mail may or may not have gone, and it is not sent
	// again automatically.
	SendDataEnded time.Time
	// Failed sends: how many, when the last failed (its error is
	// SendError), and whether that failure was permanent (a 5xx reply, a
	// refused login) rather than passing.
	SendAttempts  int
	SendFailedAt  time.Time
	SendPermanent bool
	// SendGivenUp is when retrying stopped for good, and why.
	SendGivenUp    time.Time
	SendGivenUpWhy string
}

// Backlog records, inside a digest, a feed it introduced to its user cut
// to its newest entries: Older counts the entries it left out.
type Backlog struct {
	FeedURL string `json:"feed_url"`
	Older   int    `json:"older"`
}

// Notice records, inside a digest, a feed that changed for good.
type Notice struct {
	FeedURL string     `json:"feed_url"`
	Kind    NoticeKind `json:"kind"`
	NewURL  string     `json:"new_url,omitempty"`
	// LastError is the error a dead feed last gave, as the server or the
	// network said it: a fact, worded around when a digest is written.
	LastError string `json:"last_error,omitempty"`
	// Detail is what an older version kept instead: words ("last error:
	// HTTP 500"), shown as they were. No longer written.
	Detail string `json:"detail,omitempty"`
}

// NoticeKind says how a feed changed.
type NoticeKind string

const (
	NoticeGone   NoticeKind = "gone"   // 410: no longer polled
	NoticeDead   NoticeKind = "dead"   // 90 days of errors: no longer polled
	NoticeMoved  NoticeKind = "moved"  // a permanent redirect, followed: NewURL
	NoticeOrigin NoticeKind = "origin" // a permanent redirect to another site, not followed: the user should check NewURL
)

// Problem records, inside a digest, a feed of the user's that could not
// be read since the previous digest.
type Problem struct {
	FeedURL string       `json:"feed_url"`
	State   ProblemState `json:"state"`
	// Code is why, worded when the digest's page or email is written;
	// zero when unknown, or in a digest an older version built, which
	// kept the words instead (Reason, "not found (404)", shown as they
	// are).
	Code   ProblemCode `json:"code,omitzero"`
	Reason string      `json:"reason,omitempty"`
	Since  time.Time   `json:"since"` // the first error of the run
	// Until is when the feed was read again (ProblemRecovered).
	Until time.Time `json:"until,omitzero"`
	// Again says the feed's problem was named in an earlier digest and
	// goes on: a short reminder, which the Subject does not mention.
	Again bool `json:"again,omitempty"`
	// Quiet says the feed goes on failing and was named lately: the
	// digest does not name it, but does not call the day quiet either.
	Quiet bool `json:"quiet,omitempty"`
}

// Named says the digest names the problem (in full, or as a reminder).
func (p Problem) Named() bool { return !p.Quiet }

// ProblemState says where a feed that could not be read stands.
type ProblemState string

const (
	ProblemFailing   ProblemState = "failing"   // polls fail, and are tried again
	ProblemRecovered ProblemState = "recovered" // failed since the previous digest, read since
	ProblemGone      ProblemState = "gone"      // 410: never polled again
	ProblemDead      ProblemState = "dead"      // errors for 90 days: no longer polled
)

// MaxLeftOutListed bounds the entries a digest lists of those its
// user's rules left out: a rule that leaves out a hundred entries lists
// the first and says how many more.
const MaxLeftOutListed = 20

// LeftOutTitle is an entry a user's rules left out of a digest, as its
// page lists it: its title and link, as the feed gives them.
type LeftOutTitle struct {
	Title string `json:"title,omitempty"`
	Link  string `json:"link,omitempty"`
	Feed  string `json:"feed,omitempty"` // the feed's URL, which a relative link is resolved against
}
