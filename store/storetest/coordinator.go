package storetest

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// NewCoordinator makes a fresh, empty coordinated state for one test,
// closed when the test ends.
type NewCoordinator func(t *testing.T) store.Coordinator

// RunCoordinator runs the behaviour tests of the Coordinator contract
// against states made by newCoordinator: the work items of a pass, as
// one run claims them (PostgreSQL's coordinator, shared by runs, and the
// in-process one of a state that one run holds keep the same rules). The
// tests run in parallel, each on a state of its own.
func RunCoordinator(t *testing.T, newCoordinator NewCoordinator) {
	tests := []struct {
		name string
		run  func(*testing.T, store.Coordinator)
	}{
		{"PassWorkComesHostsDigestsEnd", testPassWorkComesHostsDigestsEnd},
		{"DigestWaitsForItsUsersFeeds", testDigestWaitsForItsUsersFeeds},
		{"ReleasedHostIsClaimedAgain", testReleasedHostIsClaimedAgain},
		{"UnfinishedPollsComeApart", testUnfinishedPollsComeApart},
		{"FeedsToPlanHasTheFeedsAsked", testFeedsToPlanHasTheFeedsAsked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, newCoordinator(t))
		})
	}
}

var passHour = time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)

// planned subscribes users to feeds and plans a pass polling every feed
// (in the order of feeds, each on the host its URL names) and building
// each user's digest.
func planned(t *testing.T, co store.Coordinator, subs map[string][]string, feeds ...string) (store.Pass, map[string]domain.Feed) {
	t.Helper()
	ctx := context.Background()
	if err := co.SyncSubscriptions(ctx, subs, passHour); err != nil {
		t.Fatal(err)
	}
	ps, planning, err := co.JoinPass(ctx, passHour, passHour, time.Minute)
	if err != nil || !planning {
		t.Fatalf("JoinPass = %+v, %v, %v; want this run to plan", ps, planning, err)
	}
	records, err := co.FeedsToPlan(ctx, feeds, passHour)
	if err != nil {
		t.Fatal(err)
	}
	byURL := map[string]domain.Feed{}
	for _, f := range records {
		byURL[f.URL] = f
	}
	plan := store.PassPlan{Hour: passHour, Now: passHour}
	for _, feedURL := range feeds {
		plan.Feeds = append(plan.Feeds, store.PlannedPoll{FeedID: byURL[feedURL].ID, Host: hostOfURL(t, feedURL), Why: "due"})
	}
	users := make([]string, 0, len(subs))
	for user := range subs {
		users = append(users, user)
	}
	slices.Sort(users)
	for _, user := range users {
		plan.Digests = append(plan.Digests, store.DigestKey{User: user, Date: "2026-11-22"})
	}
	ps, err = co.PlanPass(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]bool{}
	for _, pp := range plan.Feeds {
		hosts[pp.Host] = true
	}
	if ps.Feeds != len(feeds) || ps.Digests != len(users) || ps.Hosts != len(hosts) {
		t.Fatalf("planned %+v, want %d feeds, %d digests and %d hosts", ps, len(feeds), len(users), len(hosts))
	}
	return ps, byURL
}

// hostOfURL is the host a URL names.
func hostOfURL(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// next claims the next work, failing the test on any error.
func next(t *testing.T, co store.Coordinator, ps store.Pass) store.Work {
	t.Helper()
	w, err := co.NextWork(context.Background(), ps)
	if err != nil {
		t.Fatalf("NextWork: %v", err)
	}
	return w
}

// noWorkYet checks that nothing is free now.
func noWorkYet(t *testing.T, co store.Coordinator, ps store.Pass) {
	t.Helper()
	if w, err := co.NextWork(context.Background(), ps); !errors.Is(err, store.ErrNoWorkYet) {
		t.Fatalf("NextWork = %+v, %v; want ErrNoWorkYet", w, err)
	}
}

// savePassPoll saves an unchanged poll of f under the claim w.
func savePassPoll(t *testing.T, co store.Coordinator, w store.Work, f domain.Feed) {
	t.Helper()
	ctx := context.Background()
	tx, err := co.BeginPassPoll(ctx, w, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.SaveEntries(ctx, nil, passHour, 0); err != nil {
		t.Fatal(err)
	}
	f.LastPoll = passHour
	if err := tx.UpdateFeed(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// pollHost saves the polls of every feed of a claimed host, and finishes it.
func pollHost(t *testing.T, co store.Coordinator, w store.Work) {
	t.Helper()
	for _, cf := range w.Feeds {
		savePassPoll(t, co, w, cf.Feed)
	}
	for _, a := range w.Unfinished {
		savePassPoll(t, co, w, a.Feed)
	}
	finish(t, co, w)
}

func finish(t *testing.T, co store.Coordinator, w store.Work) {
	t.Helper()
	if err := co.FinishWork(context.Background(), w); err != nil {
		t.Fatalf("FinishWork(%s): %v", w.Kind, err)
	}
}

func urlsOf(feeds []store.ClaimedFeed) []string {
	var urls []string
	for _, cf := range feeds {
		urls = append(urls, cf.Feed.URL)
	}
	slices.Sort(urls)
	return urls
}

// One run claims a pass's hosts in the plan's order, each with its
// feeds, then its digests (each user's, a feed they share made ready for
// both), then its end; then the pass is done.
func testPassWorkComesHostsDigestsEnd(t *testing.T, co store.Coordinator) {
	subs := map[string][]string{"ada": {"https://b.example/1"},
		"bob": {"https://b.example/1", "https://b.example/2", "https://a.example/1"}}
	ps, _ := planned(t, co, subs, "https://b.example/1", "https://a.example/1", "https://b.example/2")
	first := next(t, co, ps)
	if first.Kind != store.WorkHost || first.Host != "b.example" ||
		!slices.Equal(urlsOf(first.Feeds), []string{"https://b.example/1", "https://b.example/2"}) {
		t.Fatalf("first claim %+v, want host b.example with its two feeds", first)
	}
	if first.Feeds[0].Why != "due" {
		t.Errorf("claimed feed why %q, want the plan's", first.Feeds[0].Why)
	}
	pollHost(t, co, first)
	second := next(t, co, ps)
	if second.Kind != store.WorkHost || second.Host != "a.example" || len(second.Feeds) != 1 {
		t.Fatalf("second claim %+v, want host a.example", second)
	}
	pollHost(t, co, second)
	var digests []string
	for range 2 {
		w := next(t, co, ps)
		if w.Kind != store.WorkDigest {
			t.Fatalf("claimed %+v, want a digest", w)
		}
		digests = append(digests, w.Digest.User)
		finish(t, co, w)
	}
	slices.Sort(digests)
	if !slices.Equal(digests, []string{"ada", "bob"}) {
		t.Errorf("digests claimed %v, want ada's and bob's", digests)
	}
	end := next(t, co, ps)
	if end.Kind != store.WorkEnd {
		t.Fatalf("claimed %+v, want the end", end)
	}
	finish(t, co, end)
	if w, err := co.NextWork(context.Background(), ps); !errors.Is(err, store.ErrPassDone) {
		t.Errorf("NextWork after the end = %+v, %v; want ErrPassDone", w, err)
	}
}

// A digest is claimed only once every feed of its user in the pass is
// saved; the others' digests do not wait for it; the end waits for all.
func testDigestWaitsForItsUsersFeeds(t *testing.T, co store.Coordinator) {
	subs := map[string][]string{"ada": {"https://a.example/1"}, "bob": {"https://b.example/1"}}
	ps, _ := planned(t, co, subs, "https://a.example/1", "https://b.example/1")
	a := next(t, co, ps)
	b := next(t, co, ps)
	if a.Host != "a.example" || b.Host != "b.example" {
		t.Fatalf("claimed hosts %q, %q; want a.example, b.example", a.Host, b.Host)
	}
	noWorkYet(t, co, ps)
	pollHost(t, co, b)
	if w := next(t, co, ps); w.Kind != store.WorkDigest || w.Digest.User != "bob" {
		t.Fatalf("claimed %+v, want bob's digest, whose feed is saved", w)
	} else {
		finish(t, co, w)
	}
	noWorkYet(t, co, ps) // ada's waits for a.example's feed
	savePassPoll(t, co, a, a.Feeds[0].Feed)
	finish(t, co, a)
	if w := next(t, co, ps); w.Kind != store.WorkDigest || w.Digest.User != "ada" {
		t.Fatalf("claimed %+v, want ada's digest", w)
	} else {
		noWorkYet(t, co, ps) // the end waits for the digest claimed
		finish(t, co, w)
	}
	if w := next(t, co, ps); w.Kind != store.WorkEnd {
		t.Fatalf("claimed %+v, want the end", w)
	}
	if w, err := co.NextWork(context.Background(), ps); !errors.Is(err, store.ErrPassEnding) {
		t.Errorf("NextWork while the end is claimed = %+v, %v; want ErrPassEnding", w, err)
	}
}

// A host given back is claimed again with its feeds not yet saved.
func testReleasedHostIsClaimedAgain(t *testing.T, co store.Coordinator) {
	subs := map[string][]string{"ada": {"https://a.example/1", "https://a.example/2"}}
	ps, _ := planned(t, co, subs, "https://a.example/1", "https://a.example/2")
	w := next(t, co, ps)
	if len(w.Feeds) != 2 {
		t.Fatalf("claimed %+v, want a.example's two feeds", w)
	}
	savePassPoll(t, co, w, w.Feeds[0].Feed)
	if err := co.ReleaseWork(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	again := next(t, co, ps)
	if again.Kind != store.WorkHost || again.Host != "a.example" || len(again.Feeds) != 1 || again.Feeds[0].Feed.ID != w.Feeds[1].Feed.ID {
		t.Fatalf("claimed again %+v, want a.example with its feed not saved", again)
	}
	pollHost(t, co, again)
	if d := next(t, co, ps); d.Kind != store.WorkDigest {
		t.Fatalf("claimed %+v, want ada's digest", d)
	}
}

// A feed whose poll a run that died had begun (its mark) is claimed
// apart from the others of its host, as Unfinished with its reads cut
// short, never in Feeds; every feed of the pass is claimed once.
func testUnfinishedPollsComeApart(t *testing.T, co store.Coordinator) {
	ctx := context.Background()
	subs := map[string][]string{"ada": {"https://a.example/1", "https://a.example/2", "https://b.example/1"}}
	if err := co.SyncSubscriptions(ctx, subs, passHour); err != nil {
		t.Fatal(err)
	}
	dead, err := co.Feed(ctx, "https://a.example/1")
	if err != nil {
		t.Fatal(err)
	}
	if err := co.BeginAttempt(ctx, dead.ID, passHour.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	ps, _ := planned(t, co, subs, "https://a.example/2", "https://b.example/1", "https://a.example/1")
	var polled []string
	var unfinished []store.Attempt
	for {
		w := next(t, co, ps)
		if w.Kind != store.WorkHost {
			if w.Kind != store.WorkDigest {
				t.Fatalf("claimed %+v before the digest", w)
			}
			break
		}
		polled = append(polled, urlsOf(w.Feeds)...)
		unfinished = append(unfinished, w.Unfinished...)
		pollHost(t, co, w)
	}
	slices.Sort(polled)
	if !slices.Equal(polled, []string{"https://a.example/2", "https://b.example/1"}) {
		t.Errorf("claimed feeds %v, want every feed but the unfinished one", polled)
	}
	if len(unfinished) != 1 || unfinished[0].Feed.ID != dead.ID || unfinished[0].Reads != 1 {
		t.Errorf("unfinished %+v, want feed %d with one read cut short", unfinished, dead.ID)
	}
}

// FeedsToPlan reads at least the records of the feeds asked.
func testFeedsToPlanHasTheFeedsAsked(t *testing.T, co store.Coordinator) {
	ctx := context.Background()
	subs := map[string][]string{"ada": {"https://a.example/1"}, "bob": {"https://b.example/1"}}
	if err := co.SyncSubscriptions(ctx, subs, passHour); err != nil {
		t.Fatal(err)
	}
	feeds, err := co.FeedsToPlan(ctx, []string{"https://a.example/1"}, passHour)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(feeds, func(f domain.Feed) bool { return f.URL == "https://a.example/1" && f.ID != 0 }) {
		t.Errorf("FeedsToPlan = %+v, want the record of https://a.example/1", feeds)
	}
}
