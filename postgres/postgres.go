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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"feeddigest/store"
)

// Store is an open PostgreSQL state. Several runs open the same
// database at once and share its passes (see passes.go); each is a
// worker with an identity of its own.
type Store struct {
	pool *pgxpool.Pool
	url  string // as opened: the key of its pool when closed (see KeepClosedPools)
	// closeOnce hands the pool over once, however often Close is called.
	closeOnce sync.Once
	name      string // the database, as shown in messages: host, port and name, never a password
	// worker names this run in claims and poll marks: host, process, and
	// a random part.
	worker string
	// heartbeat renews the worker's lease once the run has joined a pass;
	// stopHeartbeat ends it.
	stopHeartbeat func()
	// planning holds the planning lock while this run plans a pass.
	planning *pgxpool.Conn
	// The Reader's listings of a digest, over digestListing, and lists
	// of digests, over queryDigests.
	store.DigestListings
	store.DigestLists
}

var _ store.Coordinator = (*Store)(nil)

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
	s := &Store{url: rawURL, name: describe(cfg.ConnConfig), worker: workerName()}
	s.List = s.digestListing
	s.DigestLists = store.DigestLists{Query: s.queryDigests, Where: digestsWhere, At: func(t time.Time) any { return orEpoch(t) }}
	if s.pool = closedPools.take(rawURL); s.pool != nil {
		return s, nil // pgxpool pings a connection idle for over a second before handing it out
	}
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

// workerName names this run among the workers of shared passes.
func workerName() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
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

// Open connects to the database at rawURL (postgres://user@host:port/db)
// and migrates its schema. Several runs may open one database at once:
// they share its passes instead of excluding each other.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	s, err := connect(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	if _, done := migratedURLs.Load(rawURL); done {
		return s, nil
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	migratedURLs.Store(rawURL, true)
	return s, nil
}

// migratedURLs holds the URLs this process has opened and migrated to
// the current schema: opening one again skips the check, two round trips
// whose first (a question to the catalog) costs a fresh connection more
// to plan than most of a run's statements. The program opens its state
// once; the tests open each database tens of times, once a pass.
var migratedURLs sync.Map

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
		err = noStateError{s.name}
	case version != schemaVersion:
		err = fmt.Errorf("%s: %w", s.name, &store.SchemaError{Have: version, Want: schemaVersion})
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// noStateError is store.ErrNoState (and fs.ErrNotExist, as a missing
// SQLite file) for a database that holds no feeddigest state yet, in
// words that do not call it a file.
type noStateError struct{ db string }

func (e noStateError) Error() string { return "no feeddigest state in " + e.db }

func (e noStateError) Is(target error) bool {
	return target == store.ErrNoState || target == fs.ErrNotExist
}

// Close ends the run's part in a shared pass (its claims are free at
// once for the others) and closes the pool, or keeps it for the next
// Open of the same URL (see KeepClosedPools).
func (s *Store) Close() error {
	s.AbandonPlan()
	s.leave()
	s.closeOnce.Do(func() { closedPools.put(s.url, s.pool) })
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
