package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"feeddigest/store"
)

// migrations are applied in order; the index+1 is the schema version kept
// in PRAGMA user_version. Append, never edit, so old files migrate.
var migrations = []string{
	`CREATE TABLE feeds (
		id INTEGER PRIMARY KEY,
		url TEXT NOT NULL UNIQUE,
		effective_url TEXT NOT NULL DEFAULT '',
		pending_url TEXT NOT NULL DEFAULT '',
		title TEXT NOT NULL DEFAULT '',
		site_url TEXT NOT NULL DEFAULT '',
		etag TEXT NOT NULL DEFAULT '',
		last_modified TEXT NOT NULL DEFAULT '',
		body_hash TEXT NOT NULL DEFAULT '',
		last_poll INTEGER NOT NULL DEFAULT 0,
		last_success INTEGER NOT NULL DEFAULT 0,
		last_status INTEGER NOT NULL DEFAULT 0,
		last_error TEXT NOT NULL DEFAULT '',
		next_poll INTEGER NOT NULL DEFAULT 0,
		reason TEXT NOT NULL DEFAULT '',
		error_count INTEGER NOT NULL DEFAULT 0,
		first_error INTEGER NOT NULL DEFAULT 0,
		retry_pending INTEGER NOT NULL DEFAULT 0,
		gone_at INTEGER NOT NULL DEFAULT 0,
		dead_at INTEGER NOT NULL DEFAULT 0,
		moved_at INTEGER NOT NULL DEFAULT 0,
		moved_from TEXT NOT NULL DEFAULT '',
		origin_flag_at INTEGER NOT NULL DEFAULT 0,
		answers_304 INTEGER NOT NULL DEFAULT 0,
		refuses_head INTEGER NOT NULL DEFAULT 0,
		ignores_conditional INTEGER NOT NULL DEFAULT 0,
		ttl_seconds INTEGER NOT NULL DEFAULT 0,
		overflow_gap INTEGER NOT NULL DEFAULT 0,
		next_extra_poll INTEGER NOT NULL DEFAULT 0,
		polls INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE entries (
		id INTEGER PRIMARY KEY,
		feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
		key TEXT NOT NULL,
		title TEXT NOT NULL DEFAULT '',
		link TEXT NOT NULL DEFAULT '',
		content TEXT NOT NULL DEFAULT '',
		summary TEXT NOT NULL DEFAULT '',
		author TEXT NOT NULL DEFAULT '',
		published INTEGER NOT NULL DEFAULT 0,
		first_seen INTEGER NOT NULL,
		UNIQUE (feed_id, key)
	);
	CREATE INDEX entries_by_feed_seen ON entries (feed_id, first_seen);
	CREATE TABLE subscriptions (
		user TEXT NOT NULL,
		feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
		added_at INTEGER NOT NULL,
		PRIMARY KEY (user, feed_id)
	);
	CREATE TABLE digests (
		user TEXT NOT NULL,
		date TEXT NOT NULL,
		since INTEGER NOT NULL,
		built_at INTEGER NOT NULL,
		notices TEXT NOT NULL DEFAULT '[]',
		entry_count INTEGER NOT NULL DEFAULT 0,
		rendered_at INTEGER NOT NULL DEFAULT 0,
		send_wanted INTEGER NOT NULL DEFAULT 0,
		sent_at INTEGER NOT NULL DEFAULT 0,
		send_error TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (user, date)
	);
	CREATE TABLE digest_entries (
		user TEXT NOT NULL,
		date TEXT NOT NULL,
		entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
		PRIMARY KEY (user, entry_id),
		FOREIGN KEY (user, date) REFERENCES digests(user, date) ON DELETE CASCADE
	);
	CREATE INDEX digest_entries_by_digest ON digest_entries (user, date);`,
	// 2: a send in progress is recorded before the SMTP conversation, so a
	// run killed mid-send never mails the same digest twice.
	`ALTER TABLE digests ADD COLUMN send_started INTEGER NOT NULL DEFAULT 0;`,
	// 3: entry texts compressed (see compress.go), in a table of their own
	// so that dropping old texts frees whole pages for new ones. Rows of
	// schema 1 keep their plain texts in entries.
	`CREATE TABLE entry_texts (
		entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
		content_z BLOB,
		summary_z BLOB
	);`,
	// 4: failed sends back off (see pipeline's send plan): attempts, when
	// and how the last one failed, and when the digest was given up and
	// why. A failure recorded before this schema counts as one attempt.
	`ALTER TABLE digests ADD COLUMN send_attempts INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE digests ADD COLUMN send_failed_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE digests ADD COLUMN send_permanent INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE digests ADD COLUMN send_given_up INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE digests ADD COLUMN send_given_up_why TEXT NOT NULL DEFAULT '';
	UPDATE digests SET send_attempts = 1, send_failed_at = built_at WHERE sent_at = 0 AND send_error != '';`,
	// 5: a poll is recorded before its body is parsed and cleared with its
	// result, so a feed whose reading killed the process (see attempts.go)
	// is known to the next run.
	`CREATE TABLE poll_attempts (
		feed_id INTEGER PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
		started INTEGER NOT NULL
	);`,
	// 6: what a digest passed over. A subscription is introduced by the
	// first digest built after its feed was read; that digest shows the
	// feed's newest entries and records the rest as withheld from the
	// user, so that no later digest shows them (a window on first_seen
	// alone cannot tell them from entries seen in the same second after
	// the build). Existing files: a subscription counts as introduced by
	// the first digest built since it was added, and every entry first
	// seen by a user's last digest that it did not show is withheld.
	`ALTER TABLE subscriptions ADD COLUMN introduced_at INTEGER NOT NULL DEFAULT 0;
	CREATE TABLE withheld_entries (
		user TEXT NOT NULL,
		entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
		PRIMARY KEY (user, entry_id)
	);
	UPDATE subscriptions SET introduced_at = COALESCE((SELECT MIN(d.built_at) FROM digests d
		WHERE d.user = subscriptions.user AND d.built_at >= subscriptions.added_at), 0);
	INSERT OR IGNORE INTO withheld_entries (user, entry_id)
		SELECT s.user, e.id FROM subscriptions s JOIN entries e ON e.feed_id = s.feed_id
		WHERE s.introduced_at != 0
		AND e.first_seen <= (SELECT MAX(d.built_at) FROM digests d WHERE d.user = s.user)
		AND NOT EXISTS (SELECT 1 FROM digest_entries de WHERE de.user = s.user AND de.entry_id = e.id);`,
	// 7: the validators and hash of a body that was not a usable feed are
	// kept too, with what was wrong with it, so that a broken feed is
	// polled conditionally and a 304 says "still broken".
	`ALTER TABLE feeds ADD COLUMN body_error TEXT NOT NULL DEFAULT '';`,
	// 8: what had to be mended in the last body read (ill-formed XML), for
	// the status page.
	`ALTER TABLE feeds ADD COLUMN repaired TEXT NOT NULL DEFAULT '';`,
	// 9: what went wrong with a feed, in plain words, when it last went
	// wrong and since when, kept after it recovers; and the feeds that
	// could not be read, as each digest recorded them when it was built,
	// so that its page says the same when written again. A feed failing
	// before this schema is failing since its first error, for a reason
	// the next failed poll names.
	`ALTER TABLE feeds ADD COLUMN problem TEXT NOT NULL DEFAULT '';
	ALTER TABLE feeds ADD COLUMN problem_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE feeds ADD COLUMN problem_since INTEGER NOT NULL DEFAULT 0;
	UPDATE feeds SET problem_at = last_poll, problem_since = first_error WHERE error_count > 0;
	ALTER TABLE digests ADD COLUMN problems TEXT NOT NULL DEFAULT '[]';`,
	// 10: the feed's language, which pages give its texts (lang); known
	// from the next body read.
	`ALTER TABLE feeds ADD COLUMN language TEXT NOT NULL DEFAULT '';`,
	// 11: an entry's enclosures (a podcast's audio), as a JSON array of
	// {"url", "type", "length", "seconds"} (see enclosure.go); '' for
	// none, which is what older rows have.
	`ALTER TABLE entries ADD COLUMN enclosures TEXT NOT NULL DEFAULT '';`,
	// 12: an entry as digests show it (domain.Fragments), made once when
	// it is stored: the display title, and in one zstd frame with the
	// texts (the sanitised HTML repeats most of the content, so together
	// they cost little more than the content alone; see packShown) the
	// HTML, excerpt and links; and the version of the rules that made
	// them. A row with fragments keeps its texts there, not in content_z
	// and summary_z. Rows stored before have fragment_rules 0: the next
	// run makes their fragments from the texts (store.Store.StaleFragments),
	// as it does for rows made under other rules after the program changed
	// them.
	`ALTER TABLE entry_texts ADD COLUMN fragment_rules INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE entry_texts ADD COLUMN shown_title TEXT NOT NULL DEFAULT '';
	ALTER TABLE entry_texts ADD COLUMN shown_z BLOB;
	CREATE INDEX entry_texts_by_rules ON entry_texts (fragment_rules);`,
	// 13: entry identity and a bounded state. Entries are found by their
	// link too (a site rebuilt with new guids; see store.PlanSave). An
	// entry stored without texts because its poll brought more than a
	// digest shows is marked overflow: it never gains texts, and is
	// forgotten once delivered and gone from its feed (store.BareKept).
	// Deleting an entry deletes its digest and withheld rows: indexed by
	// entry, as PostgreSQL's are, lest each deletion read them all.
	`ALTER TABLE entries ADD COLUMN overflow INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX entries_by_feed_link ON entries (feed_id, link);
	CREATE INDEX entries_overflow ON entries (feed_id, first_seen) WHERE overflow = 1;
	CREATE INDEX digest_entries_by_entry ON digest_entries (entry_id);
	CREATE INDEX withheld_by_entry ON withheld_entries (entry_id);`,
	// 14: which validators of a feed's server are trusted: one that stayed
	// the same while the body changed never is again, nor are any sent to
	// a server that refused a conditional request (domain.Distrust); and
	// when a GET last had an answer (at least one a week). Ignoring
	// conditional GETs was learned from a false sign before (a validator
	// came back, though the body changed): it is learned again. A
	// validator over 1 KB is no longer kept (it exceeds servers' header
	// limits when sent back).
	`ALTER TABLE feeds ADD COLUMN etag_untrusted INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE feeds ADD COLUMN last_modified_untrusted INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE feeds ADD COLUMN refuses_conditional INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE feeds ADD COLUMN last_get INTEGER NOT NULL DEFAULT 0;
	UPDATE feeds SET ignores_conditional = 0;
	UPDATE feeds SET etag = '' WHERE length(CAST(etag AS BLOB)) > 1024;
	UPDATE feeds SET last_modified = '' WHERE length(CAST(last_modified AS BLOB)) > 1024;`,
	// 15: how many reads of a feed in a row a poll mark has seen cut
	// short (see store.Attempt.Reads): a poll a dead run left unfinished
	// is read again, and only a second cut short in a row is the feed's
	// fault.
	`ALTER TABLE poll_attempts ADD COLUMN reads INTEGER NOT NULL DEFAULT 1;`,
	// 16: rules (package rules): an entry's categories, one a line ('' for
	// none, which is what older rows have, until their feed is read
	// again), and how many entries a digest's rules left out.
	`ALTER TABLE entries ADD COLUMN categories TEXT NOT NULL DEFAULT '';
	ALTER TABLE digests ADD COLUMN left_out INTEGER NOT NULL DEFAULT 0;`,
	// 17: the pages of a full_text feed's entries claimed for their
	// articles (see store.Store.ClaimArticles; since 21, a dead run's
	// claims are taken over).
	`CREATE TABLE article_claims (
		feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
		key TEXT NOT NULL,
		claimed_at INTEGER NOT NULL,
		PRIMARY KEY (feed_id, key)
	);`,
	// 18: the installation's id (store.Store.KeepInstallation), one row.
	`CREATE TABLE installation (one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL);`,
	// 19: a full_text feed's article pages, as `status` shows them: how
	// many the last poll that fetched any asked for, and how many held an
	// article (domain.Feed.ArticlesAsked and ArticlesRead).
	`ALTER TABLE feeds ADD COLUMN articles_asked INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE feeds ADD COLUMN articles_read INTEGER NOT NULL DEFAULT 0;`,
	// 20: the feeds a digest introduced leaving older entries out, and
	// how many (domain.Digest.Backlogs), so that its page, written again,
	// still says so. A JSON array, as notices are.
	`ALTER TABLE digests ADD COLUMN backlogs TEXT NOT NULL DEFAULT '[]';`,
	// 21: a send is claimed before the SMTP conversation (send_started) and
	// in doubt only from just before the end of the message's data
	// (send_data_end): a run that died before that leaves the digest to
	// be sent again. A send cut off under an older program is kept in
	// doubt, as it was.
	`ALTER TABLE digests ADD COLUMN send_data_end INTEGER NOT NULL DEFAULT 0;
	UPDATE digests SET send_data_end = send_started WHERE send_started != 0 AND sent_at = 0;`,
	// 22: when the feed's body stopped listing an entry (0 while its
	// latest body lists it), from which its retention runs (see
	// store.Store.Prune). Entries stored before are taken as listed: the
	// state never kept which ones the latest body held, and taking one as
	// gone when it is not would forget it in the retention period after
	// the upgrade, to be shown again at the feed's next change (a blog
	// quiet for two months). The feed's next changed body sets them
	// right; those it no longer lists are kept a retention period more.
	`ALTER TABLE entries ADD COLUMN left_at INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX entries_listed ON entries (feed_id) WHERE left_at = 0;`,
	// 23: how many times a claimed article page was asked for by runs
	// that died before saving (see store.Store.AskArticle), so that a
	// dead run's claims are fetched by the next and a page that kills the
	// process is given up. A claim made before is counted as asked once:
	// whether it was is unknown, and it is then asked once more.
	`ALTER TABLE article_claims ADD COLUMN asks INTEGER NOT NULL DEFAULT 1;`,
	// 24: the first entries a digest's rules left out, their titles and
	// links (domain.Digest.LeftOutTitles), which its page lists under
	// "N left out by your rules". A JSON array, as notices are; digests
	// built before list none.
	`ALTER TABLE digests ADD COLUMN left_out_titles TEXT NOT NULL DEFAULT '[]';`,
	// 25 (PostgreSQL's 20): a feed's problem as a code with its facts
	// (domain.ProblemCode: its kind, an HTTP status, a host...), a JSON
	// object worded when a digest is written, in its reader's language.
	// Rows from before keep their words in problem, '{}' here, and are
	// shown as they were; the next failure writes a code and clears them.
	// (A digest's problems and notices are JSON arrays already: theirs
	// gain a code, or a last error, in place of words without a column.)
	`ALTER TABLE feeds ADD COLUMN problem_code TEXT NOT NULL DEFAULT '{}';`,
}

// schemaVersion is the version a migrated file has.
var schemaVersion = len(migrations)

func (s *Store) migrate(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > len(migrations) {
		return &store.SchemaError{Have: version, Want: len(migrations)}
	}
	for v := version; v < len(migrations); v++ {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1))
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate to schema %d: %w", v+1, err)
		}
	}
	return nil
}
