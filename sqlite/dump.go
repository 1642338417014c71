package sqlite

import (
	"context"
	"fmt"
	"iter"

	"feeddigest/domain"
	"feeddigest/store"
)

// The state read whole, to copy it elsewhere (store.Dumper).

var _ store.Dumper = (*Store)(nil)

// DumpSubscriptions lists every subscription with its times.
func (s *Store) DumpSubscriptions(ctx context.Context) ([]store.Subscription, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT user, feed_id, added_at, introduced_at FROM subscriptions ORDER BY user, feed_id")
	if err != nil {
		return nil, fmt.Errorf("dump subscriptions: %w", err)
	}
	defer rows.Close()
	var out []store.Subscription
	for rows.Next() {
		var sub store.Subscription
		var added, introduced int64
		if err := rows.Scan(&sub.User, &sub.FeedID, &added, &introduced); err != nil {
			return nil, fmt.Errorf("dump subscriptions: %w", err)
		}
		sub.AddedAt, sub.IntroducedAt = fromUnix(added), fromUnix(introduced)
		out = append(out, sub)
	}
	return out, rows.Err()
}

// DumpDigests lists every digest, by user and date.
func (s *Store) DumpDigests(ctx context.Context) ([]domain.Digest, error) {
	return s.queryDigests(ctx, "ORDER BY user, date")
}

// DumpEntries yields every entry with its texts, enclosures, fragments,
// first-seen time and when its feed stopped listing it.
func (s *Store) DumpEntries(ctx context.Context) iter.Seq2[domain.Entry, error] {
	return func(yield func(domain.Entry, error) bool) {
		rows, err := s.db.QueryContext(ctx, `SELECT e.id, e.feed_id, f.url, e.key, e.title, e.link, e.content,
			t.content_z, e.summary, t.summary_z, e.author, e.published, e.first_seen, e.enclosures,
			COALESCE(t.fragment_rules, 0), COALESCE(t.shown_title, ''), t.shown_z, e.categories, e.overflow, e.left_at
			FROM entries e JOIN feeds f ON f.id = e.feed_id LEFT JOIN entry_texts t ON t.entry_id = e.id ORDER BY e.id`)
		if err != nil {
			yield(domain.Entry{}, fmt.Errorf("dump entries: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var e domain.Entry
			var pub, seen, left int64
			var contentZ, summaryZ, shownZ []byte
			var enclosures, categories string
			err := rows.Scan(&e.ID, &e.FeedID, &e.FeedURL, &e.Key, &e.Title, &e.Link, &e.Content, &contentZ,
				&e.Summary, &summaryZ, &e.Author, &pub, &seen, &enclosures, &e.Fragments.Rules, &e.Fragments.Title, &shownZ,
				&categories, &e.Overflow, &left)
			e.Categories = store.DecodeCategories(categories)
			if err == nil {
				e.Enclosures, err = decodeEnclosures(enclosures)
			}
			if err == nil {
				err = readTexts(&e, contentZ, summaryZ, shownZ, true)
			}
			if err != nil {
				yield(domain.Entry{}, fmt.Errorf("dump entries: %w", err))
				return
			}
			e.Published, e.FirstSeen, e.LeftAt = fromUnix(pub), fromUnix(seen), fromUnix(left)
			if !yield(e, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(domain.Entry{}, fmt.Errorf("dump entries: %w", err))
		}
	}
}

// DumpGiven yields the entries of every digest, then those withheld.
func (s *Store) DumpGiven(ctx context.Context) iter.Seq2[store.Given, error] {
	return func(yield func(store.Given, error) bool) {
		rows, err := s.db.QueryContext(ctx, `SELECT user, date, entry_id FROM digest_entries
			UNION ALL SELECT user, '', entry_id FROM withheld_entries`)
		if err != nil {
			yield(store.Given{}, fmt.Errorf("dump what users were given: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var g store.Given
			if err := rows.Scan(&g.User, &g.Date, &g.EntryID); err != nil {
				yield(store.Given{}, fmt.Errorf("dump what users were given: %w", err))
				return
			}
			if !yield(g, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(store.Given{}, fmt.Errorf("dump what users were given: %w", err))
		}
	}
}
