package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Installation is the id kept by KeepInstallation, "" when none is.
func (s *Store) Installation(ctx context.Context) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT id FROM installation WHERE one = 1`).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// KeepInstallation keeps candidate unless an id is kept already (by this
// run or another sharing the database), and returns the kept one.
func (s *Store) KeepInstallation(ctx context.Context, candidate string) (string, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO installation (one, id) VALUES (1, $1) ON CONFLICT (one) DO NOTHING`, candidate); err != nil {
		return "", err
	}
	return s.Installation(ctx)
}
