package pipeline

import (
	"context"
	"testing"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/internal/feedtest"
)

// A feed taken for the cause of two dead runs keeps what was learned of
// its server: a server known to ignore conditional requests is still
// known to after the penalty is recorded, not asked as if it honoured
// them.
func TestFeedCutShortTwiceKeepsItsServersMarks(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/b", entry("b-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/b"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		markIgnoresConditional(t, cfg.State, pub.URL+"/b")
		markUnfinished(t, cfg.State, pub.URL+"/b", at("2026-11-22T00:05:00Z"))
		markUnfinished(t, cfg.State, pub.URL+"/b", at("2026-11-22T00:06:00Z"))
		runAt(t, cfg, "2026-11-22T00:07:00Z")

		b, _ := recordAndMarks(t, cfg.State, pub.URL+"/b")
		if b.ErrorCount != 1 {
			t.Fatalf("feed /b: error count %d (%q), want the dead runs recorded once", b.ErrorCount, b.LastError)
		}
		if !b.IgnoresConditional || !b.Answers304 || !b.RefusesHEAD {
			t.Errorf("feed /b after the penalty: ignores conditional %v, answers 304 %v, refuses HEAD %v; want all kept",
				b.IgnoresConditional, b.Answers304, b.RefusesHEAD)
		}
	})
}

// markIgnoresConditional records that the server of the feed at url
// ignores conditional requests, answers 304 and refuses HEAD, as polls
// would have learned.
func markIgnoresConditional(t *testing.T, statePath, url string) {
	t.Helper()
	editFeedRecord(t, statePath, url, func(f *domain.Feed) {
		f.IgnoresConditional, f.Answers304, f.RefusesHEAD = true, true, true
	})
}

// editFeedRecord changes the record of the feed at url, in the state at
// statePath, by edit.
func editFeedRecord(t *testing.T, statePath, url string, edit func(*domain.Feed)) {
	t.Helper()
	ctx := context.Background()
	st, err := openState(ctx, &config.Config{State: statePath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := st.Feed(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	edit(&f)
	if err := st.UpdateFeeds(ctx, []domain.Feed{f}); err != nil {
		t.Fatal(err)
	}
}
