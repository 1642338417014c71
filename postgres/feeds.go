package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/domain"
	"feeddigest/store"
)

// feedColumns are the columns of a feed record, as scanFeed reads them;
// this schema keeps the overflow gap in seconds, and names it so.
var feedColumns = feedColumnsOf("")

func feedColumnsOf(alias string) string {
	return store.FeedRecordColumns(alias, map[string]string{"overflow_gap": "overflow_gap_seconds"})
}

// scanFeed reads the feedColumns of a row, then any extra columns.
func scanFeed(row pgx.Row, extra ...any) (domain.Feed, error) {
	var f domain.Feed
	var ttl, gap int64
	dest := []any{&f.ID, &f.URL, &f.EffectiveURL, &f.PendingURL, &f.Title, &f.SiteURL, &f.ETag,
		&f.LastModified, &f.BodyHash, timeOf{&f.LastPoll}, timeOf{&f.LastSuccess}, &f.LastStatus, &f.LastError,
		timeOf{&f.NextPoll}, &f.Reason, &f.ErrorCount, timeOf{&f.FirstError}, &f.RetryPending, timeOf{&f.GoneAt},
		timeOf{&f.DeadAt}, timeOf{&f.MovedAt}, &f.MovedFrom, timeOf{&f.OriginFlagAt}, &f.Answers304, &f.RefusesHEAD,
		&f.IgnoresConditional, &ttl, &gap, timeOf{&f.NextExtraPoll}, &f.Polls, &f.BodyError, &f.Repaired,
		&f.Problem, timeOf{&f.ProblemAt}, timeOf{&f.ProblemSince}, &f.Language, &f.Distrust.ETag,
		&f.Distrust.LastModified, &f.Distrust.Conditional, timeOf{&f.LastGet}, &f.ArticlesAsked, &f.ArticlesRead,
		store.ProblemCodeColumn{Code: &f.ProblemCode}}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return f, err
	}
	f.TTL, f.OverflowGap = time.Duration(ttl)*time.Second, time.Duration(gap)*time.Second
	return f, nil
}

// Feeds returns every feed record, by URL.
func (s *Store) Feeds(ctx context.Context) ([]domain.Feed, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+feedColumns+" FROM feeds ORDER BY url")
	feeds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Feed, error) { return scanFeed(row) })
	if err != nil {
		return nil, fmt.Errorf("list feeds: %w", err)
	}
	return feeds, nil
}

// FeedsToPlan returns the records, by URL, of the feeds at urls and of
// those whose retry or extra poll has come at now (see
// store.Coordinator): a pass's planner reads a few thousand records of
// tens of thousands. One scan of the table, each URL looked up in a hash
// of the list: url = ANY($1) compares each row with the whole list under
// a generic plan (seconds for thousands of URLs).
func (s *Store) FeedsToPlan(ctx context.Context, urls []string, now time.Time) ([]domain.Feed, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+feedColumns+` FROM feeds
		WHERE url IN (SELECT unnest($1::text[])) OR retry_pending
		OR (overflow_gap_seconds > 0 AND (next_extra_poll IS NULL OR next_extra_poll <= $2))
		ORDER BY url`, urls, now.UTC())
	feeds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Feed, error) { return scanFeed(row) })
	if err != nil {
		return nil, fmt.Errorf("list the feeds to plan: %w", err)
	}
	return feeds, nil
}

// FeedsAt returns the records of the feeds at urls (see store.Reader).
func (s *Store) FeedsAt(ctx context.Context, urls []string) ([]domain.Feed, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+feedColumns+" FROM feeds WHERE url IN (SELECT unnest($1::text[])) ORDER BY url", urls)
	feeds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Feed, error) { return scanFeed(row) })
	if err != nil {
		return nil, fmt.Errorf("read the feeds: %w", err)
	}
	return feeds, nil
}

// Feed returns the record of one subscribed URL (see store.FeedAt).
func (s *Store) Feed(ctx context.Context, url string) (domain.Feed, error) {
	return store.FeedAt(ctx, s, url)
}

// SyncSubscriptions makes the subscriptions match the configuration (see
// store.Store): feed records for new URLs, new subscriptions stamped with
// now, subscriptions no longer configured dropped. Three statements,
// whatever the number of users: the rows go as arrays. Only the
// differences are written.
func (s *Store) SyncSubscriptions(ctx context.Context, subs map[string][]string, now time.Time) error {
	var users, urls []string
	for u, feeds := range subs {
		for _, url := range feeds {
			users, urls = append(users, u), append(urls, url)
		}
	}
	want := fingerprint(subs)
	// New feed rows in one order, whoever inserts them: two runs syncing at
	// once never wait on each other in a circle.
	newURLs := slices.Clone(urls)
	slices.Sort(newURLs)
	newURLs = slices.Compact(newURLs)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var synced []byte
		err := tx.QueryRow(ctx, "SELECT fingerprint FROM subscriptions_synced FOR UPDATE").Scan(&synced)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if bytes.Equal(synced, want) {
			return nil // as last synced: nothing to compare
		}
		if err := renormalise(ctx, tx, subs, users, urls); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO feeds (url) SELECT u FROM unnest($1::text[]) AS n(u)
			WHERE NOT EXISTS (SELECT 1 FROM feeds f WHERE f.url = n.u) ORDER BY u
			ON CONFLICT (url) DO NOTHING`, newURLs); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO subscriptions (user_name, feed_id, added_at)
			SELECT n.u, f.id, $3 FROM unnest($1::text[], $2::text[]) AS n(u, url) JOIN feeds f ON f.url = n.url
			ORDER BY n.u, f.id
			ON CONFLICT (user_name, feed_id) DO NOTHING`, users, urls, at(now)); err != nil {
			return err
		}
		// Configured no more.
		if _, err := tx.Exec(ctx, `DELETE FROM subscriptions s USING feeds f WHERE f.id = s.feed_id
			AND NOT EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[]) AS n(u, url)
				WHERE n.u = s.user_name AND n.url = f.url)`, users, urls); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO subscriptions_synced (fingerprint) VALUES ($1)
			ON CONFLICT (one) DO UPDATE SET fingerprint = EXCLUDED.fingerprint`, want)
		return err
	})
	if err != nil {
		return fmt.Errorf("update subscriptions: %w", err)
	}
	return nil
}

// renormalise moves the subscriptions stored under a URL written before
// feed URLs were normalised to the normalised one (see
// store.Renormalised): the feed record is renamed, or, when the
// normalised URL has one already, the user's subscription moves to it
// with its times. users and urls are the subscriptions configured.
func renormalise(ctx context.Context, tx pgx.Tx, subs map[string][]string, users, urls []string) error {
	rows, _ := tx.Query(ctx, `SELECT s.user_name, f.url FROM subscriptions s JOIN feeds f ON f.id = s.feed_id
		WHERE NOT EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[]) AS n(u, url)
			WHERE n.u = s.user_name AND n.url = f.url)`, users, urls)
	stale := map[string][]string{}
	var user, url string
	if _, err := pgx.ForEachRow(rows, []any{&user, &url}, func() error {
		stale[user] = append(stale[user], url)
		return nil
	}); err != nil {
		return fmt.Errorf("list subscriptions no longer configured: %w", err)
	}
	for _, c := range store.Renormalised(stale, subs) {
		tag, err := tx.Exec(ctx, `UPDATE feeds SET url = $1 WHERE url = $2
			AND NOT EXISTS (SELECT 1 FROM feeds WHERE url = $1)`, c.To, c.From)
		if err != nil {
			return fmt.Errorf("rename feed %s: %w", c.From, err)
		}
		if tag.RowsAffected() > 0 {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE subscriptions s SET feed_id = n.id FROM feeds n, feeds o
			WHERE n.url = $1 AND o.url = $2 AND s.user_name = $3 AND s.feed_id = o.id
			AND NOT EXISTS (SELECT 1 FROM subscriptions x WHERE x.user_name = $3 AND x.feed_id = n.id)`,
			c.To, c.From, c.User); err != nil {
			return fmt.Errorf("move subscription to %s: %w", c.To, err)
		}
	}
	return nil
}

// fingerprint is a hash of a set of subscriptions, whatever their order.
func fingerprint(subs map[string][]string) []byte {
	pairs := make([]string, 0, len(subs)*8)
	for u, feeds := range subs {
		for _, url := range feeds {
			pairs = append(pairs, u+"\x00"+url)
		}
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	h := sha256.New()
	for _, p := range pairs {
		h.Write([]byte(p))
		h.Write([]byte{'\n'})
	}
	return h.Sum(nil)
}

// Subscribers returns, per feed URL, the users subscribed to it.
func (s *Store) Subscribers(ctx context.Context) (map[string][]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT f.url, s.user_name FROM subscriptions s
		JOIN feeds f ON f.id = s.feed_id ORDER BY f.url, s.user_name`)
	if err != nil {
		return nil, fmt.Errorf("list subscribers: %w", err)
	}
	out := map[string][]string{}
	var url, user string
	_, err = pgx.ForEachRow(rows, []any{&url, &user}, func() error {
		out[url] = append(out[url], user)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list subscribers: %w", err)
	}
	return out, nil
}

// EntryCounts returns how many entries are stored per feed URL.
func (s *Store) EntryCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT f.url, COUNT(e.id) FROM feeds f
		LEFT JOIN entries e ON e.feed_id = f.id GROUP BY f.id`)
	if err != nil {
		return nil, fmt.Errorf("count entries: %w", err)
	}
	out := map[string]int{}
	var url string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&url, &n}, func() error {
		out[url] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count entries: %w", err)
	}
	return out, nil
}
