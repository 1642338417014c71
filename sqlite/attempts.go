package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"feeddigest/store"
)

// Poll marks (see store.Store.BeginAttempt) are rows of poll_attempts,
// one per feed, deleted in the transaction that saves the poll.

// BeginAttempt records, committed at once, that a poll of the feed is
// about to read its body.
func (s *Store) BeginAttempt(ctx context.Context, feedID int64, now time.Time) error {
	_, err := s.execHot(ctx, nil, beginAttempt, feedID, unix(now))
	if err != nil {
		return fmt.Errorf("record the poll of feed %d: %w", feedID, err)
	}
	return nil
}

// UnfinishedAttempts returns the polls started by a run that died before
// saving them, by feed URL.
func (s *Store) UnfinishedAttempts(ctx context.Context) ([]store.Attempt, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+feedColumns+`,
		a.started, a.reads
		FROM feeds JOIN poll_attempts a ON a.feed_id = feeds.id WHERE id IN (SELECT feed_id FROM poll_attempts) ORDER BY url`)
	if err != nil {
		return nil, fmt.Errorf("list unfinished polls: %w", err)
	}
	defer rows.Close()
	var out []store.Attempt
	for rows.Next() {
		var a store.Attempt
		var started int64
		a.Feed, err = scanFeed(rowWith{rows, []any{&started, &a.Reads}})
		if err != nil {
			return nil, fmt.Errorf("list unfinished polls: %w", err)
		}
		a.Started = fromUnix(started)
		out = append(out, a)
	}
	return out, rows.Err()
}

// DropAttempts forgets every mark: for a pass that stopped polling on
// purpose (interrupted), whose unfinished polls did not fail.
func (s *Store) DropAttempts(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, "DELETE FROM poll_attempts"); err != nil {
		return fmt.Errorf("forget unfinished polls: %w", err)
	}
	return nil
}

const (
	beginAttempt = `INSERT INTO poll_attempts (feed_id, started, reads) VALUES (?, ?, 1)
		ON CONFLICT (feed_id) DO UPDATE SET started = excluded.started, reads = poll_attempts.reads + 1`
	deleteAttempt = "DELETE FROM poll_attempts WHERE feed_id = ?"
)

func (s *Store) endAttempt(ctx context.Context, tx *sql.Tx, feedID int64) error {
	if _, err := s.execHot(ctx, tx, deleteAttempt, feedID); err != nil {
		return fmt.Errorf("clear the poll mark: %w", err)
	}
	return nil
}

// rowWith scans a row's feed columns and then extra ones.
type rowWith struct {
	row   scanner
	extra []any
}

func (r rowWith) Scan(dest ...any) error { return r.row.Scan(append(dest, r.extra...)...) }
