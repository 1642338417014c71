package store

import (
	"context"

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
