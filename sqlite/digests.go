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

const digestColumns = "user, date, since, built_at, notices, entry_count, rendered_at, send_wanted, sent_at, send_error, send_started, " +
	"send_attempts, send_failed_at, send_permanent, send_given_up, send_given_up_why, problems"

func scanDigest(row scanner) (domain.Digest, error) {
	var d domain.Digest
	var since, built, rendered, sent, started, failed, givenUp int64
	var wanted, permanent int
	var notices, problems string
	if err := row.Scan(&d.User, &d.Date, &since, &built, &notices, &d.EntryCount, &rendered, &wanted, &sent, &d.SendError, &started,
		&d.SendAttempts, &failed, &permanent, &givenUp, &d.SendGivenUpWhy, &problems); err != nil {
		return d, err
	}
	d.Since, d.BuiltAt, d.RenderedAt, d.SentAt = fromUnix(since), fromUnix(built), fromUnix(rendered), fromUnix(sent)
	d.SendStarted, d.SendFailedAt, d.SendGivenUp = fromUnix(started), fromUnix(failed), fromUnix(givenUp)
	d.SendWanted, d.SendPermanent = wanted != 0, permanent != 0
	if err := json.Unmarshal([]byte(notices), &d.Notices); err != nil {
		return d, fmt.Errorf("digest %s/%s notices: %w", d.User, d.Date, err)
	}
	if err := json.Unmarshal([]byte(problems), &d.Problems); err != nil {
		return d, fmt.Errorf("digest %s/%s problems: %w", d.User, d.Date, err)
	}
	return d, nil
}

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

// DigestsSince lists every digest dated date or later, by user then date.
func (s *Store) DigestsSince(ctx context.Context, date string) ([]domain.Digest, error) {
	return s.queryDigests(ctx, "WHERE date >= ? ORDER BY user, date", date)
}

// Digests lists a user's digests, newest date first.
func (s *Store) Digests(ctx context.Context, user string) ([]domain.Digest, error) {
	return s.queryDigests(ctx, "WHERE user = ? ORDER BY date DESC", user)
}

// Unrendered lists digests whose pages are not written yet, oldest first.
func (s *Store) Unrendered(ctx context.Context) ([]domain.Digest, error) {
	return s.queryDigests(ctx, "WHERE rendered_at = 0 ORDER BY built_at, user")
}

// Unsent lists digests that want sending, are not sent yet, were not
// given up, and whose last attempt (if any) failed cleanly; oldest first.
func (s *Store) Unsent(ctx context.Context) ([]domain.Digest, error) {
	return s.queryDigests(ctx, "WHERE send_wanted = 1 AND sent_at = 0 AND send_started = 0 AND send_given_up = 0 ORDER BY built_at, user")
}

// NotSent lists every digest that wants sending and is not sent: those
// still to be tried, those cut off by a crash, and those given up at or
// after since; oldest first. For showing why mail did not go out.
func (s *Store) NotSent(ctx context.Context, since time.Time) ([]domain.Digest, error) {
	return s.queryDigests(ctx, "WHERE send_wanted = 1 AND sent_at = 0 AND (send_given_up = 0 OR send_given_up >= ?) ORDER BY built_at, user", unix(since))
}

// InterruptedSends lists digests whose send was cut off by a crash.
func (s *Store) InterruptedSends(ctx context.Context) ([]domain.Digest, error) {
	return s.queryDigests(ctx, "WHERE send_wanted = 1 AND sent_at = 0 AND send_started != 0 ORDER BY built_at, user")
}

// BeginSend records, before the SMTP conversation, that a send started.
// ErrSendTaken when one has begun already, or the digest was sent.
func (s *Store) BeginSend(ctx context.Context, user, date string, now time.Time) error {
	res, err := s.db.ExecContext(ctx, "UPDATE digests SET send_started = ? WHERE user = ? AND date = ? AND send_started = 0 AND sent_at = 0",
		unix(now), user, date)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %s %s", store.ErrSendTaken, user, date)
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
	_, err := s.db.ExecContext(ctx, `UPDATE digests SET send_error = ?, send_started = 0, send_attempts = send_attempts + 1,
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
// transaction: the entries of the user's feeds first seen since the
// previous digest was built (at most store.FirstDigestLimit of each feed's
// newest for a first digest or a newly added feed), never an entry the
// user was already given, and notices of feeds that went away or moved.
func (s *Store) BuildDigest(ctx context.Context, user, date string, now time.Time, sendWanted bool) (domain.Digest, error) {
	d := domain.Digest{User: user, Date: date, BuiltAt: now, SendWanted: sendWanted}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var exists int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM digests WHERE user = ? AND date = ?", user, date).Scan(&exists); err != nil {
			return err
		}
		if exists > 0 {
			return fmt.Errorf("%w: %s %s", store.ErrDigestExists, user, date)
		}
		var prevBuilt int64
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(built_at), 0) FROM digests WHERE user = ?", user).Scan(&prevBuilt); err != nil {
			return err
		}
		d.Since = fromUnix(prevBuilt)
		stmts := &txStatements{tx: tx}
		defer stmts.close()
		ids, err := digestEntryIDs(ctx, stmts, user, prevBuilt, unix(now))
		if err != nil {
			return err
		}
		if d.Notices, err = digestNotices(ctx, tx, user, prevBuilt, unix(now)); err != nil {
			return err
		}
		if d.Problems, err = digestProblems(ctx, tx, user, prevBuilt, unix(now)); err != nil {
			return err
		}
		d.EntryCount = len(ids)
		notices, _ := json.Marshal(d.Notices)
		problems, _ := json.Marshal(d.Problems)
		if _, err := tx.ExecContext(ctx, `INSERT INTO digests (user, date, since, built_at, notices, entry_count, send_wanted, problems)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, user, date, prevBuilt, unix(now), string(notices), len(ids), boolInt(sendWanted),
			string(problems)); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		// In one statement, not one an entry: a digest of 20,000 entries
		// took 0.2 s to insert them one by one, at the end of the poll.
		list, _ := json.Marshal(ids)
		_, err = tx.ExecContext(ctx, "INSERT INTO digest_entries (user, date, entry_id) SELECT ?, ?, value FROM json_each(?)",
			user, date, string(list))
		return err
	})
	if err != nil {
		return domain.Digest{}, fmt.Errorf("build digest %s %s: %w", user, date, err)
	}
	if d.Notices == nil {
		d.Notices = []domain.Notice{}
	}
	if d.Problems == nil {
		d.Problems = []domain.Problem{}
	}
	return d, nil
}

// newestFirst orders entries by their date, falling back to first-seen
// time, and keeps feed order (insertion order) among equals.
const newestFirst = "CASE e.published WHEN 0 THEN e.first_seen ELSE e.published END DESC, e.id ASC"

// notGivenTo filters out the entries a user was shown or passed over.
const notGivenTo = `NOT EXISTS (SELECT 1 FROM digest_entries de WHERE de.user = ?1 AND de.entry_id = e.id)
	AND NOT EXISTS (SELECT 1 FROM withheld_entries w WHERE w.user = ?1 AND w.entry_id = e.id)`

// digestEntryIDs chooses the entries of user's digest built at now, whose
// previous digest was built at since (0: none). A feed the user already
// has brings the entries first seen since then. A feed not yet introduced
// (the user's first digest, a feed newly added, or one that could not be
// read until now) brings what store.Introduce picks: what it published
// since the user subscribed, and the newest of its backlog up to
// store.FirstDigestLimit; the rest of the backlog is withheld for good: it
// was first seen before this digest, so a window on first_seen would offer
// it again next time. A feed not yet read at all stays unintroduced, so
// that its backlog, when it comes, is cut the same way. All of it is
// written in the caller's transaction.
func digestEntryIDs(ctx context.Context, tx *txStatements, user string, since, now int64) ([]int64, error) {
	rows, err := tx.tx.QueryContext(ctx, `SELECT s.feed_id, s.introduced_at != 0,
		f.last_success != 0 OR EXISTS (SELECT 1 FROM entries e WHERE e.feed_id = f.id)
		FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user = ? ORDER BY s.feed_id`, user)
	if err != nil {
		return nil, err
	}
	type sub struct {
		feed             int64
		introduced, read bool
	}
	var subs []sub
	for rows.Next() {
		var s sub
		if err := rows.Scan(&s.feed, &s.introduced, &s.read); err != nil {
			rows.Close()
			return nil, err
		}
		subs = append(subs, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	window, err := windowEntries(ctx, tx, user, since, now)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, s := range subs {
		switch {
		case s.introduced:
			ids = append(ids, window[s.feed]...)
		case s.read:
			got, err := introduce(ctx, tx, user, s.feed, now)
			if err != nil {
				return nil, err
			}
			ids = append(ids, got...)
		}
	}
	return ids, nil
}

// windowEntries are the entries of user's introduced feeds first seen in
// the window of a digest built at now whose previous one was built at
// since, not given to the user yet, by feed, newest first: in one query
// for all the feeds, not one a feed (a user follows hundreds, and a day
// with nothing new ran them all for nothing). Entries at exactly `since`
// count again (>=): a poll in the same second as the last build, after
// it (a later pass with the same clock), must not fall between two
// digests; notGivenTo keeps those the last digest had from showing twice.
func windowEntries(ctx context.Context, tx *txStatements, user string, since, now int64) (map[int64][]int64, error) {
	rows, err := tx.query(ctx, `SELECT e.feed_id, e.id FROM subscriptions s JOIN entries e ON e.feed_id = s.feed_id
		WHERE s.user = ?1 AND s.introduced_at != 0 AND e.first_seen >= ?2 AND e.first_seen <= ?3 AND `+notGivenTo+`
		ORDER BY e.feed_id, `+newestFirst, user, since, now)
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

// introduce brings a feed new to user's digests: its entries that are
// news to the user and the newest of its backlog (store.Introduce); the
// rest of the backlog is withheld from the user for good.
func introduce(ctx context.Context, tx *txStatements, user string, feedID, now int64) ([]int64, error) {
	rows, err := tx.query(ctx, `SELECT e.id, e.first_seen > s.added_at
			AND (e.first_seen > f.first_read OR (e.published >= s.added_at AND e.published <= e.first_seen))
		FROM entries e JOIN subscriptions s ON s.user = ?1 AND s.feed_id = e.feed_id,
			(SELECT MIN(first_seen) AS first_read FROM entries WHERE feed_id = ?2) f
		WHERE e.feed_id = ?2 AND e.first_seen <= ?3 AND `+notGivenTo+` ORDER BY `+newestFirst, user, feedID, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var offered []store.Newcomer
	for rows.Next() {
		var n store.Newcomer
		if err := rows.Scan(&n.ID, &n.News); err != nil {
			return nil, err
		}
		offered = append(offered, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	shown, withheld := store.Introduce(offered)
	if len(withheld) > 0 {
		ids, _ := json.Marshal(withheld)
		if _, err := tx.exec(ctx, "INSERT INTO withheld_entries (user, entry_id) SELECT ?, value FROM json_each(?)",
			user, string(ids)); err != nil {
			return nil, fmt.Errorf("withhold older entries: %w", err)
		}
	}
	if _, err := tx.exec(ctx, "UPDATE subscriptions SET introduced_at = ? WHERE user = ? AND feed_id = ?",
		now, user, feedID); err != nil {
		return nil, err
	}
	return shown, nil
}

// digestNotices finds the user's feeds whose fate changed in (since, now].
func digestNotices(ctx context.Context, tx *sql.Tx, user string, since, now int64) ([]domain.Notice, error) {
	rows, err := tx.QueryContext(ctx, `SELECT f.url, f.effective_url, f.pending_url, f.gone_at, f.dead_at,
		f.moved_at, f.origin_flag_at, f.last_error FROM feeds f JOIN subscriptions s ON s.feed_id = f.id
		WHERE s.user = ? ORDER BY f.url`, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	in := func(t int64) bool { return t > since && t <= now }
	var out []domain.Notice
	for rows.Next() {
		var url, eff, pending, lastErr string
		var gone, dead, moved, origin int64
		if err := rows.Scan(&url, &eff, &pending, &gone, &dead, &moved, &origin, &lastErr); err != nil {
			return nil, err
		}
		switch {
		case in(gone):
			out = append(out, domain.Notice{FeedURL: url, Kind: domain.NoticeGone})
		case in(dead):
			out = append(out, domain.Notice{FeedURL: url, Kind: domain.NoticeDead, Detail: "last error: " + lastErr})
		}
		if in(moved) {
			out = append(out, domain.Notice{FeedURL: url, Kind: domain.NoticeMoved, NewURL: eff})
		}
		if in(origin) && pending != "" {
			out = append(out, domain.Notice{FeedURL: url, Kind: domain.NoticeOrigin, NewURL: pending})
		}
	}
	return out, rows.Err()
}

// DigestIntact says whether every entry of a digest is still stored with
// its texts (see store.Reader).
func (s *Store) DigestIntact(ctx context.Context, user, date string) (bool, error) {
	var count, held, bare int
	err := s.db.QueryRowContext(ctx, `SELECT d.entry_count, COUNT(e.id),
		COALESCE(SUM(t.entry_id IS NULL AND e.content = '' AND e.summary = '' AND e.overflow = 0), 0)
		FROM digests d LEFT JOIN digest_entries de ON de.user = d.user AND de.date = d.date
		LEFT JOIN entries e ON e.id = de.entry_id LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE d.user = ? AND d.date = ? GROUP BY d.user, d.date`, user, date).Scan(&count, &held, &bare)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("digest %s %s: %w", user, date, err)
	}
	return held == count && bare == 0, nil
}

// digestProblems finds the user's feeds that could not be read since the
// previous digest (built at since) up to now: failing now (in the penalty
// box or waiting for a retry), or failed in (since, now] and read again
// since; and those that went for good in (since, now]: gone or dead. A
// feed gone or dead before is not polled, and not told of again (status
// shows it for as long as it is subscribed).
func digestProblems(ctx context.Context, tx *sql.Tx, user string, since, now int64) ([]domain.Problem, error) {
	rows, err := tx.QueryContext(ctx, `SELECT f.url, f.problem, f.problem_at, f.problem_since, f.first_error,
		f.error_count, f.gone_at, f.dead_at, f.last_success FROM feeds f JOIN subscriptions s ON s.feed_id = f.id
		WHERE s.user = ?1 AND ((f.gone_at = 0 AND f.dead_at = 0 AND (f.error_count > 0 OR (f.problem_at > ?2 AND f.problem_at <= ?3)))
			OR (f.gone_at > ?2 AND f.gone_at <= ?3) OR (f.dead_at > ?2 AND f.dead_at <= ?3))
		ORDER BY f.url`, user, since, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []domain.Problem
	for rows.Next() {
		var p domain.Problem
		var at, problemSince, firstError, errCount, gone, dead, success int64
		if err := rows.Scan(&p.FeedURL, &p.Reason, &at, &problemSince, &firstError, &errCount, &gone, &dead, &success); err != nil {
			return nil, err
		}
		switch {
		case gone != 0:
			p.State = domain.ProblemGone
		case dead != 0:
			p.State = domain.ProblemDead
		case errCount > 0:
			p.State = domain.ProblemFailing
		default:
			p.State, p.Until = domain.ProblemRecovered, fromUnix(success)
		}
		// Since when: the first error of the run, else (a 410 at once)
		// when it went wrong.
		for _, t := range []int64{problemSince, firstError, gone, dead, at} {
			if t != 0 {
				p.Since = fromUnix(t)
				break
			}
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// DigestListing returns what a digest lists (see store.Reader): at most
// perFeed of each feed's newest entries, and how many more per feed URL.
// An entry with fragments comes without its raw texts, which only serve
// to make fragments.
func (s *Store) DigestListing(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error) {
	return s.digestListing(ctx, user, date, "", perFeed, listingColumns)
}

// DigestFeedListing is DigestListing of the feed feedURL alone (see
// store.Reader).
func (s *Store) DigestFeedListing(ctx context.Context, user, date, feedURL string, perFeed int) ([]domain.Entry, error) {
	if feedURL == "" {
		return nil, nil
	}
	entries, _, err := s.digestListing(ctx, user, date, feedURL, perFeed, listingColumns)
	return entries, err
}

// DigestTitles is DigestListing without texts, HTML, excerpts or links
// (see store.Reader).
func (s *Store) DigestTitles(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error) {
	return s.digestListing(ctx, user, date, "", perFeed, titleColumns)
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

// digestListing lists the digest's entries, of the feed feedURL alone
// unless it is "".
func (s *Store) digestListing(ctx context.Context, user, date, feedURL string, perFeed int, columns string) ([]domain.Entry, map[string]int, error) {
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
