//go:build linux

package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"feeddigest/domain"
)

// BenchmarkSaveNewPoll measures saving one poll of a feed whose 10
// entries are all new, as on BenchmarkRun2000Feeds' day 1 (e2e/): 2000
// feeds followed by 20 users, each entry with its fragments, the whole
// transaction (BeginPoll, SaveEntries, UpdateFeed, Commit). cpu-µs/poll
// is the process's CPU time (user and system) a poll, which a loaded
// machine changes less than the wall time:
//
//	go test -run '^$' -bench SaveNewPoll -count 6 ./sqlite/
func BenchmarkSaveNewPoll(b *testing.B) {
	s, feeds := benchState(b)
	para := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 6)
	body := `<p>` + para + `<a href="/posts/3">an earlier post</a>.</p><p><img src="img/3.png" alt="a figure"> ` + para + `</p><p><em>` + para + `</em></p>`
	now := t0.Add(time.Hour)
	cpu := processCPU()
	for i := 0; b.Loop(); i++ {
		f := feeds[i%len(feeds)]
		entries := make([]domain.Entry, 10)
		for n := range entries {
			key := fmt.Sprintf("urn:bench:%d:%d", i, n)
			entries[n] = domain.Entry{Key: key, Title: "Entry " + key, Link: "https://site.example/" + key,
				Content: body, Published: now.Add(-time.Duration(n) * time.Minute),
				Fragments: domain.Fragments{Rules: 1, Title: "Entry " + key, HTML: body, Excerpt: para[:200],
					Links: []string{"https://site.example/posts/3"}}}
		}
		tx, err := s.BeginPoll(ctx, f.ID)
		if err != nil {
			b.Fatal(err)
		}
		stats, err := tx.SaveEntries(ctx, entries, now, 50)
		if err != nil || stats.New != len(entries) {
			b.Fatalf("saved %+v, %v; want %d new", stats, err, len(entries))
		}
		f.LastPoll = now
		if err := tx.UpdateFeed(ctx, f); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/poll")
}

// benchState is a state of 2000 feeds followed by 20 users, as in
// BenchmarkRun2000Feeds (e2e/), and their records.
func benchState(b *testing.B) (*Store, []domain.Feed) {
	s, err := Open(ctx, filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	subs := map[string][]string{}
	for i := range 2000 {
		u := fmt.Sprintf("user%d", i%20)
		subs[u] = append(subs[u], fmt.Sprintf("https://site%d.example/feed", i))
	}
	if err := s.SyncSubscriptions(ctx, subs, t0); err != nil {
		b.Fatal(err)
	}
	feeds, err := s.Feeds(ctx)
	if err != nil || len(feeds) != 2000 {
		b.Fatalf("%d feeds, %v", len(feeds), err)
	}
	return s, feeds
}

// processCPU is this process's CPU time, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkUpdateFeeds measures saving 100 unchanged polls (a 304 each)
// together, as BenchmarkRun2000Feeds' day 2 does (e2e/): their records
// in one transaction (UpdateFeeds).
//
//	go test -run '^$' -bench UpdateFeeds -count 6 ./sqlite/
func BenchmarkUpdateFeeds(b *testing.B) {
	s, feeds := benchState(b)
	now := t0.Add(time.Hour)
	cpu := processCPU()
	for i := 0; b.Loop(); i++ {
		group := make([]domain.Feed, 100)
		for j := range group {
			f := feeds[(i*100+j)%len(feeds)]
			f.LastPoll, f.LastSuccess, f.NextPoll = now, now, now.Add(24*time.Hour)
			f.ETag, f.LastStatus, f.Polls = `"v1"`, 304, f.Polls+i
			group[j] = f
		}
		if err := s.UpdateFeeds(ctx, group); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N)/100, "cpu-µs/poll")
}

// BenchmarkSaveSlidingBody measures saving one poll of a busy feed whose
// body of 50 entries moved on by one: one new entry, 49 known, one no
// longer listed (which the save marks as having left the feed), the
// whole transaction, with 500 older entries of the feed stored.
//
//	go test -run '^$' -bench SaveSlidingBody -count 6 ./sqlite/
func BenchmarkSaveSlidingBody(b *testing.B) {
	s, feeds := benchState(b)
	f := feeds[0]
	const window, stored = 50, 500
	entry := func(n int) domain.Entry {
		key := fmt.Sprintf("urn:bench:%d", n)
		return domain.Entry{Key: key, Title: "Entry " + key, Link: "https://site.example/" + key,
			Content: "<p>text</p>", Published: t0.Add(time.Duration(n) * time.Minute)}
	}
	save := func(first int, now time.Time) {
		entries := make([]domain.Entry, window)
		for i := range entries {
			entries[i] = entry(first + window - 1 - i)
		}
		tx, err := s.BeginPoll(ctx, f.ID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.SaveEntries(ctx, entries, now, 10); err != nil {
			b.Fatal(err)
		}
		if err := tx.UpdateFeed(ctx, f); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	for first := 0; first < stored; first += window {
		save(first, t0)
	}
	cpu := processCPU()
	for i := 0; b.Loop(); i++ {
		save(stored+i, t0.Add(time.Duration(i)*time.Minute))
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/poll")
}
