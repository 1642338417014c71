package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

const digestColumns = "user, date, since, built_at, notices, entry_count, rendered_at, send_wanted, sent_at, send_error, send_started, " +
	"send_data_end, send_attempts, send_failed_at, send_permanent, send_given_up, send_given_up_why, problems, left_out, backlogs"

func scanDigest(row scanner) (domain.Digest, error) {
	var d domain.Digest
	var since, built, rendered, sent, started, dataEnded, failed, givenUp int64
	var wanted, permanent int
	var notices, problems, backlogs string
	if err := row.Scan(&d.User, &d.Date, &since, &built, &notices, &d.EntryCount, &rendered, &wanted, &sent, &d.SendError, &started,
		&dataEnded, &d.SendAttempts, &failed, &permanent, &givenUp, &d.SendGivenUpWhy, &problems, &d.LeftOut, &backlogs); err != nil {
		return d, err
	}
	d.Since, d.BuiltAt, d.RenderedAt, d.SentAt = fromUnix(since), fromUnix(built), fromUnix(rendered), fromUnix(sent)
	d.SendStarted, d.SendDataEnded = fromUnix(started), fromUnix(dataEnded)
	d.SendFailedAt, d.SendGivenUp = fromUnix(failed), fromUnix(givenUp)
	d.SendWanted, d.SendPermanent = wanted != 0, permanent != 0
	return d, store.DecodeNotes(&d, []byte(notices), []byte(problems), []byte(backlogs))
}

// digestsWhere are the conditions of the lists of digests
// (store.DigestLists).
var digestsWhere = store.DigestsWhere{
	DatedSince:  "WHERE date >= ? ORDER BY user, date",
	OfUser:      "WHERE user = ? ORDER BY date DESC",
	Unrendered:  "WHERE rendered_at = 0 ORDER BY built_at, user",
	Unsent:      "WHERE send_wanted = 1 AND sent_at = 0 AND send_started = 0 AND send_given_up = 0 ORDER BY built_at, user",
	NotSent:     "WHERE send_wanted = 1 AND sent_at = 0 AND (send_given_up = 0 OR send_given_up >= ?) ORDER BY built_at, user",
	Interrupted: "WHERE send_wanted = 1 AND sent_at = 0 AND send_data_end != 0 ORDER BY built_at, user",
}

// queryDigests lists the digests where picks (see store.DigestLists).
func (s *Store) queryDigests(ctx context.Context, where string, args ...any) ([]domain.Digest, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+digestColumns+" FROM digests "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("list digests: %w", err)
	}
	defer rows.Close()
	var out []domain.Digest
	for rows.Next() {
		d, err := scanDigest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// HasDigest says whether user already has a digest for the local date.
func (s *Store) HasDigest(ctx context.Context, user, date string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM digests WHERE user = ? AND date = ?", user, date).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up digest: %w", err)
	}
	return n > 0, nil
}

// BeginSend claims the send of a digest for this run (see store.Store).
// ErrSendTaken when this run holds the claim already, or the digest was
// sent or its data ended. The claims of a run that died are released
// when the next one opens the file (releaseDeadClaims).
func (s *Store) BeginSend(ctx context.Context, user, date string, now time.Time) error {
	return s.sendStep(ctx, "UPDATE digests SET send_started = ? WHERE user = ? AND date = ? AND send_started = 0 AND sent_at = 0",
		unix(now), user, date)
}

// EndSendData records that the message's data is about to end (see
// store.Store). ErrSendTaken without this run's claim.
func (s *Store) EndSendData(ctx context.Context, user, date string, now time.Time) error {
	return s.sendStep(ctx, `UPDATE digests SET send_data_end = ? WHERE user = ? AND date = ?
		AND send_started != 0 AND send_data_end = 0 AND sent_at = 0`, unix(now), user, date)
}

// sendStep runs the update of a send's claim, args ending in the user
// and the date: ErrSendTaken when it changed no row.
func (s *Store) sendStep(ctx context.Context, update string, args ...any) error {
	res, err := s.db.ExecContext(ctx, update, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %s %s", store.ErrSendTaken, args[len(args)-2], args[len(args)-1])
	}
	return nil
}

// releaseDeadClaims frees the sends claimed by a run that died before
// the message's data ended: the run lock is this process's alone, so
// every claim found when opening is a dead run's, and the server cannot
// have taken a message whose data did not end.
func (s *Store) releaseDeadClaims(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, "UPDATE digests SET send_started = 0 WHERE send_started != 0 AND send_data_end = 0 AND sent_at = 0")
	if err != nil {
		return fmt.Errorf("release the sends of a run that died: %w", err)
	}
	return nil
}

// MarkRendered records that a digest's pages (and outbox file) are written.
func (s *Store) MarkRendered(ctx context.Context, user, date string, now time.Time) error {
	_, err := s.db.ExecContext(ctx, "UPDATE digests SET rendered_at = ? WHERE user = ? AND date = ?", unix(now), user, date)
	return err
}

// MarkSent records a digest sent at now.
func (s *Store) MarkSent(ctx context.Context, user, date string, now time.Time) error {
	_, err := s.db.ExecContext(ctx, "UPDATE digests SET sent_at = ?, send_error = '' WHERE user = ? AND date = ?", unix(now), user, date)
	return err
}

// MarkSendFailed records a failed attempt to send a digest at now: one
// more attempt, its error, and whether the failure was permanent.
func (s *Store) MarkSendFailed(ctx context.Context, user, date string, now time.Time, why string, permanent bool) error {
	_, err := s.db.ExecContext(ctx, `UPDATE digests SET send_error = ?, send_started = 0, send_data_end = 0, send_attempts = send_attempts + 1,
		send_failed_at = ?, send_permanent = ? WHERE user = ? AND date = ?`, why, unix(now), boolInt(permanent), user, date)
	return err
}

// GiveUpSend stops all further attempts to send a digest; why says so to
// the people reading status. Its page stays.
func (s *Store) GiveUpSend(ctx context.Context, user, date string, now time.Time, why string) error {
	_, err := s.db.ExecContext(ctx, "UPDATE digests SET send_given_up = ?, send_given_up_why = ? WHERE user = ? AND date = ?",
		unix(now), why, user, date)
	return err
}

// SkipSend records that a digest is not to be mailed after all (see
// store.Store): it no longer wants sending. A send already started or
// done stays as it is.
func (s *Store) SkipSend(ctx context.Context, user, date string) error {
	_, err := s.db.ExecContext(ctx, "UPDATE digests SET send_wanted = 0 WHERE user = ? AND date = ? AND sent_at = 0 AND send_started = 0",
		user, date)
	return err
}

// BuildDigest records the digest of user for date, built at now, in one
// transaction: store.BuildDigest decides over the rows digestRows reads.
func (s *Store) BuildDigest(ctx context.Context, user, date string, now time.Time, sendWanted bool, sieve store.Sieve) (domain.Digest, error) {
	var d domain.Digest
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows := &digestRows{txStatements{tx: tx}}
		defer rows.close()
		var err error
		d, err = store.BuildDigest(ctx, rows, user, date, now, sendWanted, sieve)
		return err
	})
	if err != nil {
		return domain.Digest{}, fmt.Errorf("build digest %s %s: %w", user, date, err)
	}
	return d, nil
}

// newestFirst orders entries by their date, falling back to first-seen
// time, and keeps feed order (insertion order) among equals.
const newestFirst = "CASE e.published WHEN 0 THEN e.first_seen ELSE e.published END DESC, e.id ASC"

// notGivenTo filters out the entries a user was shown or passed over.
const notGivenTo = `NOT EXISTS (SELECT 1 FROM digest_entries de WHERE de.user = ?1 AND de.entry_id = e.id)
	AND NOT EXISTS (SELECT 1 FROM withheld_entries w WHERE w.user = ?1 AND w.entry_id = e.id)`

// digestRows reads and writes the rows of one digest's build
// (store.DigestTx), each statement prepared once however many feeds run
// it.
type digestRows struct{ txStatements }

func (r *digestRows) DigestExists(ctx context.Context, user, date string) (bool, error) {
	var n int
	err := r.tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM digests WHERE user = ? AND date = ?", user, date).Scan(&n)
	return n > 0, err
}

func (r *digestRows) LastBuilt(ctx context.Context, user string) (time.Time, error) {
	var built int64
	err := r.tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(built_at), 0) FROM digests WHERE user = ?", user).Scan(&built)
	return fromUnix(built), err
}

func (r *digestRows) Subscribed(ctx context.Context, user string) ([]store.Subscribed, error) {
	rows, err := r.tx.QueryContext(ctx, "SELECT "+feedColumns+`, s.added_at, s.introduced_at,
		EXISTS (SELECT 1 FROM entries e WHERE e.feed_id = f.id)
		FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user = ? ORDER BY f.url`, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Subscribed
	for rows.Next() {
		var s store.Subscribed
		var added, introduced int64
		var err error
		if s.Feed, err = scanFeed(rows, &added, &introduced, &s.HasEntries); err != nil {
			return nil, err
		}
		s.AddedAt, s.IntroducedAt = fromUnix(added), fromUnix(introduced)
		out = append(out, s)
	}
	return out, rows.Err()
}

// Window is in one query for all the feeds (see store.DigestTx).
func (r *digestRows) Window(ctx context.Context, user string, since, now time.Time) (map[int64][]int64, error) {
	rows, err := r.query(ctx, `SELECT e.feed_id, e.id FROM subscriptions s JOIN entries e ON e.feed_id = s.feed_id
		WHERE s.user = ?1 AND s.introduced_at != 0 AND e.first_seen >= ?2 AND e.first_seen <= ?3 AND `+notGivenTo+`
		ORDER BY e.feed_id, `+newestFirst, user, unix(since), unix(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	window := map[int64][]int64{}
	for rows.Next() {
		var feed, id int64
		if err := rows.Scan(&feed, &id); err != nil {
			return nil, err
		}
		window[feed] = append(window[feed], id)
	}
	return window, rows.Err()
}

func (r *digestRows) Offered(ctx context.Context, user string, feedID int64, now time.Time) ([]store.Offered, time.Time, error) {
	rows, err := r.query(ctx, `SELECT e.id, e.published, e.first_seen, f.first_read
		FROM entries e, (SELECT MIN(first_seen) AS first_read FROM entries WHERE feed_id = ?2) f
		WHERE e.feed_id = ?2 AND e.first_seen <= ?3 AND `+notGivenTo+` ORDER BY `+newestFirst, user, feedID, unix(now))
	if err != nil {
		return nil, time.Time{}, err
	}
	defer rows.Close()
	var offered []store.Offered
	var firstRead int64
	for rows.Next() {
		var o store.Offered
		var published, seen int64
		if err := rows.Scan(&o.ID, &published, &seen, &firstRead); err != nil {
			return nil, time.Time{}, err
		}
		o.Published, o.FirstSeen = fromUnix(published), fromUnix(seen)
		offered = append(offered, o)
	}
	return offered, fromUnix(firstRead), rows.Err()
}

func (r *digestRows) Introduced(ctx context.Context, user string, feedID int64, now time.Time, withheld []int64) error {
	if len(withheld) > 0 {
		ids, _ := json.Marshal(withheld)
		if _, err := r.exec(ctx, "INSERT INTO withheld_entries (user, entry_id) SELECT ?, value FROM json_each(?)",
			user, string(ids)); err != nil {
			return fmt.Errorf("withhold older entries: %w", err)
		}
	}
	_, err := r.exec(ctx, "UPDATE subscriptions SET introduced_at = ? WHERE user = ? AND feed_id = ?", unix(now), user, feedID)
	return err
}

func (r *digestRows) InsertDigest(ctx context.Context, d domain.Digest, entries []int64) error {
	notices, problems, backlogs := store.EncodeNotes(d)
	if _, err := r.tx.ExecContext(ctx, `INSERT INTO digests (user, date, since, built_at, notices, entry_count, send_wanted, problems, left_out, backlogs)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.User, d.Date, unix(d.Since), unix(d.BuiltAt), notices, d.EntryCount,
		boolInt(d.SendWanted), problems, d.LeftOut, backlogs); err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	// In one statement, not one an entry: a digest of 20,000 entries
	// took 0.2 s to insert them one by one, at the end of the poll.
	list, _ := json.Marshal(entries)
	_, err := r.tx.ExecContext(ctx, "INSERT INTO digest_entries (user, date, entry_id) SELECT ?, ?, value FROM json_each(?)",
		d.User, d.Date, string(list))
	return err
}

// Judged reads entries as rules look at them (see store.DigestTx).
func (r *digestRows) Judged(ctx context.Context, ids []int64) ([]domain.Entry, error) {
	list, _ := json.Marshal(ids)
	return queryJudged(ctx, r.tx, "e.id IN (SELECT value FROM json_each(?))", string(list))
}

// RecentEntries lists the entries of feeds first seen since, as rules
// look at them (see store.Reader).
func (s *Store) RecentEntries(ctx context.Context, feedURLs []string, since time.Time) ([]domain.Entry, error) {
	list, _ := json.Marshal(feedURLs)
	return queryJudged(ctx, s.db, "f.url IN (SELECT value FROM json_each(?)) AND e.first_seen >= ?", string(list), unix(since))
}

// queryJudged reads the entries where says, newest first, as rules
// look at them: with their feed's URL, categories and texts.
func queryJudged(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, where string, args ...any) ([]domain.Entry, error) {
	rows, err := q.QueryContext(ctx, `SELECT e.id, f.url, e.key, e.title, e.link, e.author, e.categories,
		e.published, e.first_seen, e.content, t.content_z, e.summary, t.summary_z, COALESCE(t.fragment_rules, 0), t.shown_z
		FROM entries e JOIN feeds f ON f.id = e.feed_id LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE `+where+` ORDER BY `+newestFirst, args...)
	if err != nil {
		return nil, fmt.Errorf("entries for rules: %w", err)
	}
	defer rows.Close()
	var out []domain.Entry
	for rows.Next() {
		var e domain.Entry
		var categories string
		var pub, seen int64
		var contentZ, summaryZ, shownZ []byte
		if err := rows.Scan(&e.ID, &e.FeedURL, &e.Key, &e.Title, &e.Link, &e.Author, &categories, &pub, &seen,
			&e.Content, &contentZ, &e.Summary, &summaryZ, &e.Fragments.Rules, &shownZ); err != nil {
			return nil, err
		}
		if err := readTexts(&e, contentZ, summaryZ, shownZ, true); err != nil {
			return nil, err
		}
		e.Categories = store.DecodeCategories(categories)
		e.Published, e.FirstSeen = fromUnix(pub), fromUnix(seen)
		out = append(out, e)
	}
	return out, rows.Err()
}

func (r *digestRows) Withhold(ctx context.Context, user string, ids []int64) error {
	list, _ := json.Marshal(ids)
	_, err := r.exec(ctx, "INSERT OR IGNORE INTO withheld_entries (user, entry_id) SELECT ?, value FROM json_each(?)", user, string(list))
	return err
}

// DigestIntact says whether every entry of a digest is still stored with
// its texts (see store.Reader).
func (s *Store) DigestIntact(ctx context.Context, user, date string) (bool, error) {
	var h store.DigestHeld
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(d.entry_count), -1), COUNT(e.id),
		COALESCE(SUM(t.entry_id IS NULL AND e.content = '' AND e.summary = '' AND e.overflow = 0), 0)
		FROM digests d LEFT JOIN digest_entries de ON de.user = d.user AND de.date = d.date
		LEFT JOIN entries e ON e.id = de.entry_id LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE d.user = ? AND d.date = ?`, user, date).Scan(&h.Built, &h.Stored, &h.Bare)
	if err != nil {
		return false, fmt.Errorf("digest %s %s: %w", user, date, err)
	}
	return h.Intact(), nil
}

// The columns of a listing after the entry's own: the texts of an entry
// without fragments, and the fragments; or, for titles only, no
// fragments but the display title.
const (
	listingColumns = `COALESCE(t.fragment_rules, 0),
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN e.content ELSE '' END,
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN t.content_z END,
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN e.summary ELSE '' END,
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN t.summary_z END,
		COALESCE(t.shown_title, ''), t.shown_z`
	titleColumns = `COALESCE(t.fragment_rules, 0),
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN e.content ELSE '' END,
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN t.content_z END,
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN e.summary ELSE '' END,
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN t.summary_z END,
		COALESCE(t.shown_title, ''), NULL`
)

// feedListing is the query of DigestFeedListing, run for each feed of
// every digest page: prepared once (see hotQueries).
var feedListing = listingQuery(true, listingColumns)

// listingQuery lists a digest's entries with columns, of one feed when
// oneFeed; its arguments are the user, the date, the feed's URL and
// perFeed.
func listingQuery(oneFeed bool, columns string) string {
	// Of one feed, the digest's entries are found from the feed's (not by
	// scanning the whole digest's for each feed).
	inDigest := `digest_entries de JOIN entries e ON e.id = de.entry_id WHERE de.user = ?1 AND de.date = ?2`
	if oneFeed {
		inDigest = `entries e CROSS JOIN digest_entries de ON de.user = ?1 AND de.entry_id = e.id
			WHERE e.feed_id = (SELECT id FROM feeds WHERE url = ?3) AND de.date = ?2`
	}
	return `SELECT e.id, e.feed_id, f.url, e.key, e.title, e.link, e.author,
		e.published, e.enclosures, e.first_seen, r.total, ` + columns + `
		FROM (
			SELECT e.id, ROW_NUMBER() OVER (PARTITION BY e.feed_id ORDER BY ` + newestFirst + `) AS rank,
				COUNT(*) OVER (PARTITION BY e.feed_id) AS total
			FROM ` + inDigest + `
		) r JOIN entries e ON e.id = r.id JOIN feeds f ON f.id = e.feed_id
		LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE ?4 <= 0 OR r.rank <= ?4 ORDER BY f.url, ` + newestFirst
}

// digestListing lists the digest's entries (see store.DigestListings),
// of the feed feedURL alone unless it is "".
func (s *Store) digestListing(ctx context.Context, user, date, feedURL string, perFeed int, titlesOnly bool) ([]domain.Entry, map[string]int, error) {
	columns := listingColumns
	if titlesOnly {
		columns = titleColumns
	}
	query := listingQuery(feedURL != "", columns)
	args := []any{user, date, feedURL, perFeed}
	var rows *sql.Rows
	var err error
	if st, ok := s.hot[query]; ok {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = s.db.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("digest entries: %w", err)
	}
	defer rows.Close()
	var out []domain.Entry
	more := map[string]int{}
	for rows.Next() {
		var e domain.Entry
		var pub, seen int64
		var total int
		var contentZ, summaryZ, shownZ []byte
		var enclosures string
		if err := rows.Scan(&e.ID, &e.FeedID, &e.FeedURL, &e.Key, &e.Title, &e.Link, &e.Author, &pub, &enclosures, &seen,
			&total, &e.Fragments.Rules, &e.Content, &contentZ, &e.Summary, &summaryZ,
			&e.Fragments.Title, &shownZ); err != nil {
			return nil, nil, err
		}
		var err error
		if e.Enclosures, err = decodeEnclosures(enclosures); err != nil {
			return nil, nil, fmt.Errorf("entry %s: %w", e.Key, err)
		}
		if err = readTexts(&e, contentZ, summaryZ, shownZ, false); err != nil {
			return nil, nil, err
		}
		e.Published, e.FirstSeen = fromUnix(pub), fromUnix(seen)
		if perFeed > 0 && total > perFeed {
			more[e.FeedURL] = total - perFeed
		}
		out = append(out, e)
	}
	return out, more, rows.Err()
}

// readTexts fills in e's texts and fragments from their stored forms:
// the texts of an entry without fragments, the fragments of one with
// them (and its texts when withTexts).
func readTexts(e *domain.Entry, contentZ, summaryZ, shownZ []byte, withTexts bool) error {
	var err error
	if e.Content, err = decompress(contentZ, e.Content); err != nil {
		return fmt.Errorf("entry %s: %w", e.Key, err)
	}
	if e.Summary, err = decompress(summaryZ, e.Summary); err != nil {
		return fmt.Errorf("entry %s: %w", e.Key, err)
	}
	if e.Fragments.Rules == 0 {
		e.Fragments = domain.Fragments{}
		return nil
	}
	if shownZ == nil {
		return nil // the title alone was asked for
	}
	if err := unpackShown(shownZ, e, withTexts); err != nil {
		return fmt.Errorf("entry %s: %w", e.Key, err)
	}
	return nil
}

// StaleFragments lists entries with texts whose fragments were not made
// by rules (see store.Store).
func (s *Store) StaleFragments(ctx context.Context, rules int, afterID int64, limit int) ([]domain.Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.id, e.feed_id, f.url, e.key, e.title, e.link, e.author,
		e.published, e.first_seen, e.content, t.content_z, e.summary, t.summary_z,
		COALESCE(t.fragment_rules, 0), t.shown_z
		FROM entries e JOIN feeds f ON f.id = e.feed_id LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE e.id > ? AND (e.id IN (SELECT entry_id FROM entry_texts WHERE fragment_rules != ?)
			OR (t.entry_id IS NULL AND (e.content != '' OR e.summary != '')))
		ORDER BY e.id LIMIT ?`, afterID, rules, limit)
	if err != nil {
		return nil, fmt.Errorf("entries to show anew: %w", err)
	}
	defer rows.Close()
	var out []domain.Entry
	for rows.Next() {
		var e domain.Entry
		var pub, seen int64
		var contentZ, summaryZ, shownZ []byte
		if err := rows.Scan(&e.ID, &e.FeedID, &e.FeedURL, &e.Key, &e.Title, &e.Link, &e.Author, &pub, &seen,
			&e.Content, &contentZ, &e.Summary, &summaryZ, &e.Fragments.Rules, &shownZ); err != nil {
			return nil, err
		}
		if err := readTexts(&e, contentZ, summaryZ, shownZ, true); err != nil {
			return nil, err
		}
		e.Fragments = domain.Fragments{} // to be made again
		e.Published, e.FirstSeen = fromUnix(pub), fromUnix(seen)
		out = append(out, e)
	}
	return out, rows.Err()
}

// SaveFragments stores the fragments of entries as StaleFragments gave
// them, texts included (see store.Store), in one transaction: the texts
// move into the frame they share with the fragments (packShown).
func (s *Store) SaveFragments(ctx context.Context, entries []domain.Entry) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, e := range entries {
			_, err := tx.ExecContext(ctx, `INSERT INTO entry_texts (entry_id, content_z, summary_z,
				fragment_rules, shown_title, shown_z) VALUES (?, NULL, NULL, ?, ?, ?) ON CONFLICT (entry_id) DO UPDATE SET
				content_z = NULL, summary_z = NULL, fragment_rules = excluded.fragment_rules,
				shown_title = excluded.shown_title, shown_z = excluded.shown_z`,
				e.ID, e.Fragments.Rules, e.Fragments.Title, packShown(e))
			if err != nil {
				return fmt.Errorf("store how entry %d is shown: %w", e.ID, err)
			}
		}
		return nil
	})
}

// txStatements prepares each statement a transaction runs once, however
// many times it runs it: building a digest runs the same few for every
// subscription and every entry, and SQLite compiling them each time cost
// more than running them.
type txStatements struct {
	tx       *sql.Tx
	prepared map[string]*sql.Stmt
}

func (t *txStatements) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := t.prepared[query]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if t.prepared == nil {
		t.prepared = map[string]*sql.Stmt{}
	}
	t.prepared[query] = st
	return st, nil
}

func (t *txStatements) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (t *txStatements) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// close closes the statements (a transaction's end closes them too; this
// frees them at once).
func (t *txStatements) close() {
	for _, st := range t.prepared {
		st.Close()
	}
}
