package pipeline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/parse"
	"feeddigest/store"
	"feeddigest/store/local"
)

// countingStore counts the transactions a pass's saves take.
type countingStore struct {
	store.Store
	polls   int   // BeginPoll
	grouped []int // the records of each UpdateFeeds
}

func (c *countingStore) BeginPoll(ctx context.Context, feedID int64) (store.PollTx, error) {
	c.polls++
	return c.Store.BeginPoll(ctx, feedID)
}

func (c *countingStore) UpdateFeeds(ctx context.Context, feeds []domain.Feed) error {
	c.grouped = append(c.grouped, len(feeds))
	return c.Store.UpdateFeeds(ctx, feeds)
}

// The polls that found their feed unchanged and set no attempt mark
// (304s) are saved saveGroupSize to a transaction; a poll with entries, one
// that read a body, or a failure (its back-off must survive a crash), in
// its own, at once. Every record is written all the same.
func TestUnchangedPollsAreSavedTogether(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	st := freshSQLite(t)
	const n = 2*saveGroupSize + 50
	var urls []string
	for i := range n + 2 {
		urls = append(urls, fmt.Sprintf("https://h%d.example/feed", i))
	}
	if err := st.SyncSubscriptions(ctx, map[string][]string{"ada": urls}, now); err != nil {
		t.Fatal(err)
	}
	feeds, err := st.Feeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingStore{Store: st}
	opts := Options{Now: now}
	opts.defaults()
	p := &pass{cfg: &config.Config{}, opts: opts, st: local.New(counting), rd: counting, sum: &Summary{}}
	w := newWorker(p, store.Pass{Feeds: len(feeds)}, nil)
	for i, f := range feeds {
		r := polled{feed: f, why: "due", res: fetch.Result{Outcome: fetch.OutcomeUnchanged, Status: 304, Requests: 1}}
		switch i {
		case 0: // read a body (its mark set), unchanged
			r.res.Status, r.marked = 200, true
		case 1: // entries
			r.res = fetch.Result{Outcome: fetch.OutcomeFresh, Status: 200, Requests: 1,
				Feed: &parse.Feed{Entries: []domain.Entry{{Key: "id:1", Title: "One"}}}}
		case 2: // failed before any body: its back-off is not kept waiting
			r.res = fetch.Result{Outcome: fetch.OutcomeHTTPError, Status: 503, Requests: 1, Err: fmt.Errorf("HTTP 503")}
		}
		if err := w.savePoll(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	err = w.saveGroup(ctx)
	done := w.done
	if err != nil {
		t.Fatal(err)
	}
	if done != len(feeds) || p.sum.FeedsPolled != len(feeds) || p.sum.Unchanged != n || p.sum.Fresh != 1 || p.sum.Failed != 1 {
		t.Errorf("saved %d, summary %+v, want %d polled, %d unchanged, 1 fresh, 1 failed", done, *p.sum, len(feeds), n)
	}
	if counting.polls != 3 || fmt.Sprint(counting.grouped) != fmt.Sprint([]int{saveGroupSize, saveGroupSize, 49}) {
		t.Errorf("%d polls saved alone, groups %v; want 3, and groups of %d, %d and 49", counting.polls, counting.grouped, saveGroupSize, saveGroupSize)
	}
	after, err := st.Feeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range after {
		if !f.LastPoll.Equal(now) {
			t.Errorf("%s: last poll %v, want %v", f.URL, f.LastPoll, now)
		}
	}
}
