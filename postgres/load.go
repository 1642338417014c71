package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/domain"
	"feeddigest/store"
)

var _ store.Loader = (*Store)(nil)

// Load copies the state src holds into this empty database, in one
// transaction, keeping every ID (COPY writes identity columns as given;
// the identities then restart after the largest). Tables go over with
// COPY, entries and what users were given streamed, not held in memory.
func (s *Store) Load(ctx context.Context, src store.Dumper) (store.Loaded, error) {
	var n store.Loaded
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var used bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM feeds) OR EXISTS (SELECT 1 FROM digests)
			OR EXISTS (SELECT 1 FROM passes)`).Scan(&used); err != nil {
			return err
		}
		if used {
			return fmt.Errorf("%w: %s holds feeds or digests already; copy into an empty database", store.ErrNotEmpty, s.name)
		}
		steps := []func(context.Context, pgx.Tx, store.Dumper, *store.Loaded) error{
			loadFeeds, loadSubscriptions, loadEntries, loadDigests, loadGiven, loadAttempts, loadInstallation,
		}
		for _, step := range steps {
			if err := step(ctx, tx, src, &n); err != nil {
				return err
			}
		}
		for _, table := range []string{"feeds", "entries"} {
			if _, err := tx.Exec(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', 'id'),
				COALESCE((SELECT max(id) FROM %[1]s), 0) + 1, false)`, table)); err != nil {
				return fmt.Errorf("restart the IDs of %s: %w", table, err)
			}
		}
		return nil
	})
	if err != nil {
		return store.Loaded{}, fmt.Errorf("copy into %s: %w", s.name, err)
	}
	return n, nil
}

// loadInstallation copies the installation's id: the feeds' Atom ids
// are built from it, and must not change with the back end.
func loadInstallation(ctx context.Context, tx pgx.Tx, src store.Dumper, _ *store.Loaded) error {
	id, err := src.Installation(ctx)
	if err != nil || id == "" {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO installation (one, id) VALUES (1, $1) ON CONFLICT (one) DO UPDATE SET id = EXCLUDED.id`, id)
	return err
}

func loadFeeds(ctx context.Context, tx pgx.Tx, src store.Dumper, n *store.Loaded) error {
	feeds, err := src.Feeds(ctx)
	if err != nil {
		return err
	}
	columns := []string{"id", "url", "effective_url", "pending_url", "title", "site_url", "etag", "last_modified",
		"body_hash", "last_poll", "last_success", "last_status", "last_error", "next_poll", "reason",
		"error_count", "first_error", "retry_pending", "gone_at", "dead_at", "moved_at", "moved_from",
		"origin_flag_at", "answers_304", "refuses_head", "ignores_conditional", "ttl_seconds",
		"overflow_gap_seconds", "next_extra_poll", "polls", "body_error", "repaired", "problem", "problem_at",
		"problem_since", "language", "etag_untrusted", "last_modified_untrusted", "refuses_conditional", "last_get",
		"articles_asked", "articles_read", "problem_code"}
	n.Feeds, err = copyRows(ctx, tx, "feeds", columns, each(feeds), func(f domain.Feed) []any {
		return []any{f.ID, f.URL, f.EffectiveURL, f.PendingURL, f.Title, f.SiteURL, f.ETag, f.LastModified,
			f.BodyHash, at(f.LastPoll), at(f.LastSuccess), f.LastStatus, f.LastError, at(f.NextPoll), f.Reason,
			f.ErrorCount, at(f.FirstError), f.RetryPending, at(f.GoneAt), at(f.DeadAt), at(f.MovedAt), f.MovedFrom,
			at(f.OriginFlagAt), f.Answers304, f.RefusesHEAD, f.IgnoresConditional, int64(f.TTL / time.Second),
			int64(f.OverflowGap / time.Second), at(f.NextExtraPoll), f.Polls, f.BodyError, f.Repaired, f.Problem,
			at(f.ProblemAt), at(f.ProblemSince), f.Language, f.Distrust.ETag, f.Distrust.LastModified,
			f.Distrust.Conditional, at(f.LastGet), f.ArticlesAsked, f.ArticlesRead, store.ProblemCodeText(f.ProblemCode)}
	})
	return err
}

func loadSubscriptions(ctx context.Context, tx pgx.Tx, src store.Dumper, n *store.Loaded) error {
	subs, err := src.DumpSubscriptions(ctx)
	if err != nil {
		return err
	}
	n.Subscriptions, err = copyRows(ctx, tx, "subscriptions", []string{"user_name", "feed_id", "added_at", "introduced_at"},
		each(subs), func(s store.Subscription) []any {
			return []any{s.User, s.FeedID, at(s.AddedAt), at(s.IntroducedAt)}
		})
	return err
}

// loadEntries streams the entries into a staging table, then splits it
// into entries and their texts with their fragments.
func loadEntries(ctx context.Context, tx pgx.Tx, src store.Dumper, n *store.Loaded) error {
	if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE entries_in (id bigint, feed_id bigint, key text, title text,
		link text, author text, published timestamptz, first_seen timestamptz, enclosures jsonb, content text,
		summary text, fragment_rules integer, shown_title text, shown_html text, shown_excerpt text,
		shown_links text[], shown_whole boolean, shown_words integer, categories text, overflow boolean,
		left_at timestamptz) ON COMMIT DROP`); err != nil {
		return err
	}
	var encodeErr error
	var err error
	n.Entries, err = copyRows(ctx, tx, "entries_in",
		[]string{"id", "feed_id", "key", "title", "link", "author", "published", "first_seen", "enclosures", "content",
			"summary", "fragment_rules", "shown_title", "shown_html", "shown_excerpt", "shown_links", "shown_whole", "shown_words",
			"categories", "overflow", "left_at"},
		src.DumpEntries(ctx), func(e domain.Entry) []any {
			enclosures, err := encodeEnclosures(e.Enclosures)
			encodeErr = errors.Join(encodeErr, err)
			f := e.Fragments
			return []any{e.ID, e.FeedID, e.Key, e.Title, e.Link, e.Author, at(e.Published), at(e.FirstSeen), enclosures,
				e.Content, e.Summary, f.Rules, f.Title, f.HTML, f.Excerpt, linksOf(f), f.Whole, f.Words,
				store.EncodeCategories(e.Categories), e.Overflow, at(e.LeftAt)}
		})
	if err = errors.Join(err, encodeErr); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO entries (id, feed_id, key, title, link, author, published, first_seen, enclosures,
		categories, overflow, left_at) OVERRIDING SYSTEM VALUE SELECT id, feed_id, key, title, link, author, published,
		first_seen, enclosures, categories, overflow, left_at FROM entries_in`); err != nil {
		return err
	}
	// An entry with fragments has texts too (those it was made from), or
	// had: its texts are kept while it is.
	_, err = tx.Exec(ctx, `INSERT INTO entry_texts (entry_id, content, summary, fragment_rules, shown_title,
		shown_html, shown_excerpt, shown_links, shown_whole, shown_words)
		SELECT id, content, summary, fragment_rules, shown_title, shown_html, shown_excerpt, shown_links, shown_whole,
			shown_words
		FROM entries_in WHERE content <> '' OR summary <> '' OR fragment_rules <> 0`)
	return err
}

func loadDigests(ctx context.Context, tx pgx.Tx, src store.Dumper, n *store.Loaded) error {
	digests, err := src.DumpDigests(ctx)
	if err != nil {
		return err
	}
	columns := []string{"user_name", "date", "since", "built_at", "notices", "entry_count", "rendered_at", "send_wanted",
		"sent_at", "send_error", "send_started", "send_data_end", "send_attempts", "send_failed_at", "send_permanent", "send_given_up",
		"send_given_up_why", "problems", "left_out", "backlogs", "left_out_titles"}
	n.Digests, err = copyRows(ctx, tx, "digests", columns, each(digests), func(d domain.Digest) []any {
		notices := d.Notices
		if notices == nil {
			notices = []domain.Notice{}
		}
		problems := d.Problems
		if problems == nil {
			problems = []domain.Problem{}
		}
		text, _ := json.Marshal(notices)
		problemsText, _ := json.Marshal(problems)
		_, _, backlogs, leftOut := store.EncodeNotes(d)
		return []any{d.User, d.Date, at(d.Since), at(d.BuiltAt), string(text), d.EntryCount, at(d.RenderedAt), d.SendWanted,
			at(d.SentAt), d.SendError, at(d.SendStarted), at(d.SendDataEnded), d.SendAttempts, at(d.SendFailedAt), d.SendPermanent,
			at(d.SendGivenUp), d.SendGivenUpWhy, string(problemsText), d.LeftOut, backlogs, leftOut}
	})
	return err
}

// loadGiven streams what users were given into a staging table, then
// into digest_entries and withheld_entries.
func loadGiven(ctx context.Context, tx pgx.Tx, src store.Dumper, n *store.Loaded) error {
	if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE given_in (user_name text, date text, entry_id bigint) ON COMMIT DROP`); err != nil {
		return err
	}
	var err error
	n.Given, err = copyRows(ctx, tx, "given_in", []string{"user_name", "date", "entry_id"}, src.DumpGiven(ctx),
		func(g store.Given) []any { return []any{g.User, g.Date, g.EntryID} })
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO digest_entries (user_name, date, entry_id)
		SELECT user_name, date, entry_id FROM given_in WHERE date <> ''`); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO withheld_entries (user_name, entry_id)
		SELECT user_name, entry_id FROM given_in WHERE date = ''`)
	return err
}

// loadAttempts copies the marks of polls that never finished, with their
// count of reads cut short: the first pass on the new state reads them
// again or penalises them, as the next run on the old one would have.
func loadAttempts(ctx context.Context, tx pgx.Tx, src store.Dumper, n *store.Loaded) error {
	attempts, err := src.UnfinishedAttempts(ctx)
	if err != nil {
		return err
	}
	n.Attempts, err = copyRows(ctx, tx, "poll_attempts", []string{"feed_id", "started", "reads"}, each(attempts),
		func(a store.Attempt) []any { return []any{a.Feed.ID, at(a.Started), max(1, a.Reads)} })
	return err
}

// each yields the items of a slice as a dump does.
func each[T any](items []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, it := range items {
			if !yield(it, nil) {
				return
			}
		}
	}
}

// copyRows copies the rows an iterator yields into table with COPY.
func copyRows[T any](ctx context.Context, tx pgx.Tx, table string, columns []string, rows iter.Seq2[T, error], values func(T) []any) (int, error) {
	next, stop := iter.Pull2(rows)
	defer stop()
	source := &pulledRows[T]{next: next, values: values}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, source)
	if err == nil {
		err = source.err
	}
	if err != nil {
		return int(n), fmt.Errorf("copy %s: %w", table, err)
	}
	return int(n), nil
}

// pulledRows is a pgx.CopyFromSource over a pulled iterator.
type pulledRows[T any] struct {
	next   func() (T, error, bool)
	values func(T) []any
	row    T
	err    error
}

func (p *pulledRows[T]) Next() bool {
	row, err, ok := p.next()
	if !ok {
		return false
	}
	if err != nil {
		p.err = err
		return false
	}
	p.row = row
	return true
}

func (p *pulledRows[T]) Values() ([]any, error) { return p.values(p.row), nil }

func (p *pulledRows[T]) Err() error { return p.err }
