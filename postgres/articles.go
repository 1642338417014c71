package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/domain"
	"feeddigest/store"
)

// claimArticle claims an entry's page for its article unless the entry
// is stored (by key or link) or its page was claimed already.
const claimArticle = `INSERT INTO article_claims (feed_id, key, claimed_at)
	SELECT $1, $2, $4 WHERE NOT EXISTS (SELECT 1 FROM entries WHERE feed_id = $1 AND (key = $2 OR link = $3))
	ON CONFLICT DO NOTHING`

// ClaimArticles records that the pages of new entries are to be fetched
// (see store.Store.ClaimArticles), in one transaction committed before
// any of them is asked for.
func (s *Store) ClaimArticles(ctx context.Context, feedID int64, candidates []domain.Entry, limit int, now time.Time) ([]string, error) {
	var keys []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) (err error) {
		keys, err = store.ClaimInOrder(candidates, limit, func(e domain.Entry) (bool, error) {
			tag, err := tx.Exec(ctx, claimArticle, feedID, e.Key, e.Link, at(now))
			return tag.RowsAffected() == 1, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim the articles of feed %d: %w", feedID, err)
	}
	return keys, nil
}
