// Package sqlite keeps feeddigest's state (the contract of package store)
// in one SQLite file, held by one run at a time. All of feeddigest's SQL
// lives here.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", no cgo

	"feeddigest/store"
)

// Store is an open state file, held exclusively by this process (Open),
// or read beside the run that holds it (OpenReader).
type Store struct {
	db   *sql.DB
	lock *os.File
	path string
	// hot are the statements every poll runs, prepared once by Open:
	// modernc's SQLite otherwise parses a statement at every Exec, a
	// tenth of a run's CPU when 2000 polls save their entries.
	hot map[string]*sql.Stmt
	// The Reader's listings of a digest, over digestListing, and lists
	// of digests, over queryDigests.
	store.DigestListings
	store.DigestLists
}

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the state file at path, takes the
// exclusive run lock and migrates the schema. A second Open of the same
// file, from this or another process, fails at once with store.ErrLocked.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("state folder: %w", err)
	}
	path, err := realPath(path)
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	lock, err := acquireLock(path + ".lock")
	if err != nil {
		return nil, err
	}
	exists, err := checkExisting(ctx, path)
	if err == nil && !exists {
		err = create(ctx, path)
	}
	if err != nil {
		lock.Close()
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway, and a single
	// connection makes every statement see the same transaction state.
	db.SetMaxOpenConns(1)
	s := newStore(db, path)
	s.lock = lock
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("state %s: %w", path, explainDamage(path, err))
	}
	if err := s.prepareHot(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("state %s: %w", path, explainDamage(path, err))
	}
	if err := s.releaseDeadClaims(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("state %s: %w", path, err)
	}
	return s, nil
}

// hotQueries are the statements run for every poll, and for every feed
// of a digest page (see Store.hot).
var hotQueries = append([]string{updateEntry, deleteAttempt, beginAttempt, updateFeedRecord, feedListing,
	storedLikeQuery, forgetBare, markListed, subscribersDigests, pendingEntries}, slices.Collect(maps.Values(rowsStatements))...)

// rowChunks are the row counts of the multi-row statements (a poll's
// entries and their texts), each prepared once: n rows are written in
// chunks of these, the largest first (10 rows: 8, then 2).
var rowChunks = []int{16, 8, 4, 2, 1}

// rowsStatements are the multi-row statements by template and row count.
var rowsStatements = func() map[rowsKey]string {
	m := map[rowsKey]string{}
	for _, t := range []struct {
		template string
		columns  int
	}{{insertEntries, entryColumns}, {saveTexts, textColumns}} {
		row := "(" + strings.TrimSuffix(strings.Repeat("?, ", t.columns), ", ") + ")"
		for _, n := range rowChunks {
			m[rowsKey{t.template, n}] = fmt.Sprintf(t.template, strings.TrimSuffix(strings.Repeat(row+", ", n), ", "))
		}
	}
	return m
}()

type rowsKey struct {
	template string
	rows     int
}

// rowsStatement is the statement of template (a VALUES %s) for rows
// rows, one of rowChunks.
func rowsStatement(template string, rows int) string {
	return rowsStatements[rowsKey{template, rows}]
}

// chunks splits args, rows of columns values, into chunks of rowChunks
// rows.
func chunks(args []any, columns int) iter.Seq[[]any] {
	return func(yield func([]any) bool) {
		for len(args) > 0 {
			rows := len(args) / columns
			for _, n := range rowChunks {
				if n <= rows {
					rows = n
					break
				}
			}
			if !yield(args[:rows*columns]) {
				return
			}
			args = args[rows*columns:]
		}
	}
}

// execRows runs template (see rowsStatement) in tx over args, rows of
// columns values, a chunk at a time.
func (s *Store) execRows(ctx context.Context, tx *sql.Tx, template string, columns int, args []any) error {
	for chunk := range chunks(args, columns) {
		if _, err := s.execHot(ctx, tx, rowsStatement(template, len(chunk)/columns), chunk...); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) prepareHot(ctx context.Context) error {
	s.hot = map[string]*sql.Stmt{}
	for _, q := range hotQueries {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %.40q: %w", q, err)
		}
		s.hot[q] = st
	}
	return nil
}

// queryHot runs one of hotQueries that returns a row, in tx.
func (s *Store) queryHot(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st, ok := s.hot[query]; ok {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// queryRowsHot runs one of hotQueries that returns rows, in tx.
func (s *Store) queryRowsHot(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	if st, ok := s.hot[query]; ok {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, query, args...)
}

// execHot runs one of hotQueries, in tx unless it is nil.
func (s *Store) execHot(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	st, ok := s.hot[query]
	switch {
	case !ok && tx != nil:
		return tx.ExecContext(ctx, query, args...)
	case !ok:
		return s.db.ExecContext(ctx, query, args...)
	case tx != nil:
		st = tx.StmtContext(ctx, st)
	}
	return st.ExecContext(ctx, args...)
}

// dsn opens the file in WAL mode with synchronous=NORMAL: every commit
// survives the process being killed at any instant (the WAL is replayed on
// the next open), and the state stays consistent even on power loss, when
// at worst the last few commits are redone by the next run. FULL would add
// an fsync to every feed's commit for no gain against kill -9.
func dsn(path string) string {
	return fileURI(path, "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"+
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)")
}

// fileURI is the SQLite URI of the file at path: the path absolute and
// escaped, so that a '#', '?' or '%' in it is part of the name (joined as
// text, "hash#x/state.db" opened "./hash", and the lock beside the real
// path guarded nothing).
func fileURI(path, query string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: query}
	return u.String()
}

// maxLinks is how many symbolic links realPath follows before it takes
// them for a loop.
const maxLinks = 40

// errLinkLoop is a state path whose symbolic links never end.
var errLinkLoop = errors.New("too many symbolic links")

// realPath is the file a state path names, symbolic links resolved, even
// when the file does not exist yet (then its folder's links are
// resolved, or a dangling link's target taken): the run lock is a file
// beside it, and a lock beside a link to the state would let a run
// through the link and one through the real path hold one each, and
// both poll every feed.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for range maxLinks {
		real, err := filepath.EvalSymlinks(abs)
		if err == nil {
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		target, err := os.Readlink(abs)
		if err != nil { // no link: a file not made yet
			dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
			if err != nil {
				return "", err
			}
			return filepath.Join(dir, filepath.Base(abs)), nil
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		abs = target
	}
	return "", fmt.Errorf("%s: %w", path, errLinkLoop)
}

// acquireLock takes a non-blocking flock on a side file. The kernel drops
// the lock when the process dies, so a killed run never leaves it stuck.
func acquireLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("state lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", store.ErrLocked, path)
		}
		return nil, fmt.Errorf("state lock: %w", err)
	}
	return f, nil
}

// Close closes the database and releases the lock.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.lock != nil {
		syscall.Flock(int(s.lock.Fd()), syscall.LOCK_UN)
		s.lock.Close()
		s.lock = nil
	}
	return err
}

// unix stores a time as Unix seconds, the zero time as 0.
func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func fromUnix(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(v, 0).UTC()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newStore is the store over db, the state file at path.
func newStore(db *sql.DB, path string) *Store {
	s := &Store{db: db, path: path}
	s.List = s.digestListing
	s.DigestLists = store.DigestLists{Query: s.queryDigests, Where: digestsWhere, At: func(t time.Time) any { return unix(t) }}
	return s
}

// inTx runs fn in one transaction, rolled back on error.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// OpenReader opens an existing state file for reading only, without the
// run lock, so that `status` works while a run is in progress.
func OpenReader(ctx context.Context, path string) (*Store, error) {
	exists, err := checkExisting(ctx, path)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("%w at %s: %w", store.ErrNoState, path, fs.ErrNotExist)
	}
	db, err := sql.Open("sqlite", fileURI(path, "mode=ro&_pragma=busy_timeout(5000)"))
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("state %s: %w", path, explainDamage(path, err))
	}
	if version != schemaVersion {
		db.Close()
		return nil, fmt.Errorf("state %s: %w", path, &store.SchemaError{Have: version, Want: schemaVersion})
	}
	return newStore(db, path), nil
}
