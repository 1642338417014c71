package local_test

import (
	"context"
	"path/filepath"
	"testing"

	"feeddigest/sqlite"
	"feeddigest/store"
	"feeddigest/store/local"
	"feeddigest/store/storetest"
)

// TestCoordinatorContract runs the Coordinator contract against the
// in-process coordinator of an SQLite state.
func TestCoordinatorContract(t *testing.T) {
	storetest.RunCoordinator(t, func(t *testing.T) store.Coordinator {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return local.New(s)
	})
}
