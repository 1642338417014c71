package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/domain"
	"feeddigest/store"
)

const digestColumns = "user_name, date, since, built_at, notices, entry_count, rendered_at, send_wanted, sent_at, send_error, " +
	"send_started, send_data_end, send_attempts, send_failed_at, send_permanent, send_given_up, send_given_up_why, problems, left_out, backlogs"

func scanDigest(row pgx.Row) (domain.Digest, error) {
	var d domain.Digest
	var notices, problems, backlogs []byte
	if err := row.Scan(&d.User, &d.Date, timeOf{&d.Since}, timeOf{&d.BuiltAt}, &notices, &d.EntryCount, timeOf{&d.RenderedAt},
		&d.SendWanted, timeOf{&d.SentAt}, &d.SendError, timeOf{&d.SendStarted}, timeOf{&d.SendDataEnded}, &d.SendAttempts, timeOf{&d.SendFailedAt},
		&d.SendPermanent, timeOf{&d.SendGivenUp}, &d.SendGivenUpWhy, &problems, &d.LeftOut, &backlogs); err != nil {
		return d, err
	}
	return d, store.DecodeNotes(&d, notices, problems, backlogs)
}

// digestsWhere are the conditions of the lists of digests
// (store.DigestLists).
var digestsWhere = store.DigestsWhere{
	DatedSince: "WHERE date >= $1 ORDER BY user_name, date",
	OfUser:     "WHERE user_name = $1 ORDER BY date DESC",
	Unrendered: "WHERE rendered_at IS NULL ORDER BY built_at, user_name",
	// $1: this run's worker (see Store.Unsent).
	Unsent: `WHERE send_wanted AND sent_at IS NULL AND send_given_up IS NULL AND send_data_end IS NULL
		AND (send_started IS NULL OR ` + claimFreed + `) ORDER BY built_at, user_name`,
	NotSent: `WHERE send_wanted AND sent_at IS NULL AND (send_given_up IS NULL OR send_given_up >= $1)
		ORDER BY built_at, user_name`,
	Interrupted: "WHERE send_wanted AND sent_at IS NULL AND send_data_end IS NOT NULL ORDER BY built_at, user_name",
}

// claimFreed holds for a send claimed by a worker ($1 is this run's)
// that is not this run and is no longer alive: it died before the end
// of the message's data (or the digest would not be listed), so the
// server cannot have taken the mail.
var claimFreed = "(send_claim IS DISTINCT FROM $1 AND NOT " + aliveOwner("send_claim") + ")"

// Unsent lists the digests to be sent (see store.Reader), those whose
// claim died before the end of their data among them.
func (s *Store) Unsent(ctx context.Context) ([]domain.Digest, error) {
	return s.queryDigests(ctx, s.Where.Unsent, s.worker)
}

// queryDigests lists the digests where picks (see store.DigestLists).
func (s *Store) queryDigests(ctx context.Context, where string, args ...any) ([]domain.Digest, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+digestColumns+" FROM digests "+where, args...)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Digest, error) { return scanDigest(row) })
	if err != nil {
		return nil, fmt.Errorf("list digests: %w", err)
	}
	return out, nil
}

// HasDigest says whether user already has a digest for the local date.
func (s *Store) HasDigest(ctx context.Context, user, date string) (bool, error) {
	var has bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM digests WHERE user_name = $1 AND date = $2)", user, date).Scan(&has)
	if err != nil {
		return false, fmt.Errorf("look up digest: %w", err)
	}
	return has, nil
}

func (s *Store) updateDigest(ctx context.Context, what, set string, args ...any) error {
	n := len(args)
	_, err := s.pool.Exec(ctx, fmt.Sprintf("UPDATE digests SET %s WHERE user_name = $%d AND date = $%d", set, n-1, n), args...)
	if err != nil {
		return fmt.Errorf("%s %s %s: %w", what, args[n-2], args[n-1], err)
	}
	return nil
}

// BeginSend claims the send of a digest for this run's worker (see
// store.Store): the update is the claim. ErrSendTaken when a live
// worker (this one too) holds it, or the digest was sent or its data
// ended; a claim whose worker's lease lapsed before the end of the data
// is taken over.
func (s *Store) BeginSend(ctx context.Context, user, date string, now time.Time) error {
	return s.sendStep(ctx, "begin sending", `UPDATE digests SET send_started = $2, send_claim = $1
		WHERE user_name = $3 AND date = $4 AND sent_at IS NULL AND send_data_end IS NULL
		AND (send_started IS NULL OR `+claimFreed+`)`, s.worker, at(now), user, date)
}

// EndSendData records that the message's data is about to end (see
// store.Store). ErrSendTaken unless this run's worker holds the claim: a
// worker whose lease lapsed may have lost it to another.
func (s *Store) EndSendData(ctx context.Context, user, date string, now time.Time) error {
	return s.sendStep(ctx, "end the data of", `UPDATE digests SET send_data_end = $2 WHERE user_name = $3 AND date = $4
		AND send_claim = $1 AND send_started IS NOT NULL AND send_data_end IS NULL AND sent_at IS NULL`, s.worker, at(now), user, date)
}

// sendStep runs the update of a send's claim, args ending in the user
// and the date: ErrSendTaken when it changed no row.
func (s *Store) sendStep(ctx context.Context, what, update string, args ...any) error {
	user, date := args[len(args)-2], args[len(args)-1]
	tag, err := s.pool.Exec(ctx, update, args...)
	if err != nil {
		return fmt.Errorf("%s %s %s: %w", what, user, date, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %s %s", store.ErrSendTaken, user, date)
	}
	return nil
}

// MarkRendered records that a digest's pages (and outbox file) are written.
func (s *Store) MarkRendered(ctx context.Context, user, date string, now time.Time) error {
	return s.updateDigest(ctx, "mark rendered", "rendered_at = $1", at(now), user, date)
}

// MarkSent records a digest sent at now.
func (s *Store) MarkSent(ctx context.Context, user, date string, now time.Time) error {
	return s.updateDigest(ctx, "mark sent", "sent_at = $1, send_error = ''", at(now), user, date)
}

// MarkSendFailed records a failed attempt to send a digest at now: one
// more attempt, its error, and whether the failure was permanent.
func (s *Store) MarkSendFailed(ctx context.Context, user, date string, now time.Time, why string, permanent bool) error {
	return s.updateDigest(ctx, "record the failed send of", `send_error = $1, send_started = NULL,
		send_claim = NULL, send_data_end = NULL, send_attempts = send_attempts + 1, send_failed_at = $2, send_permanent = $3`, why, at(now), permanent, user, date)
}

// GiveUpSend stops all further attempts to send a digest; why says so to
// the people reading status. Its page stays.
func (s *Store) GiveUpSend(ctx context.Context, user, date string, now time.Time, why string) error {
	return s.updateDigest(ctx, "give up sending", "send_given_up = $1, send_given_up_why = $2", at(now), why, user, date)
}

// SkipSend records that a digest is not to be mailed after all (see
// store.Store): it no longer wants sending. A send already started or
// done stays as it is.
func (s *Store) SkipSend(ctx context.Context, user, date string) error {
	_, err := s.pool.Exec(ctx, `UPDATE digests SET send_wanted = false WHERE user_name = $1 AND date = $2
		AND sent_at IS NULL AND send_started IS NULL`, user, date)
	if err != nil {
		return fmt.Errorf("skip sending %s %s: %w", user, date, err)
	}
	return nil
}

// BuildDigest records the digest of user for date, built at now, in one
// transaction: store.BuildDigest decides over the rows digestRows reads.
func (s *Store) BuildDigest(ctx context.Context, user, date string, now time.Time, sendWanted bool, sieve store.Sieve) (domain.Digest, error) {
	var d domain.Digest
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The user's row lock: one build of the user's digests at a time,
		// whichever run asks (the window starts at the previous build).
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", lockClass, "digest:"+user); err != nil {
			return err
		}
		var err error
		d, err = store.BuildDigest(ctx, digestRows{tx}, user, date, now.UTC().Truncate(time.Second), sendWanted, sieve)
		return err
	})
	if err != nil {
		return domain.Digest{}, fmt.Errorf("build digest %s %s: %w", user, date, err)
	}
	return d, nil
}

// newestFirst orders entries by their date, falling back to first-seen
// time, and keeps feed order (insertion order) among equals.
const newestFirst = "COALESCE(e.published, e.first_seen) DESC, e.id ASC"

// notGivenTo filters out the entries the user ($1) was shown or passed over.
const notGivenTo = `NOT EXISTS (SELECT 1 FROM digest_entries de WHERE de.user_name = $1 AND de.entry_id = e.id)
	AND NOT EXISTS (SELECT 1 FROM withheld_entries w WHERE w.user_name = $1 AND w.entry_id = e.id)`

// digestRows reads and writes the rows of one digest's build
// (store.DigestTx).
type digestRows struct{ tx pgx.Tx }

func (r digestRows) DigestExists(ctx context.Context, user, date string) (bool, error) {
	var exists bool
	err := r.tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM digests WHERE user_name = $1 AND date = $2)", user, date).Scan(&exists)
	return exists, err
}

func (r digestRows) LastBuilt(ctx context.Context, user string) (time.Time, error) {
	var built time.Time
	err := r.tx.QueryRow(ctx, "SELECT max(built_at) FROM digests WHERE user_name = $1", user).Scan(timeOf{&built})
	return built, err
}

func (r digestRows) Subscribed(ctx context.Context, user string) ([]store.Subscribed, error) {
	rows, _ := r.tx.Query(ctx, "SELECT "+feedColumns+`, s.added_at, s.introduced_at,
		EXISTS (SELECT 1 FROM entries e WHERE e.feed_id = f.id)
		FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.user_name = $1 ORDER BY f.url`, user)
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Subscribed, error) {
		var s store.Subscribed
		var err error
		s.Feed, err = scanFeed(row, timeOf{&s.AddedAt}, timeOf{&s.IntroducedAt}, &s.HasEntries)
		return s, err
	})
}

// Window is planned for its arguments each time (QueryExecModeExec), not
// once for any: a plan made without knowing the times guesses that few
// entries fall between them and reads every entry of the period (40 ms a
// digest at 60,000 entries) rather than the user's feeds'.
func (r digestRows) Window(ctx context.Context, user string, since, now time.Time) (map[int64][]int64, error) {
	rows, _ := r.tx.Query(ctx, `SELECT e.feed_id, e.id FROM subscriptions s JOIN entries e ON e.feed_id = s.feed_id
		WHERE s.user_name = $1 AND s.introduced_at IS NOT NULL
		AND e.first_seen >= $2 AND e.first_seen <= $3 AND `+notGivenTo+` ORDER BY e.feed_id, `+newestFirst,
		pgx.QueryExecModeExec, user, orEpoch(since), now)
	window := map[int64][]int64{}
	var feed, id int64
	_, err := pgx.ForEachRow(rows, []any{&feed, &id}, func() error {
		window[feed] = append(window[feed], id)
		return nil
	})
	return window, err
}

func (r digestRows) Offered(ctx context.Context, user string, feedID int64, now time.Time) ([]store.Offered, time.Time, error) {
	rows, _ := r.tx.Query(ctx, `SELECT e.id, e.published, e.first_seen, f.first_read
		FROM entries e, (SELECT min(first_seen) AS first_read FROM entries WHERE feed_id = $2) f
		WHERE e.feed_id = $2 AND e.first_seen <= $3 AND `+notGivenTo+` ORDER BY `+newestFirst, user, feedID, now)
	var offered []store.Offered
	var o store.Offered
	var firstRead time.Time
	_, err := pgx.ForEachRow(rows, []any{&o.ID, timeOf{&o.Published}, timeOf{&o.FirstSeen}, timeOf{&firstRead}}, func() error {
		offered = append(offered, o)
		return nil
	})
	return offered, firstRead, err
}

func (r digestRows) Introduced(ctx context.Context, user string, feedID int64, now time.Time, withheld []int64) error {
	if len(withheld) > 0 {
		if _, err := r.tx.Exec(ctx, "INSERT INTO withheld_entries (user_name, entry_id) SELECT $1, unnest($2::bigint[])",
			user, withheld); err != nil {
			return fmt.Errorf("withhold older entries: %w", err)
		}
	}
	_, err := r.tx.Exec(ctx, "UPDATE subscriptions SET introduced_at = $1 WHERE user_name = $2 AND feed_id = $3", now, user, feedID)
	return err
}

func (r digestRows) InsertDigest(ctx context.Context, d domain.Digest, entries []int64) error {
	notices, problems, backlogs := store.EncodeNotes(d)
	if _, err := r.tx.Exec(ctx, `INSERT INTO digests (user_name, date, since, built_at, notices, entry_count, send_wanted, problems, left_out, backlogs)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, d.User, d.Date, at(d.Since), at(d.BuiltAt), notices, d.EntryCount,
		d.SendWanted, problems, d.LeftOut, backlogs); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("%w: %s %s", store.ErrDigestExists, d.User, d.Date)
		}
		return err
	}
	_, err := r.tx.Exec(ctx, `INSERT INTO digest_entries (user_name, date, entry_id)
		SELECT $1, $2, unnest($3::bigint[])`, d.User, d.Date, entries)
	return err
}

// Judged reads entries as rules look at them (see store.DigestTx).
func (r digestRows) Judged(ctx context.Context, ids []int64) ([]domain.Entry, error) {
	return queryJudged(ctx, r.tx, "e.id = ANY($1::bigint[])", ids)
}

// RecentEntries lists the entries of feeds first seen since, as rules
// look at them (see store.Reader).
func (s *Store) RecentEntries(ctx context.Context, feedURLs []string, since time.Time) ([]domain.Entry, error) {
	return queryJudged(ctx, s.pool, "f.url = ANY($1::text[]) AND e.first_seen >= $2", feedURLs, since)
}

// queryJudged reads the entries where says, newest first, as rules
// look at them: with their feed's URL, categories and texts.
func queryJudged(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, where string, args ...any) ([]domain.Entry, error) {
	rows, _ := q.Query(ctx, `SELECT e.id, f.url, e.key, e.title, e.link, e.author, e.categories, e.published, e.first_seen,
		COALESCE(t.content, ''), COALESCE(t.summary, '')
		FROM entries e JOIN feeds f ON f.id = e.feed_id LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE `+where+` ORDER BY `+newestFirst, args...)
	var out []domain.Entry
	var e domain.Entry
	var categories string
	_, err := pgx.ForEachRow(rows, []any{&e.ID, &e.FeedURL, &e.Key, &e.Title, &e.Link, &e.Author, &categories,
		timeOf{&e.Published}, timeOf{&e.FirstSeen}, &e.Content, &e.Summary}, func() error {
		entry := e
		entry.Categories = store.DecodeCategories(categories)
		out = append(out, entry)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("entries for rules: %w", err)
	}
	return out, nil
}

func (r digestRows) Withhold(ctx context.Context, user string, ids []int64) error {
	_, err := r.tx.Exec(ctx, `INSERT INTO withheld_entries (user_name, entry_id) SELECT $1, unnest($2::bigint[])
		ON CONFLICT DO NOTHING`, user, ids)
	return err
}

// DigestIntact says whether every entry of a digest is still stored with
// its texts (see store.Reader).
func (s *Store) DigestIntact(ctx context.Context, user, date string) (bool, error) {
	var h store.DigestHeld
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(MAX(d.entry_count), -1), COUNT(e.id),
		COUNT(e.id) FILTER (WHERE t.entry_id IS NULL AND NOT e.overflow)
		FROM digests d LEFT JOIN digest_entries de ON de.user_name = d.user_name AND de.date = d.date
		LEFT JOIN entries e ON e.id = de.entry_id LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE d.user_name = $1 AND d.date = $2`, user, date).Scan(&h.Built, &h.Stored, &h.Bare)
	if err != nil {
		return false, fmt.Errorf("digest %s %s: %w", user, date, err)
	}
	return h.Intact(), nil
}

// The columns of a listing after the entry's own: the texts of an entry
// without fragments, and the fragments; or, for titles only, no
// fragments but the display title.
const (
	textsUnlessShown = `CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN COALESCE(t.content, '') ELSE '' END,
		CASE WHEN COALESCE(t.fragment_rules, 0) = 0 THEN COALESCE(t.summary, '') ELSE '' END,
		COALESCE(t.fragment_rules, 0), COALESCE(t.shown_title, '')`
	listingColumns = textsUnlessShown + `, COALESCE(t.shown_html, ''), COALESCE(t.shown_excerpt, ''),
		COALESCE(t.shown_links, '{}'), COALESCE(t.shown_whole, false), COALESCE(t.shown_words, 0)`
	titleColumns = textsUnlessShown + `, '', '', '{}'::text[], false, 0`
)

// digestListing lists a digest's entries (see store.DigestListings): of
// every feed, or of the feed feedURL alone. A feed's listing starts from that feed's
// entries, not from the whole digest's: a page reads each of its feeds'
// sections in turn, and reading the whole digest for each would cost the
// square of its size.
func (s *Store) digestListing(ctx context.Context, user, date, feedURL string, perFeed int, titlesOnly bool) ([]domain.Entry, map[string]int, error) {
	columns := listingColumns
	if titlesOnly {
		columns = titleColumns
	}
	ranked := `SELECT e.id, ROW_NUMBER() OVER (PARTITION BY e.feed_id ORDER BY ` + newestFirst + `) AS rank,
				COUNT(*) OVER (PARTITION BY e.feed_id) AS total
			FROM digest_entries de JOIN entries e ON e.id = de.entry_id WHERE de.user_name = $1 AND de.date = $2`
	args := []any{user, date, perFeed}
	if feedURL != "" {
		ranked = `SELECT e.id, ROW_NUMBER() OVER (ORDER BY ` + newestFirst + `) AS rank, COUNT(*) OVER () AS total
			FROM feeds f JOIN entries e ON e.feed_id = f.id
			JOIN digest_entries de ON de.user_name = $1 AND de.entry_id = e.id AND de.date = $2
			WHERE f.url = $4`
		args = append(args, feedURL)
	}
	rows, err := s.pool.Query(ctx, `SELECT e.id, e.feed_id, f.url, e.key, e.title, e.link, e.author, e.published,
		e.first_seen, e.enclosures, r.total, `+columns+` FROM (`+ranked+`) r JOIN entries e ON e.id = r.id
		JOIN feeds f ON f.id = e.feed_id LEFT JOIN entry_texts t ON t.entry_id = e.id
		WHERE $3 <= 0 OR r.rank <= $3 ORDER BY f.url, `+newestFirst, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("digest entries: %w", err)
	}
	var out []domain.Entry
	more := map[string]int{}
	var e domain.Entry
	var total int
	var enclosures []byte
	_, err = pgx.ForEachRow(rows, []any{&e.ID, &e.FeedID, &e.FeedURL, &e.Key, &e.Title, &e.Link, &e.Author,
		timeOf{&e.Published}, timeOf{&e.FirstSeen}, &enclosures, &total, &e.Content, &e.Summary,
		&e.Fragments.Rules, &e.Fragments.Title, &e.Fragments.HTML, &e.Fragments.Excerpt, &e.Fragments.Links,
		&e.Fragments.Whole, &e.Fragments.Words}, func() error {
		entry := e
		var err error
		if entry.Enclosures, err = decodeEnclosures(enclosures); err != nil {
			return fmt.Errorf("entry %s: %w", e.Key, err)
		}
		entry.Fragments = shownOrNone(entry.Fragments)
		entry.Fragments.Links = slices.Clone(entry.Fragments.Links)
		if perFeed > 0 && total > perFeed {
			more[e.FeedURL] = total - perFeed
		}
		out = append(out, entry)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("digest entries: %w", err)
	}
	return out, more, nil
}

// shownOrNone is f as read: none at all when no rules made it (rules 0),
// and no links rather than an empty list.
func shownOrNone(f domain.Fragments) domain.Fragments {
	if f.Rules == 0 {
		return domain.Fragments{}
	}
	if len(f.Links) == 0 {
		f.Links = nil
	}
	return f
}

// StaleFragments lists entries with texts whose fragments were not made
// by rules (see store.Store). Two ranges rather than "<>", which the
// index on fragment_rules serves: a pass asks every hour, and nearly
// always none is stale.
func (s *Store) StaleFragments(ctx context.Context, rules int, afterID int64, limit int) ([]domain.Entry, error) {
	rows, err := s.pool.Query(ctx, `SELECT e.id, e.feed_id, f.url, e.key, e.title, e.link, e.author, e.published,
		e.first_seen, e.enclosures, t.content, t.summary
		FROM entry_texts t JOIN entries e ON e.id = t.entry_id JOIN feeds f ON f.id = e.feed_id
		WHERE (t.fragment_rules < $1 OR t.fragment_rules > $1) AND t.entry_id > $2
		ORDER BY t.entry_id LIMIT $3`, rules, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("entries to show anew: %w", err)
	}
	var out []domain.Entry
	var e domain.Entry
	var enclosures []byte
	_, err = pgx.ForEachRow(rows, []any{&e.ID, &e.FeedID, &e.FeedURL, &e.Key, &e.Title, &e.Link, &e.Author,
		timeOf{&e.Published}, timeOf{&e.FirstSeen}, &enclosures, &e.Content, &e.Summary}, func() error {
		entry := e
		var err error
		if entry.Enclosures, err = decodeEnclosures(enclosures); err != nil {
			return fmt.Errorf("entry %s: %w", e.Key, err)
		}
		out = append(out, entry)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("entries to show anew: %w", err)
	}
	return out, nil
}

// SaveFragments stores the fragments of entries as StaleFragments gave
// them (see store.Store), in one transaction. Their texts stay as they
// are; fragments a poll of another run stored meanwhile, under the same
// rules and from fresher texts, are not replaced.
func (s *Store) SaveFragments(ctx context.Context, entries []domain.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, e := range entries {
		f := e.Fragments
		batch.Queue(`UPDATE entry_texts SET fragment_rules = $2, shown_title = $3, shown_html = $4, shown_excerpt = $5,
			shown_links = $6, shown_whole = $7, shown_words = $8 WHERE entry_id = $1 AND fragment_rules <> $2`,
			e.ID, f.Rules, f.Title, f.HTML, f.Excerpt, linksOf(f), f.Whole, f.Words)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return fmt.Errorf("store how entries are shown: %w", err)
	}
	return nil
}
