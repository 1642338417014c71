// Package postgres keeps feeddigest's state (the contract of package
// store) in a PostgreSQL database, through pgx and its connection pool.
// It is the state for those who outgrow one machine or one file; the
// SQLite state (package sqlite) stays the default. All of its SQL lives
// here.
//
// The password never comes from the configuration: pgx reads it from the
// usual places, the PGPASSWORD environment variable or ~/.pgpass (or
// PGPASSFILE).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"feeddigest/store"
)

// Store is an open PostgreSQL state.
type Store struct {
	pool *pgxpool.Pool
	name string // the database, as shown in messages: host, port and name, never a password
	// lock is the connection holding the run lock (Open), nil for a reader.
	lock *pgx.Conn
}

var _ store.Store = (*Store)(nil)

// IsURL says whether a state setting names a PostgreSQL database rather
// than an SQLite file.
func IsURL(state string) bool {
	lower := strings.ToLower(state)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// defaultMaxConns is the pool's size unless the URL sets pool_max_conns:
// a pass saves polls from many goroutines at once.
const defaultMaxConns = 4

// connect opens a pool on the database at rawURL and checks that it
// answers.
func connect(ctx context.Context, rawURL string) (*Store, error) {
	if !IsURL(rawURL) {
		return nil, fmt.Errorf("%q is not a postgres:// or postgresql:// URL", rawURL)
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("state URL: %w", err)
	}
	if !strings.Contains(rawURL, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	s := &Store{name: describe(cfg.ConnConfig)}
	s.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", s.name, err)
	}
	if err := s.pool.Ping(ctx); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("state %s: cannot connect: %w", s.name, err)
	}
	return s, nil
}

// describe names a database in messages: user, host, port and database,
// never the password.
func describe(c *pgx.ConnConfig) string {
	host := c.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	}
	return fmt.Sprintf("PostgreSQL database %q on %s:%d as %q", c.Database, host, c.Port, c.User)
}

// Open connects to the database at rawURL (postgres://user@host:port/db),
// migrates its schema and takes the run lock: a second Open of the same
// database, from this or another process, fails at once with
// store.ErrLocked. The lock is a session lock of the server, released
// when this process closes the store or dies.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	s, err := connect(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	if err := s.takeRunLock(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) takeRunLock(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("state %s: %w", s.name, err)
	}
	// The connection leaves the pool: the lock lives as long as it.
	s.lock = conn.Hijack()
	var got bool
	if err := s.lock.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", lockClass, lockRun).Scan(&got); err != nil {
		return fmt.Errorf("state %s: run lock: %w", s.name, err)
	}
	if !got {
		return fmt.Errorf("%w (%s); try again when it has finished", store.ErrLocked, s.name)
	}
	return nil
}

// OpenReader connects to an existing state for reading only, without the
// run lock, so that `status` works while a run is in progress. A database
// without feeddigest's state is fs.ErrNotExist, as a missing SQLite file.
func OpenReader(ctx context.Context, rawURL string) (*Store, error) {
	s, err := connect(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	version, err := s.schemaVersion(ctx)
	switch {
	case err != nil:
	case version == 0:
		err = fmt.Errorf("no feeddigest state in %s (has feeddigest run yet?): %w", s.name, fs.ErrNotExist)
	case version != schemaVersion:
		err = fmt.Errorf("%s has schema %d, this program reads %d: run `feeddigest run` once to migrate", s.name, version, schemaVersion)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the run lock and closes the pool.
func (s *Store) Close() error {
	if s.lock != nil {
		// Unlocked before the connection closes: the server ends a session
		// a moment after its client hangs up, and the next run may come
		// sooner. (A process that dies leaves that to the server.)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s.lock.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", lockClass, lockRun)
		s.lock.Close(ctx)
		cancel()
		s.lock = nil
	}
	s.pool.Close()
	return nil
}

// Damaged passes errors unchanged: PostgreSQL keeps its own data safe,
// and what it reports (a lost connection, a full disk) says itself what
// went wrong.
func (s *Store) Damaged(err error) error { return err }

// at is a time for a timestamptz parameter: NULL for the zero time, else
// in UTC to the second (the state keeps seconds, as the SQLite state does).
func at(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(time.Second)
}

// orEpoch is a time for a comparison: the zero time is the Unix epoch,
// before anything the state holds.
func orEpoch(t time.Time) time.Time {
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC().Truncate(time.Second)
}

// timeOf scans a nullable timestamptz into a time.Time: NULL is the zero
// time, others are in UTC.
type timeOf struct{ t *time.Time }

func (s timeOf) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid {
		*s.t = time.Time{}
		return nil
	}
	*s.t = v.Time.UTC()
	return nil
}

// isUniqueViolation says whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
