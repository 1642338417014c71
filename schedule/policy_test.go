package schedule

import (
	"math/rand/v2"
	"testing"
	"time"

	"feeddigest/domain"
)

func TestNextAfterSuccess(t *testing.T) {
	now := at("2026-11-22T00:05:00Z")
	p := DefaultPolicy
	tests := []struct {
		name string
		o    Outcome
		want time.Duration
	}{
		{"floor of 15 minutes", Outcome{Class: Fresh, Entries: 3, New: 1}, 15 * time.Minute},
		{"304 also floors", Outcome{Class: Unchanged}, 15 * time.Minute},
		{"hint above floor", Outcome{Class: Unchanged, Hint: 3 * time.Hour, HintSource: "RSS ttl"}, 3 * time.Hour},
		{"hint below floor", Outcome{Class: Unchanged, Hint: time.Minute}, 15 * time.Minute},
		{"hint capped at 7 days", Outcome{Class: Unchanged, Hint: 365 * 24 * time.Hour}, 7 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := p.Next(domain.Schedule{ErrorCount: 3, FirstError: now.Add(-time.Hour), RetryPending: true}, tt.o, now, noSalt)
			if got := s.NextPoll.Sub(now); got != tt.want {
				t.Errorf("next poll in %v, want %v", got, tt.want)
			}
			if s.ErrorCount != 0 || !s.FirstError.IsZero() || s.RetryPending {
				t.Errorf("success must reset errors: %+v", s)
			}
		})
	}
}

func TestPenaltyBox(t *testing.T) {
	now := at("2026-11-22T00:05:00Z")
	p := DefaultPolicy
	tests := []struct {
		name   string
		o      Outcome
		errors int // consecutive errors before this one
		want   time.Duration
		retry  bool
	}{
		{"404 is 24 hours", Outcome{Class: NotFound, Status: 404}, 0, 24 * time.Hour, false},
		{"second 404 is longer", Outcome{Class: NotFound, Status: 404}, 1, 48 * time.Hour, false},
		{"5xx is 4 hours", Outcome{Class: ServerError, Status: 500}, 0, 4 * time.Hour, true},
		{"5xx doubles", Outcome{Class: ServerError, Status: 502}, 2, 16 * time.Hour, true},
		{"timeout is 1 hour", Outcome{Class: Transient}, 0, time.Hour, true},
		{"parse error doubles from 1 hour", Outcome{Class: Broken}, 3, 8 * time.Hour, false},
		{"never more than 7 days", Outcome{Class: NotFound, Status: 404}, 10, 7 * 24 * time.Hour, false},
		{"429 without Retry-After backs off", Outcome{Class: RateLimited, Status: 429}, 0, time.Hour, true},
		{"Retry-After seconds", Outcome{Class: RateLimited, Status: 429, RetryAfter: now.Add(2 * time.Hour)}, 0, 2 * time.Hour, true},
		{"Retry-After capped", Outcome{Class: RateLimited, Status: 503, RetryAfter: now.AddDate(1, 0, 0)}, 0, 7 * 24 * time.Hour, true},
		{"Retry-After in the past", Outcome{Class: RateLimited, Status: 503, RetryAfter: now.Add(-time.Hour)}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := domain.Schedule{ErrorCount: tt.errors}
			if tt.errors > 0 {
				prev.FirstError = now.Add(-time.Hour)
			}
			s := p.Next(prev, tt.o, now, noSalt)
			if got := s.NextPoll.Sub(now); got != tt.want {
				t.Errorf("next poll in %v, want %v", got, tt.want)
			}
			if s.ErrorCount != tt.errors+1 {
				t.Errorf("error count %d, want %d", s.ErrorCount, tt.errors+1)
			}
			if s.RetryPending != tt.retry {
				t.Errorf("retry pending %v, want %v", s.RetryPending, tt.retry)
			}
			if s.Reason == "" {
				t.Error("a penalty must say why")
			}
		})
	}
}

func TestGoneAndDead(t *testing.T) {
	now := at("2026-11-22T00:05:00Z")
	p := DefaultPolicy
	s := p.Next(domain.Schedule{}, Outcome{Class: Gone, Status: 410}, now, noSalt)
	if !s.GoneAt.Equal(now) {
		t.Errorf("410 must mark the feed gone: %+v", s)
	}
	s = p.Next(domain.Schedule{ErrorCount: 200, FirstError: now.AddDate(0, 0, -89)}, Outcome{Class: NotFound, Status: 404}, now, noSalt)
	if !s.DeadAt.IsZero() {
		t.Errorf("89 days of errors is not dead yet")
	}
	s = p.Next(domain.Schedule{ErrorCount: 200, FirstError: now.AddDate(0, 0, -90)}, Outcome{Class: NotFound, Status: 404}, now, noSalt)
	if !s.DeadAt.Equal(now) || s.RetryPending {
		t.Errorf("90 days of only errors must mark the feed dead: %+v", s)
	}
}

func TestSaltSpreadsDeadlines(t *testing.T) {
	now := at("2026-11-22T00:05:00Z")
	salt := RandomSalt(rand.New(rand.NewPCG(1, 2)))
	seen := map[time.Time]bool{}
	for range 20 {
		s := DefaultPolicy.Next(domain.Schedule{}, Outcome{Class: Unchanged}, now, salt)
		d := s.NextPoll.Sub(now)
		if d < 15*time.Minute || d > 15*time.Minute+15*time.Minute/4 {
			t.Fatalf("salted floor %v out of [15m, 18m45s]", d)
		}
		seen[s.NextPoll] = true
	}
	if len(seen) < 10 {
		t.Errorf("salt gave only %d distinct deadlines in 20 draws", len(seen))
	}
}

func TestOverflowHalvesAndGrowsBack(t *testing.T) {
	p := DefaultPolicy
	t0 := at("2026-11-22T00:05:00Z")
	// A day between polls and not one entry known: the window overflowed.
	s := p.Next(domain.Schedule{LastPoll: t0.Add(-24 * time.Hour)}, Outcome{Class: Fresh, Entries: 10, New: 10}, t0, noSalt)
	if s.OverflowGap != 12*time.Hour || !s.NextExtraPoll.Equal(t0.Add(12*time.Hour)) {
		t.Fatalf("after overflow: gap %v next %v, want 12h", s.OverflowGap, s.NextExtraPoll)
	}
	// Still overflowing 12 hours later: halve again.
	t1 := t0.Add(12 * time.Hour)
	s = p.Next(s, Outcome{Class: Fresh, Entries: 10, New: 10}, t1, noSalt)
	if s.OverflowGap != 6*time.Hour {
		t.Fatalf("second overflow: gap %v, want 6h", s.OverflowGap)
	}
	// Half or more new: keep the gap, do not grow back into a loss.
	t2 := t1.Add(6 * time.Hour)
	s = p.Next(s, Outcome{Class: Fresh, Entries: 10, New: 5}, t2, noSalt)
	if s.OverflowGap != 6*time.Hour {
		t.Fatalf("half new: gap %v, want 6h kept", s.OverflowGap)
	}
	// A subscriber's midnight an hour later finds few new: that says
	// nothing about the gap, which stays.
	t3 := t2.Add(time.Hour)
	s = p.Next(s, Outcome{Class: Fresh, Entries: 10, New: 1}, t3, noSalt)
	if s.OverflowGap != 6*time.Hour || !s.NextExtraPoll.Equal(t3.Add(6*time.Hour)) {
		t.Fatalf("early poll: gap %v next %v, want 6h from it", s.OverflowGap, s.NextExtraPoll)
	}
	// A whole gap later, fewer than half new: double.
	t4 := t3.Add(6 * time.Hour)
	s = p.Next(s, Outcome{Class: Fresh, Entries: 10, New: 2}, t4, noSalt)
	if s.OverflowGap != 12*time.Hour {
		t.Fatalf("few new: gap %v, want 12h", s.OverflowGap)
	}
	// Doubling back to a day ends the extra polls.
	s = p.Next(s, Outcome{Class: Unchanged}, t4.Add(12*time.Hour), noSalt)
	if s.OverflowGap != 0 || !s.NextExtraPoll.IsZero() {
		t.Fatalf("back to normal: gap %v", s.OverflowGap)
	}
	// Never below an hour.
	s = p.Next(domain.Schedule{LastPoll: t0.Add(-time.Hour)}, Outcome{Class: Fresh, Entries: 10, New: 10}, t0, noSalt)
	if s.OverflowGap != time.Hour {
		t.Fatalf("gap %v, want the 1h minimum", s.OverflowGap)
	}
	// A first poll, or a body with known entries, is not overflow.
	s = p.Next(domain.Schedule{}, Outcome{Class: Fresh, Entries: 10, New: 10, FirstPoll: true}, t0, noSalt)
	if s.OverflowGap != 0 {
		t.Fatalf("first poll flagged as overflow")
	}
	s = p.Next(domain.Schedule{LastPoll: t0.Add(-24 * time.Hour)}, Outcome{Class: Fresh, Entries: 10, New: 9}, t0, noSalt)
	if s.OverflowGap != 0 {
		t.Fatalf("a body with a known entry flagged as overflow")
	}
}

// noSalt is for tests that want exact deadlines.
func noSalt(time.Duration) time.Duration { return 0 }
