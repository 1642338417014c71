package postgres

import (
	"context"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// NamedProblems lists the problems of user's digests built after after
// (see store.DigestTx).
func (r digestRows) NamedProblems(ctx context.Context, user string, after time.Time) ([]domain.Problem, error) {
	rows, err := r.tx.Query(ctx, "SELECT problems FROM digests WHERE user_name = $1 AND built_at > $2 AND problems != '[]'::jsonb", user, orEpoch(after))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []domain.Problem
	for rows.Next() {
		var problems []byte
		if err := rows.Scan(&problems); err != nil {
			return nil, err
		}
		if out, err = store.DecodeProblems(out, problems); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}
