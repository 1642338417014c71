package postgres

import (
	"errors"
	"slices"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

var hour = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// sharedState is a database with ada following two feeds on host a and
// bob one on host b, and the plan of a pass polling all three.
func sharedState(t *testing.T) (url string, plan store.PassPlan) {
	t.Helper()
	url = migrated.NewDatabase(t)
	s := open(t, url)
	subs := map[string][]string{"ada": {"https://a.example/1", "https://a.example/2"}, "bob": {"https://b.example/1"}}
	if err := s.SyncSubscriptions(ctx, subs, hour); err != nil {
		t.Fatal(err)
	}
	feeds, err := s.Feeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan = store.PassPlan{Hour: hour, Now: hour.Add(2 * time.Second),
		Digests: []store.DigestKey{{User: "ada", Date: "2026-11-21"}, {User: "bob", Date: "2026-11-21"}}}
	for _, f := range feeds {
		host := "a.example"
		if f.URL == "https://b.example/1" {
			host = "b.example"
		}
		plan.Feeds = append(plan.Feeds, store.PlannedPoll{FeedID: f.ID, Host: host, Why: "scheduled"})
	}
	s.Close()
	return url, plan
}

func next(t *testing.T, s *Store, p store.Pass) store.Work {
	t.Helper()
	w, err := s.NextWork(ctx, p)
	if err != nil {
		t.Fatalf("NextWork: %v", err)
	}
	return w
}

// savePassPoll saves a poll of each feed of a claimed host, as the
// pipeline does.
func savePassPoll(s *Store, w store.Work, f domain.Feed) error {
	tx, err := s.BeginPassPoll(ctx, w, f.ID)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	f.LastPoll = w.Pass.Now
	if err := tx.UpdateFeed(ctx, f); err != nil {
		return err
	}
	return tx.Commit()
}

func pollAll(t *testing.T, s *Store, w store.Work) {
	t.Helper()
	for _, cf := range w.Feeds {
		if err := savePassPoll(s, w, cf.Feed); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishWork(ctx, w); err != nil {
		t.Fatal(err)
	}
}

// Two runs of one hour: one plans while the other waits, then both work
// from the one plan. Each host is claimed by one run; a digest only once
// its user's feeds are polled; the end once everything else is done.
func TestPassIsPlannedOnceAndShared(t *testing.T) {
	url, plan := sharedState(t)
	a, b := open(t, url), open(t, url)
	pa, planning, err := a.JoinPass(ctx, hour, plan.Now, time.Minute)
	if err != nil || !planning {
		t.Fatalf("first run: planning %v, %v", planning, err)
	}
	joined := make(chan store.Pass)
	go func() {
		p, planning, err := b.JoinPass(ctx, hour, hour.Add(40*time.Second), time.Minute)
		if err != nil || planning {
			t.Errorf("second run: planning %v, %v", planning, err)
		}
		joined <- p
	}()
	select {
	case <-joined:
		t.Fatal("the second run joined before the plan was made")
	case <-time.After(300 * time.Millisecond):
	}
	pa, err = a.PlanPass(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	pb := <-joined
	if pb.ID != pa.ID || !pb.Now.Equal(plan.Now) || pb.Feeds != 3 || pb.Digests != 2 || pb.Hosts != 2 || pa.Hosts != 2 {
		t.Fatalf("joined %+v, planned %+v", pb, pa)
	}

	wa, wb := next(t, a, pa), next(t, b, pb)
	if wa.Kind != store.WorkHost || wb.Kind != store.WorkHost || wa.Host == wb.Host {
		t.Fatalf("claims %s %s and %s %s: want two hosts, one each", wa.Kind, wa.Host, wb.Kind, wb.Host)
	}
	hostA, hostB := wa, wb
	if wa.Host != "a.example" {
		hostA, hostB = wb, wa
	}
	runOf := map[string]*Store{wa.Host: a, wb.Host: b}
	if len(hostA.Feeds) != 2 || len(hostB.Feeds) != 1 {
		t.Fatalf("feeds of the hosts: %d and %d", len(hostA.Feeds), len(hostB.Feeds))
	}
	if _, err := a.NextWork(ctx, pa); !errors.Is(err, store.ErrNoWorkYet) || errors.Is(err, store.ErrPassEnding) {
		t.Fatalf("with both hosts claimed and no digest ready: %v, want ErrNoWorkYet, not the end", err)
	}
	pollAll(t, runOf["b.example"], hostB)
	w := next(t, runOf["b.example"], pb)
	if w.Kind != store.WorkDigest || w.Digest.User != "bob" {
		t.Fatalf("after b's host: %+v, want bob's digest (ada's waits for host a)", w)
	}
	if err := runOf["b.example"].FinishWork(ctx, w); err != nil {
		t.Fatal(err)
	}
	if _, err := runOf["b.example"].NextWork(ctx, pb); !errors.Is(err, store.ErrNoWorkYet) {
		t.Fatalf("ada's digest was offered before her feeds were polled: %v", err)
	}
	pollAll(t, runOf["a.example"], hostA)
	w = next(t, b, pb)
	if w.Kind != store.WorkDigest || w.Digest.User != "ada" {
		t.Fatalf("after host a: %+v, want ada's digest", w)
	}
	if err := b.FinishWork(ctx, w); err != nil {
		t.Fatal(err)
	}
	end := next(t, a, pa)
	if end.Kind != store.WorkEnd {
		t.Fatalf("last: %+v, want the end", end)
	}
	if _, err := b.NextWork(ctx, pb); !errors.Is(err, store.ErrNoWorkYet) || !errors.Is(err, store.ErrPassEnding) {
		t.Fatalf("while the end is a's: %v, want ErrPassEnding, an ErrNoWorkYet", err)
	}
	if err := a.FinishWork(ctx, end); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{a, b} {
		if _, err := s.NextWork(ctx, pa); !errors.Is(err, store.ErrPassDone) {
			t.Errorf("after the end: %v, want ErrPassDone", err)
		}
	}
	// A later run of the same hour plans a pass of its own.
	if _, planning, err := b.JoinPass(ctx, hour, hour.Add(30*time.Minute), time.Minute); err != nil || !planning {
		t.Errorf("a run after the pass ended: planning %v, %v", planning, err)
	}
	b.AbandonPlan()
}

// die stops a run as a kill would: no more lease renewals, no goodbye.
// Its closed pool is not handed over by the Close of the test's cleanup,
// to be taken by the next test on the database.
func die(s *Store) {
	s.stopHeartbeat()
	s.stopHeartbeat = nil
	s.pool.Close()
	s.closeOnce.Do(func() {})
}

// The host of a run that died is taken over once its lease lapses; the
// feed whose body it was reading is not read again but counted failed.
func TestDeadRunsHostIsTakenOver(t *testing.T) {
	t.Parallel() // beside the other tests, while it waits for a lease to lapse
	url, plan := sharedState(t)
	a, b := open(t, url), open(t, url)
	const lease = time.Second
	_, _, err := a.JoinPass(ctx, hour, plan.Now, lease)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := a.PlanPass(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	wa := next(t, a, pa)
	if wa.Host != "a.example" {
		t.Fatalf("first claim %+v, want host a, first in the plan", wa)
	}
	reading := wa.Feeds[0].Feed
	if err := a.BeginAttempt(ctx, reading.ID, pa.Now); err != nil {
		t.Fatal(err)
	}
	die(a)
	pb, _, err := b.JoinPass(ctx, hour, hour.Add(time.Minute), lease)
	if err != nil || pb.ID != pa.ID {
		t.Fatalf("joined pass %d (%v), want %d", pb.ID, err, pa.ID)
	}
	died := time.Now()
	var wb store.Work
	for {
		wb, err = b.NextWork(ctx, pb)
		if err == nil && wb.Host == "a.example" {
			break
		}
		switch {
		case err == nil && wb.Kind == store.WorkHost:
			pollAll(t, b, wb) // the free host first
		case err == nil && wb.Kind == store.WorkDigest && wb.Digest.User == "bob":
			b.FinishWork(ctx, wb)
		case !errors.Is(err, store.ErrNoWorkYet) || time.Since(died) > 10*lease:
			t.Fatalf("waiting for the dead run's host: %+v %v", wb, err)
		default:
			time.Sleep(50 * time.Millisecond)
		}
	}
	if waited := time.Since(died); waited < lease/2 {
		t.Errorf("the host was taken over %v after the death, before the lease could lapse", waited)
	}
	if wb.Host != "a.example" || len(wb.Unfinished) != 1 || wb.Unfinished[0].Feed.ID != reading.ID || len(wb.Feeds) != 1 {
		t.Fatalf("taken over: %+v", wb)
	}
	if err := savePassPoll(b, wb, wb.Unfinished[0].Feed); err != nil {
		t.Fatal(err)
	}
	pollAll(t, b, wb)
	if left, err := b.UnfinishedAttempts(ctx); err != nil || len(left) != 0 {
		t.Errorf("marks left: %+v (%v)", left, err)
	}
}

// A run whose lease lapsed while it was still at work (stalled, cut off
// from the database) finds its host taken over: its late save is refused,
// so no poll is saved twice.
func TestLateSaveOfALapsedClaimIsRefused(t *testing.T) {
	t.Parallel() // beside the other tests, while it waits for a lease to lapse
	s := stallWhileClaiming(t)
	a, wa := s.a, s.wa
	if err := savePassPoll(a, wa, wa.Feeds[0].Feed); !errors.Is(err, store.ErrClaimLost) {
		t.Errorf("the late save: %v, want ErrClaimLost", err)
	}
	if err := a.FinishWork(ctx, wa); !errors.Is(err, store.ErrClaimLost) {
		t.Errorf("finishing the lost host: %v, want ErrClaimLost", err)
	}
}

// The planner reads the records of the due users' feeds and of the feeds
// whose retry or extra poll has come, and no other.
func TestFeedsToPlan(t *testing.T) {
	s := open(t, migrated.NewDatabase(t))
	now := hour.Add(5 * time.Minute)
	urls := []string{"https://a.example/due", "https://a.example/retry", "https://a.example/extra",
		"https://a.example/extra-later", "https://a.example/extra-unset", "https://a.example/other"}
	if err := s.SyncSubscriptions(ctx, map[string][]string{"ada": urls}, hour); err != nil {
		t.Fatal(err)
	}
	feeds, err := s.Feeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range feeds {
		f.LastPoll = hour.Add(-time.Hour)
		switch f.URL {
		case "https://a.example/retry":
			f.RetryPending = true
		case "https://a.example/extra":
			f.OverflowGap, f.NextExtraPoll = time.Hour, now
		case "https://a.example/extra-later":
			f.OverflowGap, f.NextExtraPoll = time.Hour, now.Add(time.Second)
		case "https://a.example/extra-unset":
			f.OverflowGap = time.Hour
		}
		tx, err := s.BeginPoll(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.UpdateFeed(ctx, f); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.FeedsToPlan(ctx, []string{"https://a.example/due", "https://a.example/unknown"}, now)
	if err != nil {
		t.Fatal(err)
	}
	var gotURLs []string
	for _, f := range got {
		gotURLs = append(gotURLs, f.URL)
	}
	want := []string{"https://a.example/due", "https://a.example/extra", "https://a.example/extra-unset", "https://a.example/retry"}
	if !slices.Equal(gotURLs, want) {
		t.Errorf("feeds to plan %q, want %q", gotURLs, want)
	}
	if got[3].LastPoll.IsZero() || !got[3].RetryPending {
		t.Errorf("the retried feed's record: %+v", got[3])
	}
}

// A run whose lease lapsed may still be saving entries when the run that
// took its host over saves the same ones. The late save must be refused
// as a lost claim before it writes anything, not fail on the entry the
// other transaction holds (an insert racing an uncommitted insert of the
// same row finds neither a new row nor, in its snapshot, the old one).
func TestLateSaveRacingTheTakersSaveIsALostClaim(t *testing.T) {
	t.Parallel() // beside the other tests, while it waits for a lease to lapse
	s := stallWhileClaiming(t)
	a, b, pa, wa, pb, wb := s.a, s.b, s.pa, s.wa, s.pb, s.wb
	feed := wb.Feeds[0].Feed
	entries := []domain.Entry{{Key: "id:p-0", Title: "Post 0", Link: "https://a.example/p/0"}}

	taker, err := b.BeginPassPoll(ctx, wb, feed.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer taker.Rollback()
	if _, err := taker.SaveEntries(ctx, entries, pb.Now, len(entries)); err != nil {
		t.Fatal(err)
	}
	late := make(chan error, 1)
	go func() {
		tx, err := a.BeginPassPoll(ctx, wa, feed.ID)
		if err == nil {
			defer tx.Rollback()
			_, err = tx.SaveEntries(ctx, entries, pa.Now, len(entries))
		}
		late <- err
	}()
	// Let the late save run into the taker's uncommitted row, if it writes
	// at all, before the taker commits.
	waitUntilBlockedOrDone(t, a, late)
	feed.LastPoll = pb.Now
	if err := taker.UpdateFeed(ctx, feed); err != nil {
		t.Fatal(err)
	}
	if err := taker.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-late; !errors.Is(err, store.ErrClaimLost) {
		t.Errorf("the late save beside the taker's: %v, want ErrClaimLost", err)
	}
}

// waitForHost claims work of the pass until it gets the host named.
func waitForHost(t *testing.T, s *Store, p store.Pass, host string, within time.Duration) store.Work {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		w, err := s.NextWork(ctx, p)
		if err == nil && w.Host == host {
			return w
		}
		if err != nil && !errors.Is(err, store.ErrNoWorkYet) || time.Now().After(deadline) {
			t.Fatalf("waiting for host %s: %+v %v", host, w, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitUntilBlockedOrDone waits until done has a value (put back) or a
// session of the database waits on a lock.
func waitUntilBlockedOrDone(t *testing.T, s *Store, done chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			done <- err
			return
		default:
		}
		var waiting int
		err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the late save neither ended nor waited on a lock")
}

// stalled is a host claimed by run a, whose lease lapsed (no renewals,
// still connected), then taken over by run b.
type stalled struct {
	a, b   *Store
	pa, pb store.Pass
	wa, wb store.Work
}

func stallWhileClaiming(t *testing.T) stalled {
	t.Helper()
	url, plan := sharedState(t)
	s := stalled{a: open(t, url), b: open(t, url)}
	const lease = time.Second
	if _, _, err := s.a.JoinPass(ctx, hour, plan.Now, lease); err != nil {
		t.Fatal(err)
	}
	var err error
	if s.pa, err = s.a.PlanPass(ctx, plan); err != nil {
		t.Fatal(err)
	}
	s.wa = next(t, s.a, s.pa)
	s.a.stopHeartbeat()
	s.a.stopHeartbeat = nil
	if s.pb, _, err = s.b.JoinPass(ctx, hour, plan.Now, lease); err != nil {
		t.Fatal(err)
	}
	s.wb = waitForHost(t, s.b, s.pb, s.wa.Host, 10*lease)
	return s
}
