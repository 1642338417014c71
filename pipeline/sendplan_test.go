package pipeline

import (
	"slices"
	"testing"
	"time"

	"feeddigest/domain"
)

func TestPlanSends(t *testing.T) {
	now := at("2026-11-24T00:05:00Z")
	digest := func(user, date string, attempts int, failedAgo time.Duration, permanent bool) domain.Digest {
		built, _ := time.Parse(time.DateOnly, date)
		d := domain.Digest{User: user, Date: date, BuiltAt: built.Add(5 * time.Minute), SendAttempts: attempts, SendPermanent: permanent}
		if attempts > 0 {
			d.SendFailedAt, d.SendError = now.Add(-failedAgo), "mail: smtp: failed"
		}
		return d
	}
	tests := []struct {
		name         string
		unsent       []domain.Digest
		send, giveUp []string // user/date
	}{
		{"never tried", []domain.Digest{digest("ada", "2026-11-24", 0, 0, false)}, []string{"ada/2026-11-24"}, nil},
		{"an hour after a passing failure", []domain.Digest{digest("ada", "2026-11-23", 1, 55*time.Minute, false)},
			[]string{"ada/2026-11-23"}, nil},
		{"too soon after a passing failure", []domain.Digest{digest("ada", "2026-11-23", 1, 40*time.Minute, false)}, nil, nil},
		{"third failure waits four hours", []domain.Digest{digest("ada", "2026-11-23", 3, 3*time.Hour, false)}, nil, nil},
		{"third failure, four hours on", []domain.Digest{digest("ada", "2026-11-23", 3, 4*time.Hour, false)},
			[]string{"ada/2026-11-23"}, nil},
		{"the wait stops growing at a day", []domain.Digest{digest("ada", "2026-11-23", 12, 24*time.Hour, false)},
			[]string{"ada/2026-11-23"}, nil},
		{"passing failures: every digest", []domain.Digest{digest("ada", "2026-11-22", 2, 3*time.Hour, false),
			digest("ada", "2026-11-23", 2, 3*time.Hour, false), digest("ada", "2026-11-24", 0, 0, false)},
			[]string{"ada/2026-11-22", "ada/2026-11-23", "ada/2026-11-24"}, nil},
		{"permanent: nothing within a day", []domain.Digest{digest("ada", "2026-11-23", 1, 20*time.Hour, true),
			digest("ada", "2026-11-24", 0, 0, false)}, nil, nil},
		{"permanent: the newest a day later, the rest given up", []domain.Digest{digest("ada", "2026-11-22", 1, 30*time.Hour, true),
			digest("ada", "2026-11-23", 1, 24*time.Hour, true), digest("ada", "2026-11-24", 0, 0, false)},
			[]string{"ada/2026-11-24"}, []string{"ada/2026-11-22", "ada/2026-11-23"}},
		{"given up after three days", []domain.Digest{digest("ada", "2026-11-20", 5, 24*time.Hour, false),
			digest("ada", "2026-11-21", 4, 24*time.Hour, false)}, []string{"ada/2026-11-21"}, []string{"ada/2026-11-20"}},
		{"users apart", []domain.Digest{digest("ada", "2026-11-23", 1, 2*time.Hour, true), digest("bob", "2026-11-23", 1, 2*time.Hour, false),
			digest("ada", "2026-11-24", 0, 0, false), digest("bob", "2026-11-24", 0, 0, false)},
			[]string{"bob/2026-11-23", "bob/2026-11-24"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := planSends(tt.unsent, now)
			var send, giveUp []string
			for _, d := range plan.send {
				send = append(send, d.User+"/"+d.Date)
			}
			for _, g := range plan.giveUp {
				giveUp = append(giveUp, g.digest.User+"/"+g.digest.Date)
				if g.why == "" {
					t.Errorf("%s given up without a reason", g.digest.Date)
				}
			}
			if !slices.Equal(send, tt.send) || !slices.Equal(giveUp, tt.giveUp) {
				t.Errorf("send %v, give up %v; want %v, %v", send, giveUp, tt.send, tt.giveUp)
			}
		})
	}
}
