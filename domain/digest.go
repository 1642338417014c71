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
	Detail  string     `json:"detail,omitempty"`
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
	Reason  string       `json:"reason,omitempty"` // in plain words, "not found (404)"; "" when unknown
	Since   time.Time    `json:"since"`            // the first error of the run
	// Until is when the feed was read again (ProblemRecovered).
	Until time.Time `json:"until,omitzero"`
}

// ProblemState says where a feed that could not be read stands.
type ProblemState string

const (
	ProblemFailing   ProblemState = "failing"   // polls fail, and are tried again
	ProblemRecovered ProblemState = "recovered" // failed since the previous digest, read since
	ProblemGone      ProblemState = "gone"      // 410: never polled again
	ProblemDead      ProblemState = "dead"      // errors for 90 days: no longer polled
)
