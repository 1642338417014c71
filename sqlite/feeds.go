package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// feedColumns are the columns of a feed record, as scanFeed reads them.
var feedColumns = store.FeedRecordColumns("", nil)

type scanner interface{ Scan(dest ...any) error }

// scanFeed reads the feedColumns of a row, then any extra columns.
func scanFeed(row scanner, extra ...any) (domain.Feed, error) {
	var f domain.Feed
	var lastPoll, lastSuccess, nextPoll, firstError, goneAt, deadAt, movedAt, originAt, ttl, gap, nextExtra, problemAt, problemSince, lastGet int64
	var retry, a304, refHead, ignCond, noETag, noLM, noCond int
	dest := []any{&f.ID, &f.URL, &f.EffectiveURL, &f.PendingURL, &f.Title, &f.SiteURL, &f.ETag,
		&f.LastModified, &f.BodyHash, &lastPoll, &lastSuccess, &f.LastStatus, &f.LastError,
		&nextPoll, &f.Reason, &f.ErrorCount, &firstError, &retry, &goneAt, &deadAt, &movedAt,
		&f.MovedFrom, &originAt, &a304, &refHead, &ignCond, &ttl, &gap, &nextExtra, &f.Polls, &f.BodyError, &f.Repaired,
		&f.Problem, &problemAt, &problemSince, &f.Language, &noETag, &noLM, &noCond, &lastGet,
		&f.ArticlesAsked, &f.ArticlesRead, store.ProblemCodeColumn{Code: &f.ProblemCode}}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return f, err
	}
	f.LastPoll, f.LastSuccess, f.NextPoll = fromUnix(lastPoll), fromUnix(lastSuccess), fromUnix(nextPoll)
	f.FirstError, f.GoneAt, f.DeadAt, f.MovedAt = fromUnix(firstError), fromUnix(goneAt), fromUnix(deadAt), fromUnix(movedAt)
	f.OriginFlagAt, f.NextExtraPoll = fromUnix(originAt), fromUnix(nextExtra)
	f.ProblemAt, f.ProblemSince = fromUnix(problemAt), fromUnix(problemSince)
	f.RetryPending, f.Answers304, f.RefusesHEAD, f.IgnoresConditional = retry != 0, a304 != 0, refHead != 0, ignCond != 0
	f.Distrust = domain.Distrust{ETag: noETag != 0, LastModified: noLM != 0, Conditional: noCond != 0}
	f.LastGet = fromUnix(lastGet)
	f.TTL, f.OverflowGap = time.Duration(ttl)*time.Second, time.Duration(gap)*time.Second
	return f, nil
}

// Feeds returns every feed record, by URL.
func (s *Store) Feeds(ctx context.Context) ([]domain.Feed, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+feedColumns+" FROM feeds ORDER BY url")
	if err != nil {
		return nil, fmt.Errorf("list feeds: %w", err)
	}
	return collectFeeds(rows, "list feeds")
}

// FeedsAt returns the records of the feeds at urls (see store.Reader).
func (s *Store) FeedsAt(ctx context.Context, urls []string) ([]domain.Feed, error) {
	list, err := json.Marshal(urls)
	if err != nil {
		return nil, fmt.Errorf("read the feeds: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, "SELECT "+feedColumns+" FROM feeds WHERE url IN (SELECT value FROM json_each(?)) ORDER BY url",
		string(list))
	if err != nil {
		return nil, fmt.Errorf("read the feeds: %w", err)
	}
	return collectFeeds(rows, "read the feeds")
}

// collectFeeds reads the feed records of rows, and closes them; what
// names the question in an error.
func collectFeeds(rows *sql.Rows, what string) ([]domain.Feed, error) {
	defer rows.Close()
	var feeds []domain.Feed
	for rows.Next() {
		f, err := scanFeed(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		feeds = append(feeds, f)
	}
	return feeds, rows.Err()
}

// Feed returns the record of one subscribed URL (see store.FeedAt).
func (s *Store) Feed(ctx context.Context, url string) (domain.Feed, error) {
	return store.FeedAt(ctx, s, url)
}

// SyncSubscriptions makes the subscriptions match the configuration:
// feed records are created for new URLs, a new subscription is stamped
// with now (so its first digest takes only the newest entries), and
// subscriptions no longer configured are dropped. domain.Feed records and their
// entries stay, for other subscribers and for a later re-subscription.
// Only the differences are written: an hourly run usually writes nothing.
func (s *Store) SyncSubscriptions(ctx context.Context, subs map[string][]string, now time.Time) error {
	have, err := s.subscriptionSet(ctx)
	if err != nil {
		return err
	}
	users := make([]string, 0, len(subs))
	for u := range subs {
		users = append(users, u)
	}
	sort.Strings(users)
	stored := map[string][]string{}
	for sub := range have {
		stored[sub.user] = append(stored[sub.user], sub.url)
	}
	changes := store.Renormalised(stored, subs)
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, c := range changes {
			renamed, err := renormalise(ctx, tx, c)
			if err != nil {
				return err
			}
			// Every subscription to a feed record renamed is under the
			// new URL now, to be kept or dropped as configured.
			for sub := range have {
				if sub.url == c.From && (renamed || sub.user == c.User) {
					delete(have, sub)
					have[subscription{sub.user, c.To}] = true
				}
			}
		}
		for _, u := range users {
			for _, url := range subs[u] {
				key := subscription{u, url}
				if have[key] {
					delete(have, key)
					continue
				}
				if err := addSubscription(ctx, tx, u, url, now); err != nil {
					return err
				}
			}
		}
		for gone := range have { // configured no more
			if _, err := tx.ExecContext(ctx, `DELETE FROM subscriptions WHERE user = ?
				AND feed_id = (SELECT id FROM feeds WHERE url = ?)`, gone.user, gone.url); err != nil {
				return err
			}
		}
		return nil
	})
}

type subscription struct{ user, url string }

// renormalise moves a subscription stored under a URL written before
// feed URLs were normalised to the normalised one (see
// store.Renormalised): the feed record is renamed, or, when the
// normalised URL has one already, the user's subscription moves to it
// with its times.
func renormalise(ctx context.Context, tx *sql.Tx, c store.URLChange) (renamed bool, err error) {
	res, err := tx.ExecContext(ctx, `UPDATE feeds SET url = ?1 WHERE url = ?2
		AND NOT EXISTS (SELECT 1 FROM feeds WHERE url = ?1)`, c.To, c.From)
	if err != nil {
		return false, fmt.Errorf("rename feed %s: %w", c.From, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return true, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE OR IGNORE subscriptions SET feed_id = (SELECT id FROM feeds WHERE url = ?1)
		WHERE user = ?3 AND feed_id = (SELECT id FROM feeds WHERE url = ?2)`, c.To, c.From, c.User); err != nil {
		return false, fmt.Errorf("move subscription to %s: %w", c.To, err)
	}
	return false, nil
}

func (s *Store) subscriptionSet(ctx context.Context) (map[subscription]bool, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT s.user, f.url FROM subscriptions s JOIN feeds f ON f.id = s.feed_id")
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	defer rows.Close()
	set := map[subscription]bool{}
	for rows.Next() {
		var sub subscription
		if err := rows.Scan(&sub.user, &sub.url); err != nil {
			return nil, err
		}
		set[sub] = true
	}
	return set, rows.Err()
}

func addSubscription(ctx context.Context, tx *sql.Tx, user, url string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO feeds (url) VALUES (?)", url); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO subscriptions (user, feed_id, added_at)
		SELECT ?, id, ? FROM feeds WHERE url = ?`, user, unix(now), url)
	return err
}

// Subscribers returns, per feed URL, the users subscribed to it.
func (s *Store) Subscribers(ctx context.Context) (map[string][]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.url, s.user FROM subscriptions s
		JOIN feeds f ON f.id = s.feed_id ORDER BY f.url, s.user`)
	if err != nil {
		return nil, fmt.Errorf("list subscribers: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var url, user string
		if err := rows.Scan(&url, &user); err != nil {
			return nil, err
		}
		out[url] = append(out[url], user)
	}
	return out, rows.Err()
}

// EntryCounts returns how many entries are stored per feed URL.
func (s *Store) EntryCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.url, COUNT(e.id) FROM feeds f
		LEFT JOIN entries e ON e.feed_id = f.id GROUP BY f.id`)
	if err != nil {
		return nil, fmt.Errorf("count entries: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var url string
		var n int
		if err := rows.Scan(&url, &n); err != nil {
			return nil, err
		}
		out[url] = n
	}
	return out, rows.Err()
}
