package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// claimArticle claims an entry's page for its article unless the entry
// is stored (by key or link) or its page was claimed already.
const claimArticle = `INSERT OR IGNORE INTO article_claims (feed_id, key, claimed_at)
	SELECT ?1, ?2, ?4 WHERE NOT EXISTS (SELECT 1 FROM entries WHERE feed_id = ?1 AND (key = ?2 OR link = ?3))`

// ClaimArticles records that the pages of new entries are to be fetched
// (see store.Store.ClaimArticles), in one transaction committed before
// any of them is asked for.
func (s *Store) ClaimArticles(ctx context.Context, feedID int64, candidates []domain.Entry, limit int, now time.Time) ([]string, error) {
	var keys []string
	err := s.inTx(ctx, func(tx *sql.Tx) (err error) {
		keys, err = store.ClaimInOrder(candidates, limit, func(e domain.Entry) (bool, error) {
			res, err := tx.ExecContext(ctx, claimArticle, feedID, e.Key, e.Link, unix(now))
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
