package pipeline

import (
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// A relay that stalls during a run that lives on: a stall before the end
// of the message's data (here at RCPT) is a passing failure, and the
// digest goes out once at the next try; a stall after the end of the data
// leaves the mail in doubt: it is never sent again, and the status, and
// the summary of each later run, say it may not have arrived.
func TestStalledRelayDuringALiveRun(t *testing.T) {
	for _, tt := range []struct {
		stage   smtptest.Stage
		inDoubt bool
	}{
		{smtptest.StallRcpt, false},
		{smtptest.StallAfterData, true},
	} {
		t.Run(string(tt.stage), func(t *testing.T) {
			forEachState(t, func(t *testing.T, state backend) {
				pub := feedtest.Start(t)
				pub.Add("/a", entry("a-1", "2026-11-21T10:00:00Z"))
				sink := smtptest.Start(t)
				cfg := mailConfig(t, state, sink, pub.URL+"/a")
				reached := sink.Stall(tt.stage)
				opts := Options{Now: at("2026-11-21T14:00:00Z"), SMTPTimeout: 500 * time.Millisecond}
				sum, err := Run(t.Context(), cfg, opts)
				if err != nil {
					t.Fatalf("a stalled relay failed the pass: %v", err)
				}
				select {
				case <-reached:
				default:
					t.Fatalf("the relay never saw %s", tt.stage)
				}
				if sum.EmailsSent != 0 || sum.SendFailures != boolCount(!tt.inDoubt) {
					t.Errorf("run with the relay stalled at %s: %+v", tt.stage, sum)
				}
				sink.Heal()
				for _, now := range []string{"2026-11-21T15:05:00Z", "2026-11-21T16:05:00Z"} {
					opts.Now = at(now)
					if sum, err = Run(t.Context(), cfg, opts); err != nil {
						t.Fatal(err)
					}
				}
				if got, want := len(sink.Messages()), boolCount(!tt.inDoubt); got != want {
					t.Errorf("the relay got %d messages after it healed, want %d", got, want)
				}
				rows, err := MailStatus(t.Context(), cfg, at("2026-11-21T16:05:00Z"))
				if err != nil {
					t.Fatal(err)
				}
				var interrupted []string
				for _, r := range rows {
					interrupted = append(interrupted, r.Interrupted...)
				}
				if got := len(interrupted) == 1 && interrupted[0] == "2026-11-21"; got != tt.inDoubt {
					t.Errorf("status: in doubt %v, want %v (%+v)", interrupted, tt.inDoubt, rows)
				}
				if got := len(sum.MailProblems) == 1; got != tt.inDoubt {
					t.Errorf("the last run's summary of mail problems: %q", sum.MailProblems)
				}
			})
		})
	}
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}
