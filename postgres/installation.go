package postgres

import (
	"context"
)

// Installation is the id kept by KeepInstallation, "" when none is.
func (s *Store) Installation(ctx context.Context) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT id FROM installation WHERE one = 1), '')`).Scan(&id)
	return id, err
}

// KeepInstallation keeps candidate unless an id is kept already (by this
// run or another sharing the database), and returns the kept one: in one
// statement, as ON CONFLICT DO UPDATE returns the row already there even
// when another run committed it after the statement began.
func (s *Store) KeepInstallation(ctx context.Context, candidate string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `INSERT INTO installation (one, id) VALUES (1, $1)
		ON CONFLICT (one) DO UPDATE SET id = installation.id RETURNING id`, candidate).Scan(&id)
	return id, err
}
