package store

import (
	"testing"
	"time"
)

// A digest records the user's feeds that could not be read since the
// previous digest: failing now, gone or dead since, or failed in between
// and read again since; not a feed that failed (or went) before the
// previous digest, nor another user's.
func TestDigestRecordsFeedsThatCouldNotBeRead(t *testing.T) {
	s, _ := openTemp(t)
	urls := []string{"https://ok.example/feed", "https://failing.example/feed", "https://recovered.example/feed",
		"https://long-ago.example/feed", "https://gone.example/feed", "https://dead.example/feed", "https://gone-before.example/feed"}
	feeds := subscribe(t, s, map[string][]string{"ada": urls, "bob": {"https://bob.example/feed"}}, t0)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(24 * time.Hour)
	set := func(url string, change func(*Feed)) {
		t.Helper()
		f := feeds[url]
		change(&f)
		if _, err := s.SavePoll(ctx, f.ID, nil, now, func(SaveStats) Feed { return f }); err != nil {
			t.Fatal(err)
		}
	}
	since := t0.Add(-48 * time.Hour)
	went := t0.Add(2 * time.Hour) // since the previous digest
	set("https://failing.example/feed", func(f *Feed) {
		f.ErrorCount, f.FirstError, f.Problem, f.ProblemAt, f.ProblemSince = 3, since, "not found (404)", now, since
	})
	set("https://recovered.example/feed", func(f *Feed) {
		f.Problem, f.ProblemAt, f.ProblemSince, f.LastSuccess = "timed out", t0.Add(time.Hour), t0.Add(time.Hour), t0.Add(5*time.Hour)
	})
	set("https://long-ago.example/feed", func(f *Feed) {
		f.Problem, f.ProblemAt, f.ProblemSince, f.LastSuccess = "timed out", t0, t0, t0.Add(time.Hour)
	})
	set("https://gone.example/feed", func(f *Feed) {
		f.GoneAt, f.Problem, f.ProblemAt, f.ProblemSince = went, "gone (410)", went, since
	})
	set("https://dead.example/feed", func(f *Feed) { f.DeadAt, f.FirstError, f.ErrorCount = went, since.AddDate(0, 0, -90), 400 })
	set("https://gone-before.example/feed", func(f *Feed) { f.GoneAt, f.ErrorCount = t0.Add(-time.Hour), 1 })
	set("https://bob.example/feed", func(f *Feed) { f.ErrorCount, f.Problem, f.ProblemAt = 1, "timed out", now })

	d, err := s.BuildDigest(ctx, "ada", "2026-11-22", now, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{FeedURL: "https://dead.example/feed", State: ProblemDead, Since: since.AddDate(0, 0, -90)},
		{FeedURL: "https://failing.example/feed", State: ProblemFailing, Reason: "not found (404)", Since: since},
		{FeedURL: "https://gone.example/feed", State: ProblemGone, Reason: "gone (410)", Since: since},
		{FeedURL: "https://recovered.example/feed", State: ProblemRecovered, Reason: "timed out", Since: t0.Add(time.Hour), Until: t0.Add(5 * time.Hour)},
	}
	check := func(what string, got []Problem) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %+v, want %+v", what, got, want)
		}
		for i := range want {
			if got[i].FeedURL != want[i].FeedURL || got[i].State != want[i].State || got[i].Reason != want[i].Reason ||
				!got[i].Since.Equal(want[i].Since) || !got[i].Until.Equal(want[i].Until) {
				t.Errorf("%s %d: %+v, want %+v", what, i, got[i], want[i])
			}
		}
	}
	check("built", d.Problems)
	// The record stays as built, whatever the feeds do next.
	set("https://failing.example/feed", func(f *Feed) { f.ErrorCount, f.FirstError = 0, time.Time{} })
	stored, err := s.Digests(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	check("stored", stored[0].Problems)
	if len(stored[1].Problems) != 0 {
		t.Errorf("the first digest records %+v", stored[1].Problems)
	}
	// The feeds that went for good are told of once.
	next, err := s.BuildDigest(ctx, "ada", "2026-11-23", now.Add(24*time.Hour), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Problems) != 0 {
		t.Errorf("the next digest records %+v", next.Problems)
	}
}
