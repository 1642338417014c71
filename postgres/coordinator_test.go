package postgres

import (
	"testing"

	"feeddigest/store"
	"feeddigest/store/storetest"
)

// TestCoordinatorContract runs the Coordinator contract against a real
// PostgreSQL server, a fresh database each (a copy of a migrated one).
func TestCoordinatorContract(t *testing.T) {
	storetest.RunCoordinator(t, func(t *testing.T) store.Coordinator {
		return open(t, migrated.NewDatabase(t))
	})
}
