package sqlite

import (
	"context"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// NamedProblems lists the problems of user's digests built after after
// (see store.DigestTx).
func (r *digestRows) NamedProblems(ctx context.Context, user string, after time.Time) ([]domain.Problem, error) {
	rows, err := r.tx.QueryContext(ctx, "SELECT problems FROM digests WHERE user = ? AND built_at > ? AND problems != '[]'", user, unix(after))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []domain.Problem
	for rows.Next() {
		var problems string
		if err := rows.Scan(&problems); err != nil {
			return nil, err
		}
		if out, err = store.DecodeProblems(out, []byte(problems)); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}
