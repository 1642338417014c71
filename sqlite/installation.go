package sqlite

import (
	"context"
	"database/sql"
	"errors"
)

// Installation is the id kept by KeepInstallation, "" when none is.
func (s *Store) Installation(ctx context.Context) (string, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT id FROM installation WHERE one = 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// KeepInstallation keeps candidate unless an id is kept already, and
// returns the kept one.
func (s *Store) KeepInstallation(ctx context.Context, candidate string) (string, error) {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO installation (one, id) VALUES (1, ?) ON CONFLICT (one) DO NOTHING`, candidate); err != nil {
		return "", err
	}
	return s.Installation(ctx)
}
