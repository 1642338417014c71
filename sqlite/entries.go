package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
// it found (see store.PollTx): an entry is known by its key, or by its
// link (store.PlanSave); known entries keep their first-seen time, their
// text is refreshed but they are not shown again; new entries past the
// withTexts newest are stored without texts. Then the entries stored
// without texts that every subscriber was given, that no digest waits
// for and that the feed no longer lists are forgotten (store.BareKept),
// and the stored entries the body no longer lists are marked as having
// left the feed at now (markListed).
func (t *pollTx) SaveEntries(ctx context.Context, entries []domain.Entry, now time.Time, withTexts int) (store.SaveStats, error) {
	return t.save(ctx, entries, now, withTexts, true)
}

// SavePartial is SaveEntries for a body listing only what changed (see
// store.PollTx): an entry it does not list has not left the feed.
func (t *pollTx) SavePartial(ctx context.Context, entries []domain.Entry, now time.Time, withTexts int) (store.SaveStats, error) {
	return t.save(ctx, entries, now, withTexts, false)
}

// save is SaveEntries of a whole body, or of a partial one.
func (t *pollTx) save(ctx context.Context, entries []domain.Entry, now time.Time, withTexts int, whole bool) (store.SaveStats, error) {
	if len(entries) == 0 {
		return store.SaveStats{}, nil
	}
	stored, err := t.s.storedLike(ctx, t.tx, t.feedID, entries)
	if err != nil {
		return store.SaveStats{}, fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	entries, bare := store.PlanSave(entries, stored, now, withTexts)
	st, err := t.s.upsertEntries(ctx, t.tx, t.feedID, entries, bare, now)
	if err != nil {
		return store.SaveStats{}, fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = e.Key
	}
	list, _ := json.Marshal(keys)
	if _, err := t.s.execHot(ctx, t.tx, forgetBare, t.feedID, unix(now.Add(-store.BareKept)), string(list)); err != nil {
		return store.SaveStats{}, fmt.Errorf("save poll of feed %d: forget entries stored without texts: %w", t.feedID, err)
	}
	if _, err := t.s.execHot(ctx, t.tx, markListed, t.feedID, unix(now), string(list), boolInt(whole)); err != nil {
		return store.SaveStats{}, fmt.Errorf("save poll of feed %d: mark the entries the feed lists: %w", t.feedID, err)
	}
	if st.New > 0 {
		if err := t.s.dropUnneededTexts(ctx, t.tx, t.feedID, withTexts); err != nil {
			return store.SaveStats{}, fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
		}
	}
	return st, nil
}

// dropUnneededTexts drops the texts of the feed's entries that no
// digest has yet and none can show (store.TextsUnneeded), marking them
// overflow, as if their poll had stored them without. Not while a
// subscription waits for the digest introducing the feed, which may
// show older entries.
func (s *Store) dropUnneededTexts(ctx context.Context, tx *sql.Tx, feedID int64, withTexts int) error {
	if withTexts <= 0 {
		return nil
	}
	rows, err := s.queryRowsHot(ctx, tx, subscribersDigests, feedID)
	if err != nil {
		return fmt.Errorf("read subscribers' digests: %w", err)
	}
	var since []int64
	for rows.Next() {
		var introduced, built int64
		if err := rows.Scan(&introduced, &built); err != nil {
			rows.Close()
			return err
		}
		if introduced == 0 {
			rows.Close()
			return nil
		}
		since = append(since, built)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(since) == 0 {
		return err
	}
	rows, err = s.queryRowsHot(ctx, tx, pendingEntries, feedID, slices.Min(since))
	if err != nil {
		return fmt.Errorf("read pending entries: %w", err)
	}
	var pending []store.Pending
	for rows.Next() {
		var p store.Pending
		if err := rows.Scan(&p.ID, &p.Date, &p.FirstSeen); err != nil {
			rows.Close()
			return err
		}
		pending = append(pending, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	drop := store.TextsUnneeded(pending, since, withTexts)
	if len(drop) == 0 {
		return nil
	}
	ids, _ := json.Marshal(drop)
	if _, err := tx.ExecContext(ctx, "DELETE FROM entry_texts WHERE entry_id IN (SELECT value FROM json_each(?))", string(ids)); err != nil {
		return fmt.Errorf("drop unneeded texts: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE entries SET overflow = 1 WHERE id IN (SELECT value FROM json_each(?))", string(ids)); err != nil {
		return fmt.Errorf("drop unneeded texts: %w", err)
	}
	return nil
}

// storedLike returns the feed's stored entries that share a key or a
// link with entries, in the order they were stored (see store.PlanSave).
func (s *Store) storedLike(ctx context.Context, tx *sql.Tx, feedID int64, entries []domain.Entry) ([]store.StoredEntry, error) {
	keys, links := store.KeysAndLinks(entries)
	k, _ := json.Marshal(keys)
	l, _ := json.Marshal(links)
	rows, err := s.queryRowsHot(ctx, tx, storedLikeQuery, feedID, string(k), string(l))
	if err != nil {
		return nil, fmt.Errorf("find stored entries: %w", err)
	}
	defer rows.Close()
	var out []store.StoredEntry
	for rows.Next() {
		var e store.StoredEntry
		var id int64
		if err := rows.Scan(&id, &e.Key, &e.Link, &e.Title); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// forgetBare deletes the feed's (?1) entries stored without texts
// (overflow) first seen before ?2 that are not in the body just saved
// (the keys ?3), that every subscriber was given (shown or withheld) and
// that no digest of a subscriber waits to render or send.
const forgetBare = `DELETE FROM entries WHERE feed_id = ?1 AND overflow = 1 AND first_seen < ?2
	AND key NOT IN (SELECT value FROM json_each(?3))
	AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = ?1 AND (
		(NOT EXISTS (SELECT 1 FROM digest_entries de WHERE de.user = s.user AND de.entry_id = entries.id)
			AND NOT EXISTS (SELECT 1 FROM withheld_entries w WHERE w.user = s.user AND w.entry_id = entries.id))
		OR EXISTS (SELECT 1 FROM digest_entries de JOIN digests d ON d.user = de.user AND d.date = de.date
			WHERE de.user = s.user AND de.entry_id = entries.id
			AND (d.rendered_at = 0 OR (d.send_wanted = 1 AND d.sent_at = 0 AND d.send_data_end = 0)))))`

// markListed records which of the feed's (?1) stored entries its body
// just saved lists (the keys ?3, as PlanSave stored them): those that
// had left it (left_at, when) are listed again (0), and, when the body
// is whole (?4), those listed that it no longer lists left it at ?2.
// Only the entries whose state changes are written, each found by an
// index: the listed ones of the feed (entries_listed, as many as its
// body) and the returning ones by key; a body like the last writes none.
const markListed = `UPDATE entries SET left_at = CASE left_at WHEN 0 THEN ?2 ELSE 0 END WHERE id IN (
	SELECT id FROM entries WHERE feed_id = ?1 AND left_at = 0 AND ?4 AND key NOT IN (SELECT value FROM json_each(?3))
	UNION ALL SELECT id FROM entries WHERE feed_id = ?1 AND left_at != 0 AND key IN (SELECT value FROM json_each(?3)))`

// storedLikeQuery finds the feed's (?1) entries whose key is one of ?2
// or whose link is one of ?3 (JSON lists), in the order they were stored.
const storedLikeQuery = `SELECT id, key, link, title FROM entries WHERE feed_id = ?1
	AND key IN (SELECT value FROM json_each(?2))
	UNION SELECT id, key, link, title FROM entries WHERE feed_id = ?1 AND link != ''
	AND link IN (SELECT value FROM json_each(?3)) ORDER BY 1`

// subscribersDigests is, for each subscription of the feed ?1, when it
// was introduced and when its user's last digest was built (0 for none).
const subscribersDigests = `SELECT s.introduced_at, COALESCE((SELECT MAX(d.built_at) FROM digests d WHERE d.user = s.user), 0)
	FROM subscriptions s WHERE s.feed_id = ?`

// pendingEntries is the feed's (?1) entries with texts, first seen since
// ?2, that no subscriber has been given (shown or withheld): their ids,
// dates and first-seen times.
const pendingEntries = `SELECT e.id, CASE e.published WHEN 0 THEN e.first_seen ELSE e.published END, e.first_seen
	FROM entries e JOIN entry_texts t ON t.entry_id = e.id
	WHERE e.feed_id = ?1 AND e.overflow = 0 AND e.first_seen >= ?2
	AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = ?1
		AND (EXISTS (SELECT 1 FROM digest_entries de WHERE de.user = s.user AND de.entry_id = e.id)
			OR EXISTS (SELECT 1 FROM withheld_entries w WHERE w.user = s.user AND w.entry_id = e.id)))`

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

// The columns of insertEntries' and saveTexts' rows.
const (
	entryColumns = 10
	textColumns  = 6
)

// The statements of a poll's save (see Store.hot).
const (
	// insertEntries and saveTexts take rowsStatement's rows of values.
	insertEntries = `INSERT INTO entries (feed_id, key, title, link, author, published, enclosures, first_seen, overflow, categories)
		VALUES %s ON CONFLICT (feed_id, key) DO NOTHING RETURNING id, key`
	updateEntry = `UPDATE entries SET title = ?, link = ?, author = ?, published = ?,
		enclosures = ?, content = '', summary = '', categories = ? WHERE feed_id = ? AND key = ? RETURNING id, overflow`
	saveTexts = `INSERT OR REPLACE INTO entry_texts (entry_id, content_z, summary_z,
		fragment_rules, shown_title, shown_z) VALUES %s`
	updateFeedRecord = `UPDATE feeds SET effective_url = ?, pending_url = ?, title = ?,
		site_url = ?, etag = ?, last_modified = ?, body_hash = ?, last_poll = ?, last_success = ?,
		last_status = ?, last_error = ?, next_poll = ?, reason = ?, error_count = ?, first_error = ?,
		retry_pending = ?, gone_at = ?, dead_at = ?, moved_at = ?, moved_from = ?, origin_flag_at = ?,
		answers_304 = ?, refuses_head = ?, ignores_conditional = ?, ttl_seconds = ?, overflow_gap = ?,
		next_extra_poll = ?, polls = ?, body_error = ?, repaired = ?, problem = ?, problem_at = ?,
		problem_since = ?, language = ?, etag_untrusted = ?, last_modified_untrusted = ?,
		refuses_conditional = ?, last_get = ?, articles_asked = ?, articles_read = ?, problem_code = ? WHERE id = ?`
)

// upsertEntries stores a poll's entries, new ones first seen at now
// (without texts when bare), and counts the new and the known. A known
// entry stored without texts stays so. The new entries and the texts
// are written a chunk of rows a statement (insertEntries, saveTexts):
// each statement has a fixed cost, through database/sql and modernc's
// SQLite, that a chunk's rows share. Known entries, rarer, are updated
// one by one.
func (s *Store) upsertEntries(ctx context.Context, tx *sql.Tx, feedID int64, entries []domain.Entry, bare []bool, now time.Time) (store.SaveStats, error) {
	inserted, err := s.insertNew(ctx, tx, feedID, entries, bare, now)
	if err != nil {
		return store.SaveStats{}, err
	}
	var st store.SaveStats
	texts := make([]any, 0, len(entries)*textColumns)
	for i, e := range entries {
		id, isNew := inserted[e.Key]
		delete(inserted, e.Key) // a key the body repeats is known the second time
		withTexts := !bare[i]
		if isNew {
			st.New++
		} else {
			st.Known++
			if id, withTexts, err = s.updateKnown(ctx, tx, feedID, e); err != nil {
				return store.SaveStats{}, fmt.Errorf("store entry %q: %w", e.Key, err)
			}
		}
		if withTexts {
			texts = append(texts, textRow(id, e)...)
		}
	}
	if err := s.execRows(ctx, tx, saveTexts, textColumns, texts); err != nil {
		return store.SaveStats{}, fmt.Errorf("store entry texts: %w", err)
	}
	return st, nil
}

// insertNew inserts the entries not stored yet and returns their ids by
// key; a stored entry's row is left as it is.
func (s *Store) insertNew(ctx context.Context, tx *sql.Tx, feedID int64, entries []domain.Entry, bare []bool, now time.Time) (map[string]int64, error) {
	args := make([]any, 0, len(entries)*entryColumns)
	for i, e := range entries {
		enclosures, err := encodeEnclosures(e.Enclosures)
		if err != nil {
			return nil, fmt.Errorf("store entry %q: %w", e.Key, err)
		}
		args = append(args, feedID, e.Key, e.Title, e.Link, e.Author, unix(e.Published), enclosures, unix(now), boolInt(bare[i]),
			store.EncodeCategories(e.Categories))
	}
	inserted := make(map[string]int64, len(entries))
	for chunk := range chunks(args, entryColumns) {
		rows, err := s.queryRowsHot(ctx, tx, rowsStatement(insertEntries, len(chunk)/entryColumns), chunk...)
		if err != nil {
			return nil, fmt.Errorf("store entries: %w", err)
		}
		for rows.Next() {
			var id int64
			var key string
			if err := rows.Scan(&id, &key); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store entries: %w", err)
			}
			inserted[key] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store entries: %w", err)
		}
	}
	return inserted, nil
}

// updateKnown refreshes a stored entry and returns its id, and whether
// it keeps texts (not when it was stored without).
func (s *Store) updateKnown(ctx context.Context, tx *sql.Tx, feedID int64, e domain.Entry) (id int64, withTexts bool, err error) {
	enclosures, err := encodeEnclosures(e.Enclosures)
	if err != nil {
		return 0, false, err
	}
	var bare bool
	err = s.queryHot(ctx, tx, updateEntry, e.Title, e.Link, e.Author, unix(e.Published), enclosures,
		store.EncodeCategories(e.Categories), feedID, e.Key).Scan(&id, &bare)
	return id, !bare, err
}

// textRow is the values of an entry's row of entry_texts: its fragments,
// or its texts alone when it has none.
func textRow(id int64, e domain.Entry) []any {
	if e.Fragments.Rules != 0 {
		return []any{id, nil, nil, e.Fragments.Rules, e.Fragments.Title, packShown(e)}
	}
	return []any{id, compress(e.Content), compress(e.Summary), 0, "", nil}
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
		boolInt(f.Distrust.Conditional), unix(f.LastGet), f.ArticlesAsked, f.ArticlesRead, store.ProblemCodeText(f.ProblemCode), f.ID)
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
	WHERE d.rendered_at = 0 OR (d.send_wanted = 1 AND d.sent_at = 0 AND d.send_data_end = 0)`

// Prune deletes entries first seen before cutoff that their feed's body
// stopped listing before it, or whose feed has no subscriber, and with
// them their digests' links, except those a digest still waits to render
// or send (see store.Store.Prune). The subscribed feeds are read once
// (a list), not for each old entry still listed.
func (s *Store) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM entries WHERE first_seen < ?1
		AND ((left_at != 0 AND left_at < ?1) OR feed_id NOT IN (SELECT feed_id FROM subscriptions))
		AND id NOT IN (`+stillNeeded+`)`, unix(cutoff))
	if err != nil {
		return 0, fmt.Errorf("prune entries: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM article_claims WHERE claimed_at < ?", unix(cutoff)); err != nil {
		return 0, fmt.Errorf("prune article claims: %w", err)
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
