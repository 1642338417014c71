package backends

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"feeddigest/store"
)

// After Register, a file name is an SQLite state (none there yet), and
// a postgres:// URL is PostgreSQL's, not taken for a file name.
func TestRegisterBothInOrder(t *testing.T) {
	Register()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := store.OpenReader(ctx, filepath.Join(dir, "state.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a state file not there yet: %v, want fs.ErrNotExist", err)
	}
	t.Chdir(dir)
	url := "postgres://feeds@127.0.0.1:1/digest"
	_, err := store.OpenReader(ctx, url)
	if err == nil || errors.Is(err, store.ErrNoBackend) || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a PostgreSQL URL nobody answers at: %v, want a connection error", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the URL was taken for a file: %v", entries)
	}
}
