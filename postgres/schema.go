package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"feeddigest/store"
)

// migrations are applied in order, each in its own transaction; the
// index+1 is the schema version kept in feeddigest_schema. Append, never
// edit, so old databases migrate.
//
// The tables mirror the SQLite state (see docs/design.md, "The state"),
// in PostgreSQL's own types: times are timestamptz, NULL for "never";
// booleans are boolean; notices are jsonb; entry texts are plain text
// (PostgreSQL compresses large values itself). Names, URLs, keys and
// dates compare byte by byte (COLLATE "C"), as in SQLite, so that lists
// come in the same order whatever the server's locale.
var migrations = []string{
	`CREATE TABLE feeds (
		id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		url text COLLATE "C" NOT NULL UNIQUE,
		effective_url text NOT NULL DEFAULT '',
		pending_url text NOT NULL DEFAULT '',
		title text NOT NULL DEFAULT '',
		site_url text NOT NULL DEFAULT '',
		etag text NOT NULL DEFAULT '',
		last_modified text NOT NULL DEFAULT '',
		body_hash text NOT NULL DEFAULT '',
		body_error text NOT NULL DEFAULT '',
		repaired text NOT NULL DEFAULT '',
		last_poll timestamptz,
		last_success timestamptz,
		last_status integer NOT NULL DEFAULT 0,
		last_error text NOT NULL DEFAULT '',
		next_poll timestamptz,
		reason text NOT NULL DEFAULT '',
		error_count integer NOT NULL DEFAULT 0,
		first_error timestamptz,
		retry_pending boolean NOT NULL DEFAULT false,
		gone_at timestamptz,
		dead_at timestamptz,
		moved_at timestamptz,
		moved_from text NOT NULL DEFAULT '',
		origin_flag_at timestamptz,
		answers_304 boolean NOT NULL DEFAULT false,
		refuses_head boolean NOT NULL DEFAULT false,
		ignores_conditional boolean NOT NULL DEFAULT false,
		ttl_seconds bigint NOT NULL DEFAULT 0,
		overflow_gap_seconds bigint NOT NULL DEFAULT 0,
		next_extra_poll timestamptz,
		polls integer NOT NULL DEFAULT 0
	);
	CREATE TABLE entries (
		id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		feed_id bigint NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
		key text COLLATE "C" NOT NULL,
		title text NOT NULL DEFAULT '',
		link text NOT NULL DEFAULT '',
		author text NOT NULL DEFAULT '',
		published timestamptz,
		first_seen timestamptz NOT NULL,
		UNIQUE (feed_id, key)
	);
	CREATE INDEX entries_by_feed_seen ON entries (feed_id, first_seen);
	CREATE INDEX entries_by_seen ON entries (first_seen);
	CREATE TABLE entry_texts (
		entry_id bigint PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
		content text NOT NULL DEFAULT '',
		summary text NOT NULL DEFAULT ''
	);
	CREATE TABLE subscriptions (
		user_name text COLLATE "C" NOT NULL,
		feed_id bigint NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
		added_at timestamptz NOT NULL,
		introduced_at timestamptz,
		PRIMARY KEY (user_name, feed_id)
	);
	CREATE INDEX subscriptions_by_feed ON subscriptions (feed_id);
	CREATE TABLE withheld_entries (
		user_name text COLLATE "C" NOT NULL,
		entry_id bigint NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
		PRIMARY KEY (user_name, entry_id)
	);
	CREATE INDEX withheld_by_entry ON withheld_entries (entry_id);
	CREATE TABLE digests (
		user_name text COLLATE "C" NOT NULL,
		date text COLLATE "C" NOT NULL,
		since timestamptz,
		built_at timestamptz NOT NULL,
		notices jsonb NOT NULL DEFAULT '[]',
		entry_count integer NOT NULL DEFAULT 0,
		rendered_at timestamptz,
		send_wanted boolean NOT NULL DEFAULT false,
		sent_at timestamptz,
		send_error text NOT NULL DEFAULT '',
		send_started timestamptz,
		send_attempts integer NOT NULL DEFAULT 0,
		send_failed_at timestamptz,
		send_permanent boolean NOT NULL DEFAULT false,
		send_given_up timestamptz,
		send_given_up_why text NOT NULL DEFAULT '',
		PRIMARY KEY (user_name, date)
	);
	CREATE TABLE digest_entries (
		user_name text COLLATE "C" NOT NULL,
		date text COLLATE "C" NOT NULL,
		entry_id bigint NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
		PRIMARY KEY (user_name, entry_id),
		FOREIGN KEY (user_name, date) REFERENCES digests (user_name, date) ON DELETE CASCADE
	);
	CREATE INDEX digest_entries_by_digest ON digest_entries (user_name, date);
	CREATE INDEX digest_entries_by_entry ON digest_entries (entry_id);
	CREATE TABLE poll_attempts (
		feed_id bigint PRIMARY KEY REFERENCES feeds (id) ON DELETE CASCADE,
		started timestamptz NOT NULL,
		worker text NOT NULL DEFAULT ''
	);`,
	// 2: shared passes (see passes.go). A worker is a run, alive while it
	// renews its lease; a pass is an hour's work, planned once; its hosts,
	// feeds and digests are claimed by workers (owner) until done.
	`CREATE TABLE workers (
		id text PRIMARY KEY,
		host text NOT NULL,
		pid integer NOT NULL,
		started timestamptz NOT NULL DEFAULT clock_timestamp(),
		alive_until timestamptz NOT NULL
	);
	CREATE TABLE passes (
		id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		hour timestamptz NOT NULL,
		now timestamptz NOT NULL,
		planned_by text NOT NULL,
		planned_at timestamptz NOT NULL DEFAULT clock_timestamp(),
		end_owner text,
		end_done boolean NOT NULL DEFAULT false,
		finished_at timestamptz
	);
	CREATE INDEX passes_by_hour ON passes (hour);
	CREATE TABLE pass_hosts (
		pass_id bigint NOT NULL REFERENCES passes (id) ON DELETE CASCADE,
		host text COLLATE "C" NOT NULL,
		position integer NOT NULL,
		owner text,
		done boolean NOT NULL DEFAULT false,
		PRIMARY KEY (pass_id, host)
	);
	CREATE INDEX pass_hosts_to_claim ON pass_hosts (pass_id, position) WHERE NOT done;
	CREATE INDEX pass_hosts_open_by_host ON pass_hosts (host) WHERE NOT done;
	CREATE TABLE pass_feeds (
		pass_id bigint NOT NULL,
		feed_id bigint NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
		host text COLLATE "C" NOT NULL,
		why text NOT NULL DEFAULT '',
		done boolean NOT NULL DEFAULT false,
		PRIMARY KEY (pass_id, feed_id),
		FOREIGN KEY (pass_id, host) REFERENCES pass_hosts (pass_id, host) ON DELETE CASCADE
	);
	CREATE INDEX pass_feeds_by_host ON pass_feeds (pass_id, host);
	CREATE TABLE pass_digests (
		pass_id bigint NOT NULL REFERENCES passes (id) ON DELETE CASCADE,
		user_name text COLLATE "C" NOT NULL,
		date text COLLATE "C" NOT NULL,
		owner text,
		done boolean NOT NULL DEFAULT false,
		PRIMARY KEY (pass_id, user_name, date)
	);
	CREATE INDEX digests_unrendered ON digests (built_at) WHERE rendered_at IS NULL;
	CREATE INDEX digests_unsent ON digests (built_at) WHERE send_wanted AND sent_at IS NULL;`,
	// 3 (SQLite's 9 and 10): what went wrong with a feed, in plain words,
	// when it last went wrong and since when, kept after it recovers; the
	// feeds that could not be read, as each digest recorded them when it
	// was built; the feed's language. A feed failing before this schema is
	// failing since its first error, for a reason the next failed poll
	// names.
	`ALTER TABLE feeds ADD COLUMN problem text NOT NULL DEFAULT '',
		ADD COLUMN problem_at timestamptz,
		ADD COLUMN problem_since timestamptz,
		ADD COLUMN language text NOT NULL DEFAULT '';
	UPDATE feeds SET problem_at = last_poll, problem_since = first_error WHERE error_count > 0;
	ALTER TABLE digests ADD COLUMN problems jsonb NOT NULL DEFAULT '[]';`,
	// 4: a fingerprint of the subscriptions as last synced from a config,
	// so that the planner of a pass whose config did not change (nearly
	// every hour) reads one row instead of comparing every subscription.
	`CREATE TABLE subscriptions_synced (
		one boolean PRIMARY KEY DEFAULT true CHECK (one),
		fingerprint bytea NOT NULL
	);`,
	// 5 (SQLite's 11): an entry's enclosures (a podcast's audio), as a
	// JSON array of {"url", "type", "length", "seconds"} (see
	// enclosure.go); NULL for none, which is what older rows have.
	`ALTER TABLE entries ADD COLUMN enclosures jsonb;`,
	// 6 (SQLite's 12): an entry as digests show it (domain.Fragments),
	// made once when it is stored: the display title, the sanitised HTML,
	// the excerpt, the links, whether the excerpt is the whole text, and
	// the version of the rules that made them. The texts stay in their
	// columns (PostgreSQL compresses each large value itself). Rows stored
	// before have fragment_rules 0: the next pass makes their fragments
	// from the texts (store.Store.StaleFragments), as it does for rows
	// made under other rules after the program changed them.
	`ALTER TABLE entry_texts ADD COLUMN fragment_rules integer NOT NULL DEFAULT 0,
		ADD COLUMN shown_title text NOT NULL DEFAULT '',
		ADD COLUMN shown_html text NOT NULL DEFAULT '',
		ADD COLUMN shown_excerpt text NOT NULL DEFAULT '',
		ADD COLUMN shown_links text[] NOT NULL DEFAULT '{}',
		ADD COLUMN shown_whole boolean NOT NULL DEFAULT false;
	CREATE INDEX entry_texts_by_rules ON entry_texts (fragment_rules);`,
	// 7 (SQLite's 13): entry identity and a bounded state. Entries are
	// found by their link too (a site rebuilt with new guids; see
	// store.PlanSave). An entry stored without texts because its poll
	// brought more than a digest shows is marked overflow: it never gains
	// texts, and is forgotten once delivered and gone from its feed
	// (store.BareKept).
	`ALTER TABLE entries ADD COLUMN overflow boolean NOT NULL DEFAULT false;
	CREATE INDEX entries_by_feed_link ON entries (feed_id, link);
	CREATE INDEX entries_overflow ON entries (feed_id, first_seen) WHERE overflow;`,
	// 8 (SQLite's 14): which validators of a feed's server are trusted:
	// one that stayed the same while the body changed never is again, nor
	// are any sent to a server that refused a conditional request
	// (domain.Distrust); and when a GET last had an answer (at least one a
	// week). Ignoring conditional GETs was learned from a false sign
	// before (a validator came back, though the body changed): it is
	// learned again. A validator over 1 KB is no longer kept (it exceeds
	// servers' header limits when sent back).
	`ALTER TABLE feeds ADD COLUMN etag_untrusted boolean NOT NULL DEFAULT false,
		ADD COLUMN last_modified_untrusted boolean NOT NULL DEFAULT false,
		ADD COLUMN refuses_conditional boolean NOT NULL DEFAULT false,
		ADD COLUMN last_get timestamptz;
	UPDATE feeds SET ignores_conditional = false WHERE ignores_conditional;
	UPDATE feeds SET etag = '' WHERE octet_length(etag) > 1024;
	UPDATE feeds SET last_modified = '' WHERE octet_length(last_modified) > 1024;`,
	// 9 (SQLite's 15): how many reads of a feed in a row a poll mark has
	// seen cut short (see store.Attempt.Reads).
	`ALTER TABLE poll_attempts ADD COLUMN reads integer NOT NULL DEFAULT 1;`,
	// 10, 11 and 12 are SQLite's 16, 17 and 18 (see there why): an
	// entry's categories and a digest's left-out count, the article
	// claims of full_text feeds, the installation's id.
	`ALTER TABLE entries ADD COLUMN categories text NOT NULL DEFAULT '';
	ALTER TABLE digests ADD COLUMN left_out integer NOT NULL DEFAULT 0;`,
	`CREATE TABLE article_claims (feed_id bigint NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
		key text NOT NULL, claimed_at timestamptz NOT NULL, PRIMARY KEY (feed_id, key));`,
	`CREATE TABLE installation (one integer PRIMARY KEY CHECK (one = 1), id text NOT NULL);`,
	// 13 (SQLite's 19): a full_text feed's article pages, as `status`
	// shows them (domain.Feed.ArticlesAsked and ArticlesRead).
	`ALTER TABLE feeds ADD COLUMN articles_asked integer NOT NULL DEFAULT 0,
		ADD COLUMN articles_read integer NOT NULL DEFAULT 0;`,
	// 14 (SQLite's 20): the feeds a digest introduced leaving older
	// entries out, and how many (domain.Digest.Backlogs).
	`ALTER TABLE digests ADD COLUMN backlogs jsonb NOT NULL DEFAULT '[]';`,
	// 15: an entry's length in words (domain.Fragments.Words), for its
	// reading time. SQLite keeps it in the frame of the fragments, so
	// needs no migration; rows made before have fragments of older
	// rules, made again at the next pass.
	`ALTER TABLE entry_texts ADD COLUMN shown_words integer NOT NULL DEFAULT 0;`,
	// 16 (SQLite's 21): a send is claimed by a worker before the SMTP
	// conversation (send_started, send_claim) and in doubt only from
	// just before the end of the message's data (send_data_end): a claim
	// whose worker died before that is free for the next run. A send cut
	// off under an older program is kept in doubt, as it was.
	`ALTER TABLE digests ADD COLUMN send_claim text, ADD COLUMN send_data_end timestamptz;
	UPDATE digests SET send_data_end = send_started WHERE send_started IS NOT NULL AND sent_at IS NULL;`,
	// 17 (SQLite's 22): when the feed's body stopped listing an entry
	// (null while its latest body lists it), from which its retention
	// runs (see store.Store.Prune). Entries stored before are taken as
	// listed, as SQLite's are (see there why).
	`ALTER TABLE entries ADD COLUMN left_at timestamptz;
	CREATE INDEX entries_listed ON entries (feed_id) WHERE left_at IS NULL;`,
	// 18 (SQLite's 23): how many times a claimed article page was asked
	// for by runs that died before saving (store.Store.AskArticle).
	`ALTER TABLE article_claims ADD COLUMN asks integer NOT NULL DEFAULT 1;`,
	// 19 (SQLite's 24): the first entries a digest's rules left out
	// (domain.Digest.LeftOutTitles).
	`ALTER TABLE digests ADD COLUMN left_out_titles jsonb NOT NULL DEFAULT '[]';`,
	// 20 (SQLite's 25): a feed's problem as a code with its facts
	// (domain.ProblemCode), worded when a digest is written; rows from
	// before keep their words in problem, '{}' here (see SQLite's).
	`ALTER TABLE feeds ADD COLUMN problem_code jsonb NOT NULL DEFAULT '{}';`,
}

// schemaVersion is the version a migrated database has.
var schemaVersion = len(migrations)

// Advisory lock keys (the two-int form: feeddigest's class, then what).
const (
	lockClass   = 0x66656564 // "feed"
	lockMigrate = 1
	lockPlan    = 3
)

// migrate brings the database to schemaVersion. Several processes may
// start at once: an advisory lock lets one migrate while the others wait,
// then find nothing to do. A database that holds tables but none of
// feeddigest's is refused, not written into.
func (s *Store) migrate(ctx context.Context) error {
	for {
		version, err := s.schemaVersion(ctx)
		if err != nil {
			return err
		}
		if version > schemaVersion {
			return fmt.Errorf("%s: %w", s.name, &store.SchemaError{Have: version, Want: schemaVersion})
		}
		if version == schemaVersion {
			return nil
		}
		if err := s.migrateOne(ctx, version); err != nil {
			return err
		}
	}
}

// migrateOne applies the migration after version, unless another process
// did it first.
func (s *Store) migrateOne(ctx context.Context, version int) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, $2)", lockClass, lockMigrate); err != nil {
			return fmt.Errorf("migrate %s: %w", s.name, err)
		}
		now, err := versionIn(ctx, tx)
		if err != nil || now != version {
			return err // another process migrated meanwhile: look again
		}
		if version == 0 {
			if err := refuseForeign(ctx, tx, s.name); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `CREATE TABLE feeddigest_schema (version integer NOT NULL);
				INSERT INTO feeddigest_schema VALUES (0)`); err != nil {
				return fmt.Errorf("migrate %s: %w", s.name, err)
			}
		}
		if _, err := tx.Exec(ctx, migrations[version]); err != nil {
			return fmt.Errorf("migrate %s to schema %d: %w", s.name, version+1, err)
		}
		if _, err := tx.Exec(ctx, "UPDATE feeddigest_schema SET version = $1", version+1); err != nil {
			return fmt.Errorf("migrate %s to schema %d: %w", s.name, version+1, err)
		}
		return nil
	})
}

func (s *Store) schemaVersion(ctx context.Context) (int, error) {
	v, err := versionIn(ctx, s.pool)
	if err != nil {
		return 0, fmt.Errorf("read the schema version of %s: %w", s.name, err)
	}
	return v, nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// versionIn reads the schema version: 0 when the database has no
// feeddigest state yet. Asking for a missing table would abort the
// transaction it is asked in, so the catalog is read first: pg_tables,
// whose rows each statement sees afresh, not to_regclass, whose cache
// may not yet know a table another process has just created.
func versionIn(ctx context.Context, q querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_tables
		WHERE schemaname = current_schema() AND tablename = 'feeddigest_schema')`).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var version int
	err := q.QueryRow(ctx, "SELECT version FROM feeddigest_schema").Scan(&version)
	return version, err
}

// refuseForeign refuses a database (schema) that holds tables of
// something else.
func refuseForeign(ctx context.Context, q querier, name string) error {
	var tables int
	if err := q.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").Scan(&tables); err != nil {
		return fmt.Errorf("look into %s: %w", name, err)
	}
	if tables > 0 {
		return fmt.Errorf("%w: %s holds %d tables, none of them feeddigest's; give feeddigest a database (or a schema, with ?search_path=...) of its own",
			store.ErrNotState, name, tables)
	}
	return nil
}
