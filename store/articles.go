package store

import (
	"time"

	"feeddigest/domain"
)

// ArticleTries is how many times in a row a page claimed for its article
// may be asked for by runs that die before its answer (see
// Store.AskArticle). A kill from outside lands on whatever page is being
// asked for, so a page cut short once is asked again, as a feed cut
// short once is read again; a page cut short twice in a row is taken
// for the cause (a page that kills the process), and given up: its entry
// keeps the feed's own text, and no further run dies on it.
const ArticleTries = 2

// ClaimInOrder is ClaimArticles's rule, for both back ends: candidates
// with a link are offered to claim in order until limit of them are
// claimed, and their keys are returned. claim takes an entry's page
// unless it was given up (asked for ArticleTries times), and says
// whether it did.
func ClaimInOrder(candidates []domain.Entry, limit int, claim func(domain.Entry) (bool, error)) ([]string, error) {
	var keys []string
	for _, e := range candidates {
		if len(keys) >= limit {
			break
		}
		if e.Link == "" {
			continue
		}
		claimed, err := claim(e)
		if err != nil {
			return nil, err
		}
		if claimed {
			keys = append(keys, e.Key)
		}
	}
	return keys, nil
}

// FreshEntries are the candidates with a link that stored says the feed
// does not hold yet, in order: ClaimArticles's first step, for both back
// ends, which answer stored with a query of their own.
func FreshEntries(candidates []domain.Entry, stored func(domain.Entry) (bool, error)) ([]domain.Entry, error) {
	var fresh []domain.Entry
	for _, e := range candidates {
		if e.Link == "" {
			continue
		}
		held, err := stored(e)
		if err != nil {
			return nil, err
		}
		if !held {
			fresh = append(fresh, e)
		}
	}
	return fresh, nil
}

// ArticleReader is what ClaimArticles needs of a subscription to a feed: when
// it was added, and when a digest introduced the feed (zero: none yet).
type ArticleReader struct {
	AddedAt, IntroducedAt time.Time
}

// MayBeShown keeps, of fresh (a poll's entries at now that the state
// does not hold yet, of a feed whose entries were first seen from
// firstRead on; zero or now: this is its first read), those some digest
// of the feed's readers may show, in their order: the pages of the
// others are never worth a request. A reader the feed was introduced to
// is shown every new entry. A first digest (or a feed newly added)
// shows, of the entries it introduces, all the news and, of the rest,
// the newest up to FirstDigestLimit in all (see Introduce): so an entry
// that is news to no reader, and that has FirstDigestLimit fresh entries
// dated strictly after it, is left out by every reader's introduction.
// An undated entry is always kept: its place among the newest is its
// first-seen time, which only the save settles.
func MayBeShown(fresh []domain.Entry, readers []ArticleReader, firstRead, now time.Time) []domain.Entry {
	now = now.Truncate(time.Second) // as the state keeps times
	if firstRead.IsZero() || firstRead.After(now) {
		firstRead = now
	}
	for _, r := range readers {
		if !r.IntroducedAt.IsZero() {
			return fresh
		}
	}
	var kept []domain.Entry
	for _, e := range fresh {
		if e.Published.IsZero() || newerThan(fresh, e.Published) < FirstDigestLimit || newsToAny(e, readers, firstRead, now) {
			kept = append(kept, e)
		}
	}
	return kept
}

// newerThan counts the entries dated strictly after t.
func newerThan(entries []domain.Entry, t time.Time) int {
	n := 0
	for _, e := range entries {
		if e.Published.After(t) {
			n++
		}
	}
	return n
}

// newsToAny says whether an entry first seen at now is news (Newcomers)
// to one of readers.
func newsToAny(e domain.Entry, readers []ArticleReader, firstRead, now time.Time) bool {
	for _, r := range readers {
		offered := []Offered{{Published: e.Published, FirstSeen: now}}
		if Newcomers(offered, r.AddedAt, firstRead)[0].News {
			return true
		}
	}
	return false
}
