package postgres

import (
	"testing"

	"feeddigest/internal/pgtest"
	"feeddigest/store"
	"feeddigest/store/storetest"
)

// TestCoordinatorContract runs the Coordinator contract against a real
// PostgreSQL server, a fresh database each.
func TestCoordinatorContract(t *testing.T) {
	storetest.RunCoordinator(t, func(t *testing.T) store.Coordinator {
		return open(t, pgtest.NewDatabase(t))
	})
}
