package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// SyncDir syncs a folder that is there, and says so when it is not
// (the SQLite state reports it; the config's editor passes over it).
func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	if err := SyncDir(dir); err != nil {
		t.Errorf("SyncDir(%s) = %v", dir, err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncDir of a missing folder = %v, want fs.ErrNotExist", err)
	}
}
