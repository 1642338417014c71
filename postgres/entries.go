package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"feeddigest/domain"
	"feeddigest/store"
)

// pollTx is a store.PollTx: one PostgreSQL transaction on a connection
// of the pool, its statements sent in as few round trips as it can: the
// BEGIN goes with the first batch (the entries, or the feed record), the
// feed record with its mark's deletion and, in a shared pass, the mark of
// the feed done; then COMMIT. A pass saves thousands of polls.
type pollTx struct {
	conn   *pgxpool.Conn
	feedID int64
	begun  bool // BEGIN sent
	closed bool // committed or rolled back, the connection given back
	// afterUpdate queues, beside the feed record, what else the save
	// writes (a shared pass marks the feed done there); nil: nothing.
	afterUpdate func(*pgx.Batch)
	// afterBegin queues, right after BEGIN, what must hold before anything
	// is written (a shared pass checks and locks its claim of the host
	// there); nil: nothing.
	afterBegin func(*pgx.Batch)
}

// BeginPoll starts saving a poll of the feed (see store.PollTx).
func (s *Store) BeginPoll(ctx context.Context, feedID int64) (store.PollTx, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("save poll of feed %d: %w", feedID, err)
	}
	return &pollTx{conn: conn, feedID: feedID}, nil
}

// batch starts a batch of the transaction: with its BEGIN, the first.
func (t *pollTx) batch() *pgx.Batch {
	b := &pgx.Batch{}
	if !t.begun {
		b.Queue("BEGIN")
		if t.afterBegin != nil {
			t.afterBegin(b)
		}
		t.begun = true
	}
	return b
}

// upsertEntry stores one entry: new ones first seen at now (stored
// without texts, overflow, when $17), known ones refreshed (keeping
// their first-seen time); inserted says which. Its texts and fragments
// are written beside it, but for an entry stored without them. A known
// entry that did not change, as most of a feed's body at each poll, is
// left as it is: an update would write a new version of its rows and
// their indexes for nothing, which the server must later vacuum.
const upsertEntry = `WITH e AS (
		INSERT INTO entries (feed_id, key, title, link, author, published, first_seen, enclosures, overflow, categories)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $10, $17, $18)
		ON CONFLICT (feed_id, key) DO UPDATE SET title = EXCLUDED.title, link = EXCLUDED.link,
			author = EXCLUDED.author, published = EXCLUDED.published, enclosures = EXCLUDED.enclosures,
			categories = EXCLUDED.categories
		WHERE (entries.title, entries.link, entries.author, entries.published, entries.enclosures, entries.categories)
			IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.link, EXCLUDED.author, EXCLUDED.published, EXCLUDED.enclosures,
				EXCLUDED.categories)
		RETURNING id, xmax = 0 AS inserted, overflow
	), known AS (
		SELECT id, overflow FROM entries WHERE feed_id = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM e)
	), t AS (
		INSERT INTO entry_texts AS old (entry_id, content, summary, fragment_rules, shown_title, shown_html,
			shown_excerpt, shown_links, shown_whole, shown_words)
		SELECT id, $8, $9, $11, $12, $13, $14, $15, $16, $19
		FROM (SELECT id, overflow FROM e UNION ALL SELECT id, overflow FROM known) ids WHERE NOT ids.overflow
		ON CONFLICT (entry_id) DO UPDATE SET content = EXCLUDED.content, summary = EXCLUDED.summary,
			fragment_rules = EXCLUDED.fragment_rules, shown_title = EXCLUDED.shown_title,
			shown_html = EXCLUDED.shown_html, shown_excerpt = EXCLUDED.shown_excerpt,
			shown_links = EXCLUDED.shown_links, shown_whole = EXCLUDED.shown_whole, shown_words = EXCLUDED.shown_words
		WHERE (old.content, old.summary, old.fragment_rules, old.shown_title, old.shown_html, old.shown_excerpt,
				old.shown_links, old.shown_whole, old.shown_words)
			IS DISTINCT FROM (EXCLUDED.content, EXCLUDED.summary, EXCLUDED.fragment_rules, EXCLUDED.shown_title,
				EXCLUDED.shown_html, EXCLUDED.shown_excerpt, EXCLUDED.shown_links, EXCLUDED.shown_whole,
				EXCLUDED.shown_words)
	)
	SELECT inserted FROM e UNION ALL SELECT false FROM known`

// storedLike selects the feed's ($1) stored entries that share a key
// ($2) or a link ($3) with a body, in the order they were stored (see
// store.PlanSave).
const storedLike = `SELECT key, link, title FROM entries WHERE feed_id = $1
	AND (key = ANY($2) OR (link <> '' AND link = ANY($3))) ORDER BY id`

// forgetBare deletes the feed's ($1) entries stored without texts
// (overflow) first seen before $2 that are not in the body just saved
// (the keys $3), that every subscriber was given (shown or withheld) and
// that no digest of a subscriber waits to render or send.
const forgetBare = `DELETE FROM entries e WHERE e.feed_id = $1 AND e.overflow AND e.first_seen < $2
	AND e.key <> ALL($3)
	AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = $1 AND (
		(NOT EXISTS (SELECT 1 FROM digest_entries de WHERE de.user_name = s.user_name AND de.entry_id = e.id)
			AND NOT EXISTS (SELECT 1 FROM withheld_entries w WHERE w.user_name = s.user_name AND w.entry_id = e.id))
		OR EXISTS (SELECT 1 FROM digest_entries de JOIN digests d ON d.user_name = de.user_name AND d.date = de.date
			WHERE de.user_name = s.user_name AND de.entry_id = e.id
			AND (d.rendered_at IS NULL OR (d.send_wanted AND d.sent_at IS NULL AND d.send_data_end IS NULL)))))`

// markListed records which of the feed's ($1) stored entries its body
// just saved lists (the keys $3, as PlanSave stored them): those that
// had left it (left_at, when) are listed again (null), and, when the
// body is whole ($4), those listed that it no longer lists left it at
// $2. Only the entries whose state changes are written (a new version of
// a row is for the server to vacuum), each found by an index: the listed
// ones of the feed (entries_listed, as many as its body) and the
// returning ones by key; a body like the last writes none.
const markListed = `UPDATE entries SET left_at = CASE WHEN left_at IS NULL THEN $2::timestamptz END WHERE id IN (
	SELECT id FROM entries WHERE feed_id = $1 AND left_at IS NULL AND $4 AND key <> ALL($3)
	UNION ALL SELECT id FROM entries WHERE feed_id = $1 AND left_at IS NOT NULL AND key = ANY($3))`

// SaveEntries stores entries of the feed first seen at now, with their
// fragments, and says what it found (see store.PollTx): one round trip
// to find the stored entries they may be (store.PlanSave), one for the
// whole body, and the entries stored without texts that are no longer
// needed forgotten with it, and which entries the feed lists marked
// (markListed).
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
	var st store.SaveStats
	if len(entries) == 0 {
		return st, nil
	}
	if t.closed {
		return st, fmt.Errorf("save poll of feed %d: %w", t.feedID, pgx.ErrTxClosed)
	}
	keys, links := store.KeysAndLinks(entries)
	// Before the transaction's BEGIN (see batch): the feed is this run's
	// alone to save while it polls it.
	rows, _ := t.conn.Query(ctx, storedLike, t.feedID, keys, links)
	stored, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.StoredEntry, error) {
		var e store.StoredEntry
		err := row.Scan(&e.Key, &e.Link, &e.Title)
		return e, err
	})
	if err != nil {
		return st, fmt.Errorf("save poll of feed %d: find stored entries: %w", t.feedID, err)
	}
	entries, bare := store.PlanSave(entries, stored, now, withTexts)
	batch := t.batch()
	for i, e := range entries {
		keys[i] = e.Key
		enclosures, err := encodeEnclosures(e.Enclosures)
		if err != nil {
			return store.SaveStats{}, fmt.Errorf("save poll of feed %d: store entry %q: %w", t.feedID, e.Key, err)
		}
		f := e.Fragments
		batch.Queue(upsertEntry, t.feedID, e.Key, e.Title, e.Link, e.Author, at(e.Published), at(now), e.Content, e.Summary,
			enclosures, f.Rules, f.Title, f.HTML, f.Excerpt, linksOf(f), f.Whole, bare[i], store.EncodeCategories(e.Categories),
			f.Words).
			QueryRow(func(row pgx.Row) error {
				var inserted bool
				if err := row.Scan(&inserted); err != nil {
					return fmt.Errorf("store entry %q: %w", e.Key, err)
				}
				if inserted {
					st.New++
				} else {
					st.Known++
				}
				return nil
			})
	}
	batch.Queue(forgetBare, t.feedID, at(now.Add(-store.BareKept)), keys)
	batch.Queue(markListed, t.feedID, at(now), keys, whole)
	if err := t.conn.SendBatch(ctx, batch).Close(); err != nil {
		return store.SaveStats{}, fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	if st.New > 0 {
		if err := t.dropUnneededTexts(ctx, withTexts); err != nil {
			return store.SaveStats{}, fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
		}
	}
	return st, nil
}

// dropUnneededTexts drops the texts of the feed's entries that no
// digest has yet and none can show (store.TextsUnneeded), marking them
// overflow, as if their poll had stored them without. Not while a
// subscription waits for the digest introducing the feed, which may
// show older entries. In the poll's transaction, begun by now.
func (t *pollTx) dropUnneededTexts(ctx context.Context, withTexts int) error {
	if withTexts <= 0 {
		return nil
	}
	var since []int64
	introduced := true
	rows, _ := t.conn.Query(ctx, `SELECT s.introduced_at IS NOT NULL,
		COALESCE((SELECT MAX(d.built_at) FROM digests d WHERE d.user_name = s.user_name), 'epoch')
		FROM subscriptions s WHERE s.feed_id = $1`, t.feedID)
	var in bool
	var built time.Time
	if _, err := pgx.ForEachRow(rows, []any{&in, &built}, func() error {
		introduced = introduced && in
		since = append(since, built.Unix())
		return nil
	}); err != nil {
		return fmt.Errorf("read subscribers' digests: %w", err)
	}
	if !introduced || len(since) == 0 {
		return nil
	}
	rows, _ = t.conn.Query(ctx, `SELECT e.id, extract(epoch FROM COALESCE(e.published, e.first_seen))::bigint,
			extract(epoch FROM e.first_seen)::bigint
		FROM entries e JOIN entry_texts t ON t.entry_id = e.id
		WHERE e.feed_id = $1 AND NOT e.overflow AND e.first_seen >= to_timestamp($2)
		AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.feed_id = $1
			AND (EXISTS (SELECT 1 FROM digest_entries de WHERE de.user_name = s.user_name AND de.entry_id = e.id)
				OR EXISTS (SELECT 1 FROM withheld_entries w WHERE w.user_name = s.user_name AND w.entry_id = e.id)))`,
		t.feedID, slices.Min(since))
	var pending []store.Pending
	var p store.Pending
	if _, err := pgx.ForEachRow(rows, []any{&p.ID, &p.Date, &p.FirstSeen}, func() error {
		pending = append(pending, p)
		return nil
	}); err != nil {
		return fmt.Errorf("read pending entries: %w", err)
	}
	drop := store.TextsUnneeded(pending, since, withTexts)
	if len(drop) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue("DELETE FROM entry_texts WHERE entry_id = ANY($1)", drop)
	b.Queue("UPDATE entries SET overflow = true WHERE id = ANY($1)", drop)
	if err := t.conn.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("drop unneeded texts: %w", err)
	}
	return nil
}

// linksOf is the shown_links value of f: never NULL.
func linksOf(f domain.Fragments) []string {
	if f.Links == nil {
		return []string{}
	}
	return f.Links
}

// UpdateFeed writes the feed record after the poll and clears its
// attempt mark, in one round trip with what afterUpdate adds.
func (t *pollTx) UpdateFeed(ctx context.Context, f domain.Feed) error {
	if f.ID != t.feedID {
		return fmt.Errorf("save poll of feed %d: the record given is of feed %d", t.feedID, f.ID)
	}
	if t.closed {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, pgx.ErrTxClosed)
	}
	batch := t.batch()
	queueFeedUpdate(batch, f)
	if t.afterUpdate != nil {
		t.afterUpdate(batch)
	}
	if err := t.conn.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	return nil
}

// UpdateFeeds writes the records of polls that stored no entries, and
// clears their attempt marks, in one transaction and one round trip (see
// store.Store).
func (s *Store) UpdateFeeds(ctx context.Context, feeds []domain.Feed) error {
	if len(feeds) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, f := range feeds {
			queueFeedUpdate(b, f)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("save %d polls: %w", len(feeds), err)
	}
	return nil
}

// Commit makes the poll's save durable.
func (t *pollTx) Commit() error {
	if t.closed {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, pgx.ErrTxClosed)
	}
	var err error
	if t.begun {
		_, err = t.conn.Exec(context.Background(), "COMMIT")
	}
	t.release()
	if err != nil {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	return nil
}

// Rollback undoes the save unless it was committed.
func (t *pollTx) Rollback() error {
	if t.closed {
		return nil
	}
	var err error
	if t.begun {
		_, err = t.conn.Exec(context.Background(), "ROLLBACK")
	}
	t.release()
	if err != nil {
		return fmt.Errorf("save poll of feed %d: %w", t.feedID, err)
	}
	return nil
}

// release gives the connection back to the pool, which closes it if it
// is still in a transaction (a COMMIT or ROLLBACK that failed).
func (t *pollTx) release() {
	t.closed = true
	t.conn.Release()
}

// updateFeedSQL writes a feed record ($35 its ID) and deletes its poll
// mark.
const updateFeedSQL = `WITH mark AS (DELETE FROM poll_attempts WHERE feed_id = $35)
	UPDATE feeds SET effective_url = $1, pending_url = $2, title = $3,
		site_url = $4, etag = $5, last_modified = $6, body_hash = $7, last_poll = $8, last_success = $9,
		last_status = $10, last_error = $11, next_poll = $12, reason = $13, error_count = $14, first_error = $15,
		retry_pending = $16, gone_at = $17, dead_at = $18, moved_at = $19, moved_from = $20, origin_flag_at = $21,
		answers_304 = $22, refuses_head = $23, ignores_conditional = $24, ttl_seconds = $25, overflow_gap_seconds = $26,
		next_extra_poll = $27, polls = $28, body_error = $29, repaired = $30, problem = $31, problem_at = $32,
		problem_since = $33, language = $34, etag_untrusted = $36, last_modified_untrusted = $37,
		refuses_conditional = $38, last_get = $39, articles_asked = $40, articles_read = $41, problem_code = $42 WHERE id = $35`

// queueFeedUpdate queues updateFeedSQL for f, an error when there is no
// such feed.
func queueFeedUpdate(b *pgx.Batch, f domain.Feed) {
	b.Queue(updateFeedSQL, feedArgs(f)...).Exec(func(tag pgconn.CommandTag) error {
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("update feed record %d: %w", f.ID, store.ErrNoFeed)
		}
		return nil
	})
}

// feedArgs are the arguments of updateFeedSQL.
func feedArgs(f domain.Feed) []any {
	return []any{f.EffectiveURL, f.PendingURL, f.Title, f.SiteURL, f.ETag, f.LastModified, f.BodyHash,
		at(f.LastPoll), at(f.LastSuccess), f.LastStatus, f.LastError, at(f.NextPoll), f.Reason,
		f.ErrorCount, at(f.FirstError), f.RetryPending, at(f.GoneAt), at(f.DeadAt),
		at(f.MovedAt), f.MovedFrom, at(f.OriginFlagAt), f.Answers304, f.RefusesHEAD,
		f.IgnoresConditional, int64(f.TTL / time.Second), int64(f.OverflowGap / time.Second),
		at(f.NextExtraPoll), f.Polls, f.BodyError, f.Repaired, f.Problem, at(f.ProblemAt),
		at(f.ProblemSince), f.Language, f.ID, f.Distrust.ETag, f.Distrust.LastModified, f.Distrust.Conditional,
		at(f.LastGet), f.ArticlesAsked, f.ArticlesRead, store.ProblemCodeText(f.ProblemCode)}
}

// stillNeeded holds for the entries e that a digest not yet rendered, or
// not yet sent, still has to show.
const stillNeeded = `EXISTS (SELECT 1 FROM digest_entries de JOIN digests d ON d.user_name = de.user_name AND d.date = de.date
	WHERE de.entry_id = e.id AND (d.rendered_at IS NULL OR (d.send_wanted AND d.sent_at IS NULL AND d.send_data_end IS NULL)))`

// Prune deletes entries first seen before cutoff that their feed's body
// stopped listing before it, or whose feed has no subscriber, and with
// them their digests' links, except those a digest still waits to render
// or send (see store.Store.Prune).
func (s *Store) Prune(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM entries e WHERE e.first_seen < $1
		AND (e.left_at < $1 OR e.feed_id NOT IN (SELECT feed_id FROM subscriptions))
		AND NOT `+stillNeeded, at(cutoff))
	if err != nil {
		return 0, fmt.Errorf("prune entries: %w", err)
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM article_claims WHERE claimed_at < $1", at(cutoff)); err != nil {
		return 0, fmt.Errorf("prune article claims: %w", err)
	}
	return tag.RowsAffected(), nil
}

// DropTexts forgets the full texts of entries first seen before cutoff,
// keeping what identifies them (so they are never shown again) and their
// titles, except those a digest still waits to render or send.
func (s *Store) DropTexts(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM entry_texts t USING entries e
		WHERE e.id = t.entry_id AND e.first_seen < $1 AND NOT `+stillNeeded, at(cutoff))
	if err != nil {
		return 0, fmt.Errorf("drop old entry texts: %w", err)
	}
	return tag.RowsAffected(), nil
}

// Compact does nothing: PostgreSQL's autovacuum gives the space of
// deleted rows back for reuse on its own.
func (s *Store) Compact(context.Context) error { return nil }

// Poll marks (see store.Store.BeginAttempt) are rows of poll_attempts,
// one per feed, deleted in the transaction that saves the poll.

// BeginAttempt records, committed at once, that a poll of the feed is
// about to read its body.
func (s *Store) BeginAttempt(ctx context.Context, feedID int64, now time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO poll_attempts (feed_id, started, worker, reads) VALUES ($1, $2, $3, 1)
		ON CONFLICT (feed_id) DO UPDATE SET started = EXCLUDED.started, worker = EXCLUDED.worker,
			reads = poll_attempts.reads + 1`, feedID, at(now), s.worker)
	if err != nil {
		return fmt.Errorf("record the poll of feed %d: %w", feedID, err)
	}
	return nil
}

// UnfinishedAttempts returns the polls started by a run that died before
// saving them, by feed URL: the marks of runs that are not alive (see
// passes.go); those of runs still at work are theirs.
func (s *Store) UnfinishedAttempts(ctx context.Context) ([]store.Attempt, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+feedColumns+`, a.started, a.reads
		FROM feeds JOIN poll_attempts a ON a.feed_id = feeds.id WHERE NOT `+aliveOwner("a.worker")+` ORDER BY url`)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Attempt, error) {
		var a store.Attempt
		var err error
		a.Feed, err = scanFeed(row, timeOf{&a.Started}, &a.Reads)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("list unfinished polls: %w", err)
	}
	return out, nil
}

// DropAttempts forgets the marks of this run and of runs that are not
// alive: for a pass that stopped polling on purpose (interrupted), whose
// unfinished polls did not fail. Those of runs still at work stay.
func (s *Store) DropAttempts(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM poll_attempts a WHERE a.worker = $1 OR NOT `+aliveOwner("a.worker"), s.worker); err != nil {
		return fmt.Errorf("forget unfinished polls: %w", err)
	}
	return nil
}
