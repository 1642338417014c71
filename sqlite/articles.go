package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// storedEntry says whether an entry is stored for the feed, by key or by
// link.
const storedEntry = `SELECT EXISTS (SELECT 1 FROM entries WHERE feed_id = ?1 AND (key = ?2 OR link = ?3))`

// claimArticle claims an entry's page for its article, or takes over the
// claim of a run that died, unless the page was given up (asked for
// ?4 times).
const claimArticle = `INSERT INTO article_claims (feed_id, key, claimed_at, asks) VALUES (?1, ?2, ?3, 0)
	ON CONFLICT (feed_id, key) DO UPDATE SET claimed_at = excluded.claimed_at WHERE article_claims.asks < ?4`

// ClaimArticles records that the pages of new entries are to be fetched
// (see store.Store.ClaimArticles), in one transaction committed before
// any of them is asked for.
func (s *Store) ClaimArticles(ctx context.Context, feedID int64, candidates []domain.Entry, limit int, now time.Time) ([]string, error) {
	var keys []string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		fresh, err := freshEntries(ctx, tx, feedID, candidates)
		if err != nil {
			return err
		}
		readers, firstRead, err := articleReaders(ctx, tx, feedID)
		if err != nil {
			return err
		}
		shown := store.MayBeShown(fresh, readers, firstRead, now)
		keys, err = store.ClaimInOrder(shown, limit, func(e domain.Entry) (bool, error) {
			res, err := tx.ExecContext(ctx, claimArticle, feedID, e.Key, unix(now), store.ArticleTries)
			if err != nil {
				return false, err
			}
			n, _ := res.RowsAffected()
			return n == 1, nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim the articles of feed %d: %w", feedID, err)
	}
	return keys, nil
}

// freshEntries are the candidates with a link that the feed does not
// hold yet, in order (store.FreshEntries).
func freshEntries(ctx context.Context, tx *sql.Tx, feedID int64, candidates []domain.Entry) ([]domain.Entry, error) {
	return store.FreshEntries(candidates, func(e domain.Entry) (stored bool, err error) {
		err = tx.QueryRowContext(ctx, storedEntry, feedID, e.Key, e.Link).Scan(&stored)
		return stored, err
	})
}

// articleReaders are the feed's subscriptions as store.MayBeShown reads
// them, and when its entries were first seen from (zero: never).
func articleReaders(ctx context.Context, tx *sql.Tx, feedID int64) ([]store.ArticleReader, time.Time, error) {
	rows, err := tx.QueryContext(ctx, "SELECT added_at, introduced_at FROM subscriptions WHERE feed_id = ?", feedID)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer rows.Close()
	var readers []store.ArticleReader
	for rows.Next() {
		var added, introduced int64
		if err := rows.Scan(&added, &introduced); err != nil {
			return nil, time.Time{}, err
		}
		readers = append(readers, store.ArticleReader{AddedAt: fromUnix(added), IntroducedAt: fromUnix(introduced)})
	}
	if err := rows.Err(); err != nil {
		return nil, time.Time{}, err
	}
	var firstRead int64
	err = tx.QueryRowContext(ctx, "SELECT COALESCE(MIN(first_seen), 0) FROM entries WHERE feed_id = ?", feedID).Scan(&firstRead)
	return readers, fromUnix(firstRead), err
}

// AskArticle counts one more asking of a claimed page (see
// store.Store.AskArticle), committed at once.
func (s *Store) AskArticle(ctx context.Context, feedID int64, key string) error {
	if _, err := s.db.ExecContext(ctx, "UPDATE article_claims SET asks = asks + 1 WHERE feed_id = ? AND key = ?", feedID, key); err != nil {
		return fmt.Errorf("ask the article of %s in feed %d: %w", key, feedID, err)
	}
	return nil
}

// ArticleAnswered clears the count of a page whose answer came (see
// store.Store.ArticleAnswered), committed at once.
func (s *Store) ArticleAnswered(ctx context.Context, feedID int64, key string) error {
	if _, err := s.db.ExecContext(ctx, "UPDATE article_claims SET asks = 0 WHERE feed_id = ? AND key = ?", feedID, key); err != nil {
		return fmt.Errorf("the answer for the article of %s in feed %d: %w", key, feedID, err)
	}
	return nil
}
