package local_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/sqlite"
	"feeddigest/store"
	"feeddigest/store/local"
)

// BenchmarkNextWork measures a worker's look for work in the middle of
// a pass of 2000 feeds on 200 hosts, every host claimed and half of each
// host's feeds saved: what a day of 304s asks again and again while its
// last hosts are polled.
//
//	go test -run '^$' -bench NextWork ./store/local/
func BenchmarkNextWork(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	now := time.Date(2026, 11, 21, 6, 10, 0, 0, time.UTC)
	var urls []string
	for i := range 2000 {
		urls = append(urls, fmt.Sprintf("https://h%d.example/feed/%d", i%200, i/200))
	}
	if err := s.SyncSubscriptions(ctx, map[string][]string{"ada": urls}, now); err != nil {
		b.Fatal(err)
	}
	c := local.New(s)
	pass, _, err := c.JoinPass(ctx, now.Truncate(time.Hour), now, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	feeds, err := c.FeedsToPlan(ctx, nil, now)
	if err != nil {
		b.Fatal(err)
	}
	plan := store.PassPlan{Hour: pass.Hour, Now: now}
	for _, f := range feeds {
		u, err := url.Parse(f.URL)
		if err != nil {
			b.Fatal(err)
		}
		plan.Feeds = append(plan.Feeds, store.PlannedPoll{FeedID: f.ID, Host: u.Host, Why: "due"})
	}
	if pass, err = c.PlanPass(ctx, plan); err != nil {
		b.Fatal(err)
	}
	var saved []domain.Feed
	for range 200 {
		w, err := c.NextWork(ctx, pass)
		if err != nil || len(w.Feeds) != 10 {
			b.Fatalf("claimed %d feeds, %v; want a host of 10", len(w.Feeds), err)
		}
		for _, f := range w.Feeds[:5] {
			saved = append(saved, f.Feed)
		}
	}
	if err := c.UpdateFeeds(ctx, saved); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.NextWork(ctx, pass); !errors.Is(err, store.ErrNoWorkYet) {
			b.Fatalf("NextWork: %v, want store.ErrNoWorkYet", err)
		}
	}
}
