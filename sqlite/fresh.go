package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	modernc "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"feeddigest/config"
	"feeddigest/store"
)

// A state file that is missing is a fresh start. One that exists but is
// empty, or is an SQLite file without feeddigest's schema, is what a
// failed CI cache restore or an interrupted copy leaves: taking it for a
// fresh start would repeat in the next digests entries already delivered,
// and index.html and feed.xml would lose their history. It is refused,
// whatever the site beside it holds, saying what to do; deleting it is the
// fresh start. So that feeddigest itself never leaves such a file, a new
// state file is made and migrated under another name and then renamed
// into place.

const startAfresh = "restore it (from the cache or a backup), or delete it to start afresh " +
	"(the next digests would then show entries again, and index.html and feed.xml would start a new history)"

// checkExisting says whether a state file exists at path and, if it does,
// whether it holds feeddigest's state, reading it without changing it.
func checkExisting(ctx context.Context, path string) (exists bool, err error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("state file: %w", err)
	case info.IsDir():
		return true, fmt.Errorf("state file %s is a folder", path)
	case info.Size() == 0:
		return true, fmt.Errorf("%w: %s exists but is empty (0 bytes), perhaps a failed cache restore; %s", store.ErrNotState, path, startAfresh)
	}
	db, err := sql.Open("sqlite", fileURI(path, "mode=ro"))
	if err != nil {
		return true, fmt.Errorf("open state %s: %w", path, err)
	}
	defer db.Close()
	var version, tables int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return true, explainDamage(path, err)
	}
	if version > 0 {
		return true, nil
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
		return true, explainDamage(path, err)
	}
	if tables > 0 {
		return true, fmt.Errorf("%w: %s is an SQLite database of something else (%d tables, none of feeddigest's); choose another state path", store.ErrNotState, path, tables)
	}
	return true, fmt.Errorf("%w: %s exists but holds no data (an SQLite file without tables), perhaps a failed cache restore; %s", store.ErrNotState, path, startAfresh)
}

// create makes a new state file at path, migrated, appearing there whole.
func create(ctx context.Context, path string) error {
	tmp := path + ".new"
	for _, leftover := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
		if err := os.Remove(leftover); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("new state file: %w", err)
		}
	}
	db, err := sql.Open("sqlite", dsn(tmp))
	if err != nil {
		return fmt.Errorf("new state file %s: %w", tmp, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: tmp}
	err = s.migrate(ctx)
	if closeErr := db.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return fmt.Errorf("new state file %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("new state file: %w", err)
	}
	return config.SyncDir(filepath.Dir(path))
}

// explainDamage names the state file in an error that SQLite raised
// because the file is corrupt, and says what to do; other errors pass
// unchanged.
func explainDamage(path string, err error) error {
	var e *modernc.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Code() & 0xff { // primary result code
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("%w: %s: %w; %s", store.ErrDamaged, path, err, startAfresh)
	}
	return err
}

// Damaged names the state file in an error SQLite raised because the file
// is corrupt, saying what to do; other errors pass unchanged.
func (s *Store) Damaged(err error) error { return explainDamage(s.path, err) }
