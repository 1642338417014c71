package store

import (
	"context"
	"time"

	"feeddigest/domain"
)

// DigestListings gives a back end, embedded in it, the Reader's three
// ways of listing a digest's entries (DigestListing, DigestFeedListing,
// DigestTitles) over the one question it asks, List: of every feed of
// the digest, or of the feed feedURL alone when it is not ""; with the
// entries' texts and fragments, or, titlesOnly, their display titles
// alone.
type DigestListings struct {
	List func(ctx context.Context, user, date, feedURL string, perFeed int, titlesOnly bool) ([]domain.Entry, map[string]int, error)
}

// DigestListing lists a digest's entries (see Reader).
func (l DigestListings) DigestListing(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error) {
	return l.List(ctx, user, date, "", perFeed, false)
}

// DigestFeedListing lists the entries of one feed of a digest (see
// Reader); none for the feed "".
func (l DigestListings) DigestFeedListing(ctx context.Context, user, date, feedURL string, perFeed int) ([]domain.Entry, error) {
	if feedURL == "" {
		return nil, nil
	}
	entries, _, err := l.List(ctx, user, date, feedURL, perFeed, false)
	return entries, err
}

// DigestTitles lists a digest's entries with their titles alone (see
// Reader).
func (l DigestListings) DigestTitles(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error) {
	return l.List(ctx, user, date, "", perFeed, true)
}

// DigestLists gives a back end, embedded in it, the Reader's lists of
// digests (DigestsSince, Digests, Unrendered, Unsent, NotSent,
// InterruptedSends) over the one question it asks, Query: the digests
// that a condition of its own, with its order, picks.
type DigestLists struct {
	Query func(ctx context.Context, where string, args ...any) ([]domain.Digest, error)
	Where DigestsWhere
	// At is a time as the back end's conditions compare it.
	At func(time.Time) any
}

// DigestsWhere are a back end's conditions, each with its order, for
// the lists of DigestLists; each takes the one argument its field says,
// or none.
type DigestsWhere struct {
	DatedSince  string // a date: the digests of that date or later, by user then date
	OfUser      string // a user: the user's digests, newest date first
	Unrendered  string // those whose pages are not written yet, oldest first
	Unsent      string // see Reader.Unsent, oldest first
	NotSent     string // a time (At): see Reader.NotSent, oldest first
	Interrupted string // those whose send was cut off by a crash, oldest first
}

// DigestsSince lists every digest dated date or later (see Reader).
func (l DigestLists) DigestsSince(ctx context.Context, date string) ([]domain.Digest, error) {
	return l.Query(ctx, l.Where.DatedSince, date)
}

// Digests lists a user's digests, newest date first.
func (l DigestLists) Digests(ctx context.Context, user string) ([]domain.Digest, error) {
	return l.Query(ctx, l.Where.OfUser, user)
}

// Unrendered lists digests whose pages are not written yet, oldest first.
func (l DigestLists) Unrendered(ctx context.Context) ([]domain.Digest, error) {
	return l.Query(ctx, l.Where.Unrendered)
}

// Unsent lists the digests to be sent (see Reader).
func (l DigestLists) Unsent(ctx context.Context) ([]domain.Digest, error) {
	return l.Query(ctx, l.Where.Unsent)
}

// NotSent lists every digest that wants sending and is not sent (see
// Reader).
func (l DigestLists) NotSent(ctx context.Context, since time.Time) ([]domain.Digest, error) {
	return l.Query(ctx, l.Where.NotSent, l.At(since))
}

// InterruptedSends lists digests whose send was cut off by a crash.
func (l DigestLists) InterruptedSends(ctx context.Context) ([]domain.Digest, error) {
	return l.Query(ctx, l.Where.Interrupted)
}
