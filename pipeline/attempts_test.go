package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/internal/feedtest"
	"feeddigest/store"
)

// markUnfinished leaves the mark a run dying in the poll of url leaves.
func markUnfinished(t *testing.T, statePath, url string, started time.Time) {
	t.Helper()
	st, err := openState(context.Background(), &config.Config{State: statePath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := st.Feed(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.BeginAttempt(context.Background(), f.ID, started); err != nil {
		t.Fatal(err)
	}
}

func recordAndMarks(t *testing.T, statePath, url string) (domain.Feed, []store.Attempt) {
	t.Helper()
	st, err := openState(context.Background(), &config.Config{State: statePath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := st.Feed(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	marks, err := st.UnfinishedAttempts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return f, marks
}

// One run that died while reading a feed proves nothing against it (a
// kill from outside cuts short whatever was being read): the next run
// reads it again, after the other feeds, and its entries are in that
// day's digest; no penalty, no problem named.
func TestFeedOfADeadRunIsReadAgainLast(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		pub.Add("/b", entry("b-1", "2026-11-20T10:00:00Z"))
		pub.Add("/c", entry("c-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a", pub.URL+"/b", pub.URL+"/c"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		// The next midnight's run dies while reading /b.
		markUnfinished(t, cfg.State, pub.URL+"/b", at("2026-11-22T00:05:00Z"))
		for _, f := range []string{"a", "b", "c"} {
			pub.Add("/"+f, entry(f+"-2", "2026-11-21T20:00:00Z"))
		}
		before := len(pub.Requests())
		sum := runAt(t, cfg, "2026-11-22T00:06:00Z")

		polled := pub.Requests()[before:]
		if len(polled) != 3 || !strings.Contains(polled[2], " /b ") {
			t.Errorf("requests %q, want /b read again last", polled)
		}
		b, marks := recordAndMarks(t, cfg.State, pub.URL+"/b")
		if b.LastError != "" || b.ErrorCount != 0 || b.Problem != "" {
			t.Errorf("feed /b blamed: error %q (count %d), problem %q", b.LastError, b.ErrorCount, b.Problem)
		}
		if len(marks) != 0 {
			t.Errorf("marks left after a completed run: %+v", marks)
		}
		if sum.Failed != 0 {
			t.Errorf("summary reports failures: %+v", sum.FeedErrors)
		}
		page := readFile(t, cfg.SiteDir+"/ada/2026-11-22.html")
		for _, id := range []string{"a-2", "b-2", "c-2"} {
			if !strings.Contains(page, "site.example/"+id) {
				t.Errorf("%s is not in that day's digest", id)
			}
		}
		if strings.Contains(page, "died") {
			t.Error("the digest names a problem")
		}
	})
}

// A feed a dead run was reading, read again alone and found unchanged
// (a 304, or a 200 whose validators say so: no body read, nothing to
// mark), is asked once. Its poll used to wait to be saved with the
// run's other unchanged polls, and until that save the pass still
// counted the feed unread and handed it out again: under load, one run
// asked such a feed seven times.
func TestFeedOfADeadRunFoundUnchangedIsAskedOnce(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		feeds := []string{"a", "b", "c", "d"}
		for _, f := range feeds {
			pub.Add("/"+f, entry(f+"-1", "2026-11-20T10:00:00Z"))
		}
		urls := make([]string, len(feeds))
		for i, f := range feeds {
			urls[i] = pub.URL + "/" + f
		}
		cfg := testConfig(t, state, oneUser(t, urls...), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		markUnfinished(t, cfg.State, pub.URL+"/b", at("2026-11-22T00:05:00Z"))
		pub.Add("/a", entry("a-2", "2026-11-21T20:00:00Z"))
		before := len(pub.Requests())
		runAt(t, cfg, "2026-11-22T00:06:00Z")

		polled := pub.Requests()[before:]
		var asked []string
		for _, r := range polled {
			if strings.Contains(r, " /b ") {
				asked = append(asked, r)
			}
		}
		if len(asked) != 1 || !strings.HasSuffix(asked[0], " 304") {
			t.Errorf("the feed a dead run was reading was asked %q, want once, answered 304 (all requests %q)", asked, polled)
		}
		if _, marks := recordAndMarks(t, cfg.State, pub.URL+"/b"); len(marks) != 0 {
			t.Errorf("marks left after a completed run: %+v", marks)
		}
	})
}

// A feed whose reading was cut short twice in a row (the second time
// read last and alone) is taken for the cause: it waits out a penalty,
// named in the digest, while the other feeds are read.
func TestFeedCutShortTwiceWaitsOutAPenalty(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		pub.Add("/b", entry("b-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a", pub.URL+"/b"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		// The next midnight's run dies while reading /b, and the run after
		// dies reading it again.
		markUnfinished(t, cfg.State, pub.URL+"/b", at("2026-11-22T00:05:00Z"))
		markUnfinished(t, cfg.State, pub.URL+"/b", at("2026-11-22T00:06:00Z"))
		pub.Add("/a", entry("a-2", "2026-11-21T20:00:00Z"))
		pub.Add("/b", entry("b-2", "2026-11-21T20:00:00Z"))
		before := len(pub.Requests())
		sum := runAt(t, cfg, "2026-11-22T00:07:00Z")

		polled := pub.Requests()[before:]
		if slices.ContainsFunc(polled, func(r string) bool { return strings.Contains(r, " /b ") }) {
			t.Errorf("the feed cut short twice was polled at once: %v", polled)
		}
		if !slices.ContainsFunc(polled, func(r string) bool { return strings.Contains(r, " /a ") }) {
			t.Errorf("the other feed was not polled: %v", polled)
		}
		b, marks := recordAndMarks(t, cfg.State, pub.URL+"/b")
		if !strings.Contains(b.LastError, ErrRunDied.Error()) || b.ErrorCount != 1 ||
			!b.NextPoll.After(at("2026-11-22T00:07:00Z")) || !strings.HasPrefix(b.Reason, "penalty") {
			t.Errorf("feed /b: error %q (count %d), next poll %v (%s); want a penalty for a dead run", b.LastError, b.ErrorCount, b.NextPoll, b.Reason)
		}
		if len(marks) != 0 {
			t.Errorf("marks left after a completed run: %+v", marks)
		}
		if sum.Failed != 1 || !slices.ContainsFunc(sum.FeedErrors, func(e string) bool { return strings.Contains(e, ErrRunDied.Error()) }) {
			t.Errorf("summary does not report it: %+v", sum)
		}
		page := readFile(t, cfg.SiteDir+"/ada/2026-11-22.html")
		if !strings.Contains(page, "site.example/a-2") {
			t.Error("the other feed's entry is not in the digest")
		}
		if status := readFile(t, cfg.SiteDir+"/status.html"); !strings.Contains(status, "died while reading this feed") {
			t.Error("status.html does not say why /b is missing")
		}

		// After the penalty, at the next midnight, it is read again.
		runAt(t, cfg, "2026-11-23T00:05:00Z")
		if got := delivered(t, cfg, "ada")["b-2"]; got != 1 {
			t.Errorf("b-2 delivered %d times after the penalty, want 1", got)
		}
		if b, _ := recordAndMarks(t, cfg.State, pub.URL+"/b"); b.LastError != "" {
			t.Errorf("still failed: %q", b.LastError)
		}
	})
}

// A pass interrupted on purpose (SIGINT, SIGTERM) stops listening: the
// polls it abandoned, even one whose body it was reading (its mark
// committed), did not fail, and the next run makes them at once. The
// interruption comes as the body is about to be read (testHookReading,
// a variable of the package: the test runs beside no other).
func TestInterruptedPassLeavesNoMarks(t *testing.T) {
	forEachStateInTurn(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/x", entry("x-1", "2026-11-21T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/x"), "")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		reading := false
		testHookReading = func(string) {
			reading = true
			cancel()
		}
		t.Cleanup(func() { testHookReading = nil })
		_, err := Run(ctx, cfg, Options{Now: at("2026-11-21T12:00:00Z")})
		if !errors.Is(err, context.Canceled) || !reading {
			t.Fatalf("Run = %v (interrupted reading the body: %v), want interrupted as it read", err, reading)
		}
		x, marks := recordAndMarks(t, cfg.State, pub.URL+"/x")
		if len(marks) != 0 {
			t.Errorf("an interrupted pass left marks: %+v", marks)
		}
		if x.ErrorCount != 0 || x.LastError != "" || x.Polls != 0 {
			t.Errorf("an abandoned poll was recorded: error %q, polls %d", x.LastError, x.Polls)
		}
	})
}
