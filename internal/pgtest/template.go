package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Template is a database made once per test process and filled by
// Prepare (a state's schema, say); each NewDatabase starts as it. The
// first ones are copies of it, which cost a fraction of creating a
// database and filling it again (0.1-0.3 s against 1-2 s for
// feeddigest's migrations). A database is handed on when its test ends:
// emptied back to the template's rows, it serves the next test. Copying
// a database asks the server for two checkpoints, and every new database
// means new server processes for its connections, their catalog caches
// filled and their statements planned again: in the pass tests that was
// more than half of the server's work. A database its test changed
// beyond its rows (a table altered or added) is never handed on.
type Template struct {
	// Prepare fills the template database at url, once.
	Prepare func(ctx context.Context, url string) error

	once     sync.Once
	name     string
	original *contents // what Prepare left: the schema and the rows
	err      error

	mu     sync.Mutex
	done   []string             // URLs of the databases of tests that ended, newest last
	keeper map[string]*pgx.Conn // a database's own connection, kept for emptying it
}

// NewDatabase is a database for this test, as the template is.
func (tp *Template) NewDatabase(t testing.TB) string {
	t.Helper()
	cluster := Require(t)
	ctx := context.Background()
	tp.once.Do(func() { tp.err = tp.make(ctx, cluster) })
	if tp.err != nil {
		t.Fatal(tp.err)
	}
	url := tp.reuse(ctx)
	if url == "" {
		var err error
		if url, err = cluster.CopyDatabase(ctx, tp.name, t.Name()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { tp.handOn(url) })
	return url
}

// KeeperName is the application_name of the connections that empty the
// databases, for a test that counts the sessions of its own.
const KeeperName = "pgtest"

// make creates and prepares the template and reads what it holds.
func (tp *Template) make(ctx context.Context, cluster *Cluster) error {
	url, err := cluster.CreateDatabase(ctx, "template")
	if err != nil {
		return err
	}
	tp.name = DatabaseName(url)
	tp.keeper = map[string]*pgx.Conn{}
	if err := tp.Prepare(ctx, url); err != nil {
		return err
	}
	tp.original, err = read(ctx, url)
	return err
}

// handOn keeps the database of a test that ended for the next one.
func (tp *Template) handOn(url string) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.done = append(tp.done, url)
}

// reuse empties a database of a test that ended back to the template's
// rows and returns its URL, or "" when there is none. One that cannot be
// emptied, or whose schema its test changed, is dropped from the list.
func (tp *Template) reuse(ctx context.Context) string {
	for {
		tp.mu.Lock()
		if len(tp.done) == 0 {
			tp.mu.Unlock()
			return ""
		}
		url := tp.done[len(tp.done)-1]
		tp.done = tp.done[:len(tp.done)-1]
		conn := tp.keeper[url]
		delete(tp.keeper, url)
		tp.mu.Unlock()
		conn, err := tp.original.restore(ctx, url, conn)
		if err == nil {
			tp.mu.Lock()
			tp.keeper[url] = conn
			tp.mu.Unlock()
			return url
		}
	}
}

// contents is what a database holds that a test may change: its schema
// (a description of every object in it), its tables, the rows of those
// that hold any, and its sequences' values.
type contents struct {
	schema string
	tables []string          // every table, as TRUNCATE names it
	rows   map[string][]byte // a table's rows in COPY's text format
	used   []string          // the sequences that were used,
	last   []int64           // and their last values
}

// read reads the contents of the database at url.
func read(ctx context.Context, url string) (*contents, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("pgtest: read the template: %w", err)
	}
	defer conn.Close(ctx)
	c := &contents{rows: map[string][]byte{}}
	if err := conn.QueryRow(ctx, schemaQuery).Scan(&c.schema); err != nil {
		return nil, fmt.Errorf("pgtest: read the template's schema: %w", err)
	}
	if c.tables, err = columnOf(ctx, conn, tablesQuery); err != nil {
		return nil, fmt.Errorf("pgtest: list the template's tables: %w", err)
	}
	for _, table := range c.tables {
		var rows bytes.Buffer
		if _, err := conn.PgConn().CopyTo(ctx, &rows, "COPY "+table+" TO STDOUT"); err != nil {
			return nil, fmt.Errorf("pgtest: read the template's %s: %w", table, err)
		}
		if rows.Len() > 0 {
			c.rows[table] = rows.Bytes()
		}
	}
	seqs, err := conn.Query(ctx, sequencesQuery)
	if err != nil {
		return nil, fmt.Errorf("pgtest: read the template's sequences: %w", err)
	}
	var name string
	var last int64
	_, err = pgx.ForEachRow(seqs, []any{&name, &last}, func() error {
		c.used, c.last = append(c.used, name), append(c.last, last)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgtest: read the template's sequences: %w", err)
	}
	return c, nil
}

// errChanged means a test changed its database's schema.
var errChanged = errors.New("pgtest: the database's schema is not the template's")

// restore empties the database at url back to c, in one transaction: its
// tables emptied, the rows of c put back, every sequence set to its
// value in c or started again. It fails, changing nothing, when the
// schema is not c's or a session still holds a table (a test that left a
// store open). It works through conn, the database's own connection,
// or a new one when conn is nil, and returns the connection to keep for
// the next time: its catalog caches filled, the next emptying takes a
// fraction of the first (a new connection and its first look at the
// catalog cost three quarters of it).
func (c *contents) restore(ctx context.Context, url string, conn *pgx.Conn) (*pgx.Conn, error) {
	if conn == nil || conn.IsClosed() {
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			return nil, err
		}
		cfg.RuntimeParams["application_name"] = KeeperName
		if conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return nil, err
		}
	}
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '2s'"); err != nil {
			return err
		}
		var schema string
		if err := tx.QueryRow(ctx, schemaQuery).Scan(&schema); err != nil {
			return err
		}
		if schema != c.schema {
			return errChanged
		}
		if len(c.tables) > 0 {
			if _, err := tx.Exec(ctx, "TRUNCATE "+strings.Join(c.tables, ", ")+" CASCADE"); err != nil {
				return err
			}
		}
		for table, rows := range c.rows {
			if _, err := tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(rows), "COPY "+table+" FROM STDIN"); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, restartSequences, c.used, c.last)
		return err
	})
	if err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// columnOf runs a query of one text column and returns its values.
func columnOf(ctx context.Context, conn *pgx.Conn, query string) ([]string, error) {
	rows, err := conn.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// userSchemas limits a catalog query to the schemas a test may create
// objects in (not the system's, not a session's temporary ones).
const userSchemas = `n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'`

// schemaQuery describes every object of the database a test could
// change besides rows: relations and their columns, indexes,
// constraints, functions, triggers, extensions, schemas, the database's
// settings.
const schemaQuery = `SELECT coalesce(string_agg(d, E'\n' ORDER BY d), '') FROM (
	SELECT format('relation %s %s', c.oid::regclass, c.relkind)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + userSchemas + `
	UNION ALL
	SELECT format('column %s.%s %s %s %s', c.oid::regclass, a.attname, format_type(a.atttypid, a.atttypmod),
			a.attnotnull, coalesce(pg_get_expr(ad.adbin, ad.adrelid), ''))
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
		WHERE ` + userSchemas + `
	UNION ALL
	SELECT 'index ' || pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE ` + userSchemas + `
	UNION ALL
	SELECT format('constraint %s %s %s', k.conrelid::regclass, k.conname, pg_get_constraintdef(k.oid))
		FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace WHERE ` + userSchemas + `
	UNION ALL
	SELECT format('function %s %s', p.oid::regprocedure, md5(p.prosrc))
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ` + userSchemas + `
	UNION ALL
	SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
	UNION ALL
	SELECT 'extension ' || extname FROM pg_extension
	UNION ALL
	SELECT 'schema ' || n.nspname FROM pg_namespace n WHERE ` + userSchemas + `
	UNION ALL
	SELECT 'settings ' || array_to_string(setconfig, ' ') FROM pg_db_role_setting
		WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) AS schema(d)`

// tablesQuery lists the tables of the user's schemas.
const tablesQuery = `SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p') AND ` + userSchemas + ` ORDER BY 1`

// sequencesQuery lists the sequences that were used, with their last
// values.
const sequencesQuery = `SELECT format('%I.%I', schemaname, sequencename), last_value FROM pg_sequences s
	WHERE last_value IS NOT NULL AND ` + userSequences

// restartSequences sets each sequence of $1 to its value in $2, and
// starts every other one again, as if never used.
const restartSequences = `SELECT setval(format('%I.%I', s.schemaname, s.sequencename)::regclass,
		coalesce(used.last, s.start_value), used.last IS NOT NULL)
	FROM pg_sequences s LEFT JOIN unnest($1::text[], $2::bigint[]) AS used(name, last)
		ON used.name = format('%I.%I', s.schemaname, s.sequencename)
	WHERE ` + userSequences

const userSequences = `s.schemaname <> 'information_schema' AND s.schemaname NOT LIKE 'pg\_%'`
