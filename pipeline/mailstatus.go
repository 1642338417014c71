package pipeline

import (
	"context"
	"sort"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/render"
	"feeddigest/store"
)

// mailStatusWindow is how long a digest given up (or whose send a crash
// cut off) stays in the status: long enough to be noticed.
const mailStatusWindow = 7 * 24 * time.Hour

// MailStatus reads from the state file, for each user with mail that did
// not go out, why and what happens next; nil without [email] smtp.
func MailStatus(ctx context.Context, cfg *config.Config, now time.Time) ([]render.MailStatus, error) {
	if cfg.Email.SMTP == nil {
		return nil, nil
	}
	st, err := OpenReader(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return mailStatusRows(ctx, st, now)
}

func mailStatusRows(ctx context.Context, st store.Reader, now time.Time) ([]render.MailStatus, error) {
	digests, err := st.NotSent(ctx, now.Add(-mailStatusWindow))
	if err != nil {
		return nil, err
	}
	byUser := map[string][]domain.Digest{}
	for _, d := range digests {
		byUser[d.User] = append(byUser[d.User], d)
	}
	var rows []render.MailStatus
	for user, ds := range byUser {
		if row, ok := mailStatusRow(user, ds, now); ok {
			rows = append(rows, row)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].User < rows[j].User })
	return rows, nil
}

// mailStatusRow sums up one user's digests that were not sent (oldest
// first); a digest the next pass will give up is shown as given up.
func mailStatusRow(user string, digests []domain.Digest, now time.Time) (render.MailStatus, bool) {
	row := render.MailStatus{User: user}
	var open []domain.Digest
	for _, d := range digests {
		switch {
		case !d.SendGivenUp.IsZero():
			row.GivenUp, row.GivenUpWhy = append(row.GivenUp, d.Date), d.SendGivenUpWhy
		case !d.SendDataEnded.IsZero():
			if now.Sub(d.SendDataEnded) <= mailStatusWindow {
				row.Interrupted = append(row.Interrupted, d.Date)
			}
		default:
			open = append(open, d)
		}
	}
	plan := planUser(open, now)
	givingUp := map[string]bool{}
	for _, g := range plan.giveUp {
		givingUp[g.digest.Date] = true
		row.GivenUp, row.GivenUpWhy = append(row.GivenUp, g.digest.Date), g.why
	}
	for _, d := range open {
		if !givingUp[d.Date] {
			row.Unsent = append(row.Unsent, d.Date)
		}
	}
	sort.Strings(row.GivenUp)
	if last, ok := lastFailure(open); ok && len(row.Unsent) > 0 {
		row.LastError, row.Permanent, row.Attempts = last.SendError, last.SendPermanent, last.SendAttempts
	}
	row.NextTry, row.OnlyNewest = plan.next, plan.blocked
	return row, len(row.Unsent)+len(row.GivenUp)+len(row.Interrupted) > 0
}
