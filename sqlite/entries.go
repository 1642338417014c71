package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// pollTx is a store.PollTx: one SQLite transaction.
type pollTx struct {
	s      *Store
	tx     *sql.Tx
	feedID int64
}

// BeginPoll starts saving a poll of the feed (see store.PollTx).
func (s *Store) BeginPoll(ctx context.Context, feedID int64) (store.PollTx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("save poll of feed %d: %w", feedID, err)
	}
	return &pollTx{s: s, tx: tx, feedID: feedID}, nil
}

// SaveEntries stores entries of the feed first seen at now and says what
// it found. Entries already known keep their first-seen time; their text
// is refreshed but they are not shown again.
func (t *pollTx) SaveEntries(ctx context.Context, entries []domain.Entry, now time.Time) (store.SaveStats, error) {
	var st store.SaveStats
	for _, e := range entries {
		isNew, err := t.s.upsertEntry(ctx, t.tx, t.feedID, e, now)
		if err != nil {
			return store.SaveStats{}, fmt.Errorf("save poll of feed %d: store entry %q: %w", t.feedID, e.Key, err)
		}
		if isNew {
			st.New++
		} else {
			st.Known++
		}
	}
	return st, nil
}

// UpdateFeed writes the feed record after the poll and clears its
// attempt mark.
func (t *pollTx) UpdateFeed(ctx context.Context, f domain.Feed) error {
	if f.ID != t.feedID {
		return fmt.Errorf("save poll of feed %d: the record given is of feed %d", t.feedID, f.ID)
	}
	if err := t.s.endAttempt(ctx, t.tx, t.feedID); err != nil {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	if err := t.s.updateFeed(ctx, t.tx, f); err != nil {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	return nil
}

// UpdateFeeds writes the records of polls that stored no entries, and
// clears their attempt marks, in one transaction (see store.Store).
func (s *Store) UpdateFeeds(ctx context.Context, feeds []domain.Feed) error {
	if len(feeds) == 0 {
		return nil
	}
	ids := make([]int64, len(feeds))
	for i, f := range feeds {
		ids[i] = f.ID
	}
	marks, _ := json.Marshal(ids)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// One statement for every mark: most polls (a 304) have none.
		if _, err := tx.ExecContext(ctx, "DELETE FROM poll_attempts WHERE feed_id IN (SELECT value FROM json_each(?))",
			string(marks)); err != nil {
			return fmt.Errorf("clear the poll marks: %w", err)
		}
		for _, f := range feeds {
			if err := s.updateFeed(ctx, tx, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save %d polls: %w", len(feeds), err)
	}
	return nil
}

// Commit makes the poll's save durable.
func (t *pollTx) Commit() error {
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	return nil
}

// Rollback undoes the save unless it was committed.
func (t *pollTx) Rollback() error {
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	return nil
}

// The statements of a poll's save (see Store.hot).
const (
	insertEntry = `INSERT INTO entries (feed_id, key, title, link, author, published, enclosures, first_seen)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (feed_id, key) DO NOTHING RETURNING id`
	updateEntry = `UPDATE entries SET title = ?, link = ?, author = ?, published = ?,
		enclosures = ?, content = '', summary = '' WHERE feed_id = ? AND key = ? RETURNING id`
	saveTexts = `INSERT OR REPLACE INTO entry_texts (entry_id, content_z, summary_z,
		fragment_rules, shown_title, shown_z) VALUES (?, ?, ?, ?, ?, ?)`
	updateFeedRecord = `UPDATE feeds SET effective_url = ?, pending_url = ?, title = ?,
		site_url = ?, etag = ?, last_modified = ?, body_hash = ?, last_poll = ?, last_success = ?,
		last_status = ?, last_error = ?, next_poll = ?, reason = ?, error_count = ?, first_error = ?,
		retry_pending = ?, gone_at = ?, dead_at = ?, moved_at = ?, moved_from = ?, origin_flag_at = ?,
		answers_304 = ?, refuses_head = ?, ignores_conditional = ?, ttl_seconds = ?, overflow_gap = ?,
		next_extra_poll = ?, polls = ?, body_error = ?, repaired = ?, problem = ?, problem_at = ?,
		problem_since = ?, language = ?, etag_untrusted = ?, last_modified_untrusted = ?,
		refuses_conditional = ?, last_get = ? WHERE id = ?`
)

func (s *Store) upsertEntry(ctx context.Context, tx *sql.Tx, feedID int64, e domain.Entry, now time.Time) (bool, error) {
	enclosures, err := encodeEnclosures(e.Enclosures)
	if err != nil {
		return false, err
	}
	var id int64
	isNew := true
	err = s.queryHot(ctx, tx, insertEntry, feedID, e.Key, e.Title, e.Link, e.Author, unix(e.Published), enclosures, unix(now)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		isNew = false
		err = s.queryHot(ctx, tx, updateEntry, e.Title, e.Link, e.Author, unix(e.Published), enclosures, feedID, e.Key).Scan(&id)
	}
	if err != nil {
		return false, err
	}
	if e.Fragments.Rules != 0 {
		_, err = s.execHot(ctx, tx, saveTexts, id, nil, nil, e.Fragments.Rules, e.Fragments.Title, packShown(e))
	} else {
		_, err = s.execHot(ctx, tx, saveTexts, id, compress(e.Content), compress(e.Summary), 0, "", nil)
	}
	return isNew, err
}

func (s *Store) updateFeed(ctx context.Context, tx *sql.Tx, f domain.Feed) error {
	res, err := s.execHot(ctx, tx, updateFeedRecord,
		f.EffectiveURL, f.PendingURL, f.Title, f.SiteURL, f.ETag, f.LastModified, f.BodyHash,
		unix(f.LastPoll), unix(f.LastSuccess), f.LastStatus, f.LastError, unix(f.NextPoll), f.Reason,
		f.ErrorCount, unix(f.FirstError), boolInt(f.RetryPending), unix(f.GoneAt), unix(f.DeadAt),
		unix(f.MovedAt), f.MovedFrom, unix(f.OriginFlagAt), boolInt(f.Answers304), boolInt(f.RefusesHEAD),
		boolInt(f.IgnoresConditional), int64(f.TTL/time.Second), int64(f.OverflowGap/time.Second),
		unix(f.NextExtraPoll), f.Polls, f.BodyError, f.Repaired, f.Problem, unix(f.ProblemAt),
		unix(f.ProblemSince), f.Language, boolInt(f.Distrust.ETag), boolInt(f.Distrust.LastModified),
		boolInt(f.Distrust.Conditional), unix(f.LastGet), f.ID)
	if err != nil {
		return fmt.Errorf("update feed record: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("update feed record %d: %w", f.ID, store.ErrNoFeed)
	}
	return nil
}

// stillNeeded selects the entries that a digest not yet rendered, or not
// yet sent, still has to show.
const stillNeeded = `SELECT de.entry_id FROM digest_entries de JOIN digests d ON d.user = de.user AND d.date = de.date
	WHERE d.rendered_at = 0 OR (d.send_wanted = 1 AND d.sent_at = 0 AND d.send_started = 0)`

// Prune deletes entries first seen before cutoff, and with them their
// digests' links, except those a digest still waits to render or send.
func (s *Store) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM entries WHERE first_seen < ? AND id NOT IN (`+stillNeeded+`)`, unix(cutoff))
	if err != nil {
		return 0, fmt.Errorf("prune entries: %w", err)
	}
	return res.RowsAffected()
}

// DropTexts forgets the full texts of entries first seen before cutoff,
// keeping what identifies them (so they are never shown again) and their
// titles. By then every subscriber's digest showing them was written; the
// texts are most of the state file's size.
func (s *Store) DropTexts(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM entry_texts WHERE entry_id IN
		(SELECT id FROM entries WHERE first_seen < ?) AND entry_id NOT IN (`+stillNeeded+`)`, unix(cutoff))
	if err != nil {
		return 0, fmt.Errorf("drop old entry texts: %w", err)
	}
	n, _ := res.RowsAffected()
	// Texts of schema-1 rows live in entries itself.
	if _, err := s.db.ExecContext(ctx, `UPDATE entries SET content = '', summary = ''
		WHERE first_seen < ? AND (content != '' OR summary != '') AND id NOT IN (`+stillNeeded+`)`, unix(cutoff)); err != nil {
		return n, fmt.Errorf("drop old entry texts: %w", err)
	}
	return n, nil
}

// Compact gives free pages back to the file system when a quarter of the
// file is free, so the state stays small in a CI cache.
func (s *Store) Compact(ctx context.Context) error {
	var pages, free int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return err
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
		return err
	}
	if free*4 < pages {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("compact state: %w", err)
	}
	return nil
}
