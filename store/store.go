// Package store is the contract of feeddigest's state: what the pipeline
// reads and writes (feeds and what was learned about them, entries with
// their first-seen time, users' subscriptions, the digests built and
// sent), the errors it names, and the rules every implementation keeps.
// It holds no SQL: the implementations are named after what they depend
// on (package sqlite), and package storetest runs the same behaviour
// tests against each.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"feeddigest/domain"
)

// Named errors, checked with errors.Is.
var (
	// ErrLocked means another process (another run) holds the state
	// file's lock.
	ErrLocked = errors.New("the state file is locked by another process")
	// ErrNoState means there is no state file to read: nothing has run yet.
	ErrNoState = errors.New("no state file")
	// ErrNoFeed means no feed record has that URL (or ID).
	ErrNoFeed = errors.New("no such feed")
	// ErrDigestExists means a digest for that user and date was built already.
	ErrDigestExists = errors.New("digest already built")
	// ErrNotState means the state exists but holds no feeddigest state.
	ErrNotState = errors.New("not a feeddigest state file")
	// ErrDamaged means the state is corrupt.
	ErrDamaged = errors.New("the state file is damaged")
)

// SchemaError means the state file's schema is not the one this program
// reads: older (opening it for a run migrates it) or newer (a later
// version of the program wrote it).
type SchemaError struct {
	Have, Want int
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("schema version %d, this program reads %d", e.Have, e.Want)
}

// FirstDigestLimit is how many of a feed's newest entries a user's first
// digest, or a feed newly added to a user, shows.
const FirstDigestLimit = 5

// Reader reads the state. It is all that status and export need, and it
// works while a run holds the state.
type Reader interface {
	// Feeds returns every feed record, by URL.
	Feeds(ctx context.Context) ([]domain.Feed, error)
	// Feed returns the record of one subscribed URL (ErrNoFeed: none).
	Feed(ctx context.Context, url string) (domain.Feed, error)
	// Subscribers returns, per feed URL, the users subscribed to it.
	Subscribers(ctx context.Context) (map[string][]string, error)
	// EntryCounts returns how many entries are stored per feed URL.
	EntryCounts(ctx context.Context) (map[string]int, error)

	// HasDigest says whether user already has a digest for the local date.
	HasDigest(ctx context.Context, user, date string) (bool, error)
	// Digests lists a user's digests, newest date first.
	Digests(ctx context.Context, user string) ([]domain.Digest, error)
	// Unrendered lists digests whose pages are not written yet, oldest first.
	Unrendered(ctx context.Context) ([]domain.Digest, error)
	// Unsent lists digests that want sending, are not sent yet, were not
	// given up, and whose last attempt (if any) failed cleanly; oldest first.
	Unsent(ctx context.Context) ([]domain.Digest, error)
	// NotSent lists every digest that wants sending and is not sent: those
	// still to be tried, those cut off by a crash, and those given up at
	// or after since; oldest first. For showing why mail did not go out.
	NotSent(ctx context.Context, since time.Time) ([]domain.Digest, error)
	// InterruptedSends lists digests whose send was cut off by a crash.
	InterruptedSends(ctx context.Context) ([]domain.Digest, error)
	// DigestListing returns what a digest lists (an entry with
	// Fragments without its raw texts, which only serve to make them):
	// at most perFeed of each
	// feed's newest entries in it (all when perFeed <= 0), grouped by
	// feed in the order of their URLs and newest first within a feed, and
	// for each feed URL how many more entries the digest holds beyond
	// those. The others were delivered with the digest all the same (they
	// never show in a later one); only their texts are not read.
	DigestListing(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error)
	// DigestTitles is DigestListing for showing the entries' display
	// titles only (an Atom feed): entries with Fragments come with their
	// Title and Rules alone.
	DigestTitles(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error)
	// DigestFeedListing is DigestListing of one feed of the digest (by its
	// URL, as DigestListing gives it): its entries listed, in the same
	// order. A page is written one feed at a time from it, so a large
	// digest is never held whole.
	DigestFeedListing(ctx context.Context, user, date, feedURL string, perFeed int) ([]domain.Entry, error)
	// DigestIntact says whether every entry of a digest is still stored
	// with its texts: whether its page, written again, shows what it
	// showed. Old entries lose their texts (DropTexts) and then themselves
	// (Prune). False for a digest that does not exist.
	DigestIntact(ctx context.Context, user, date string) (bool, error)

	// UnfinishedAttempts returns the polls started (BeginAttempt) by a run
	// that died before saving them, by feed URL.
	UnfinishedAttempts(ctx context.Context) ([]Attempt, error)

	// Damaged names the state in an error raised because the state is
	// corrupt (ErrDamaged), saying what to do; other errors pass unchanged.
	Damaged(err error) error
	Close() error
}

// Store reads and writes the state, for one run at a time.
type Store interface {
	Reader

	// SyncSubscriptions makes the subscriptions (user -> feed URLs) match
	// the configuration: feed records are created for new URLs, a new
	// subscription is stamped with now (so its first digest takes only
	// the newest entries), and subscriptions no longer configured are
	// dropped. Feed records and their entries stay, for other subscribers
	// and for a later re-subscription.
	SyncSubscriptions(ctx context.Context, subs map[string][]string, now time.Time) error

	// BeginAttempt records, durable at once, that a poll of the feed is
	// about to read its body. A feed whose body kills the process while it
	// is read (a parser bomb, an out-of-memory kill) would otherwise be
	// polled again by the next run and kill it again, for ever; a mark
	// found by the next run (UnfinishedAttempts) is a poll that never
	// finished. The poll's save (PollTx.UpdateFeed) clears it.
	BeginAttempt(ctx context.Context, feedID int64, now time.Time) error
	// DropAttempts forgets every mark: for a pass that stopped polling on
	// purpose (interrupted), whose unfinished polls did not fail.
	DropAttempts(ctx context.Context) error
	// BeginPoll starts the transaction that saves one poll of the feed.
	BeginPoll(ctx context.Context, feedID int64) (PollTx, error)

	// BuildDigest records the digest of user for date, built at now, in
	// one transaction: the entries of the user's feeds first seen since
	// the previous digest was built (at most FirstDigestLimit of each
	// feed's newest for a first digest or a newly added feed, the others
	// withheld from the user for good), never an entry the user was
	// already given, notices of feeds that went away or moved since then,
	// and the user's feeds that could not be read since then (failing
	// now, failed and read again since, gone or dead since), each with
	// its problem and since when. ErrDigestExists when the user has a
	// digest for date.
	BuildDigest(ctx context.Context, user, date string, now time.Time, sendWanted bool) (domain.Digest, error)
	// MarkRendered records that a digest's pages (and outbox file) are written.
	MarkRendered(ctx context.Context, user, date string, now time.Time) error
	// BeginSend records, before the SMTP conversation, that a send started.
	BeginSend(ctx context.Context, user, date string, now time.Time) error
	// MarkSent records a digest sent at now.
	MarkSent(ctx context.Context, user, date string, now time.Time) error
	// MarkSendFailed records a failed attempt to send a digest at now: one
	// more attempt, its error, and whether the failure was permanent.
	MarkSendFailed(ctx context.Context, user, date string, now time.Time, why string, permanent bool) error
	// SkipSend records that a digest built to be mailed is not to be
	// after all ([email] skip_empty: it has nothing to say). It no longer
	// wants sending, so it is neither sent nor listed as unsent (Unsent,
	// NotSent); a send already started or done is left as it is.
	SkipSend(ctx context.Context, user, date string) error
	// GiveUpSend stops all further attempts to send a digest; why says so
	// to the people reading status. Its page stays.
	GiveUpSend(ctx context.Context, user, date string, now time.Time, why string) error

	// StaleFragments lists, by ID, at most limit entries after afterID
	// that have texts but no fragments made by rules (domain.Fragments):
	// stored before fragments were, or when the rules were other. Each
	// comes with its texts and FeedURL, for making them (SaveFragments).
	StaleFragments(ctx context.Context, rules int, afterID int64, limit int) ([]domain.Entry, error)
	// SaveFragments stores the Fragments of entries, by ID, given as
	// StaleFragments listed them: with their texts, which are stored
	// again with the fragments.
	SaveFragments(ctx context.Context, entries []domain.Entry) error
	// Prune deletes entries first seen before cutoff, and with them their
	// digests' links, except those a digest still waits to render or send.
	Prune(ctx context.Context, cutoff time.Time) (int64, error)
	// DropTexts forgets the full texts of entries first seen before
	// cutoff, keeping what identifies them (so they are never shown again)
	// and their titles, except those a digest still waits to render or
	// send. The texts are most of the state's size.
	DropTexts(ctx context.Context, cutoff time.Time) (int64, error)
	// Compact gives the space freed back where the state lives, when
	// enough of it is free.
	Compact(ctx context.Context) error
}

// PollTx saves one poll of one feed in one transaction: its entries
// (SaveEntries), then the feed record made of what they were
// (UpdateFeed), which also clears the poll's attempt mark. The record is
// written last so that a crash before Commit leaves the feed due again,
// never marked done without its entries. Rollback undoes what was not
// committed; deferred, it is harmless after Commit.
type PollTx interface {
	// SaveEntries stores the feed's entries, those not known first seen
	// at now, with their Fragments, and says what it found. Entries
	// already known keep their first-seen time; their text is refreshed
	// but they are not shown again.
	SaveEntries(ctx context.Context, entries []domain.Entry, now time.Time) (SaveStats, error)
	// UpdateFeed writes the feed record (of the feed the poll began with)
	// and clears the poll's attempt mark.
	UpdateFeed(ctx context.Context, f domain.Feed) error
	Commit() error
	Rollback() error
}

// SaveStats says what a save found.
type SaveStats struct {
	New   int // entries stored for the first time
	Known int // entries of the body that were stored already
}

// Attempt is a poll that started and never saved its result.
type Attempt struct {
	Feed    domain.Feed
	Started time.Time
}
