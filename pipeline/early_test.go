package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/internal/feedtest"
	"feeddigest/parse"
	"feeddigest/store"
	"feeddigest/store/local"
)

// slowRSS is a handler that answers an RSS feed of one entry only once
// release is closed (or the request is given up); returned says it has
// answered.
func slowRSS(release <-chan struct{}, returned *atomic.Bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer returned.Store(true)
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Slow</title><link>https://slow.example/</link>`+
			`<item><guid>slow-1</guid><title>Slow one</title><link>https://site.example/slow-1</link></item></channel></rss>`)
	})
}

// waitForFile waits until path exists, or fails the test once the pass
// it waits for has ended (done closed) without writing it, or a minute
// has passed (a pass that waits for what the test holds back).
func waitForFile(t *testing.T, path string, done <-chan struct{}) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	giveUp := time.After(time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-done:
			t.Fatalf("the pass ended before %s was written", path)
		case <-giveUp:
			t.Fatalf("%s not written in a minute", path)
		}
	}
}

// A user's digest is built, and its page and email written, as soon as
// the user's own feeds are polled, while another user's slow feed is
// still being read; the other user's digest waits for it, though they
// share a feed.
func TestDigestIsWrittenWhileAnotherUsersFeedIsPolled(t *testing.T) {
	pub := feedtest.Start(t)
	pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
	pub.Add("/shared", entry("shared-1", "2026-11-20T11:00:00Z"))
	release := make(chan struct{})
	var returned atomic.Bool
	pub.Handle("/slow", slowRSS(release, &returned))
	cfg := testConfig(t, onSQLite, fmt.Sprintf(`
[[users]]
name = "ada"
timezone = "UTC"
email = "ada@example.org"
feeds = ["%[1]s/a", "%[1]s/shared"]
[[users]]
name = "bob"
timezone = "UTC"
email = "bob@example.org"
feeds = ["%[1]s/shared", "%[1]s/slow"]
`, pub.URL), "")
	cfg.Fetch.Timeout = 5 * time.Minute // the slow feed answers when the test says

	done := make(chan struct{})
	var sum Summary
	var runErr error
	go func() {
		defer close(done)
		sum, runErr = Run(context.Background(), cfg, Options{Now: at("2026-11-21T12:00:00Z")})
	}()
	defer func() { // a test that fails lets the pass end before its files go
		select {
		case <-release:
		default:
			close(release)
		}
		<-done
	}()
	adaPage := filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html")
	waitForFile(t, adaPage, done)
	waitForFile(t, filepath.Join(cfg.SiteDir, "ada", "index.html"), done)
	if returned.Load() {
		t.Fatal("the slow feed was answered before ada's page was written")
	}
	if _, err := os.Stat(filepath.Join(cfg.Email.Outbox, "ada-2026-11-21.eml")); err != nil {
		t.Errorf("ada's email is not in the outbox while bob's feed is polled: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.SiteDir, "bob", "2026-11-21.html")); err == nil {
		t.Error("bob's page is written before his slow feed is read")
	}
	page := readFile(t, adaPage)
	for _, id := range []string{"a-1", "shared-1"} {
		if !strings.Contains(page, "https://site.example/"+id) {
			t.Errorf("ada's page lacks %s", id)
		}
	}
	// The feeds' names as this poll read them: they had none before.
	for _, name := range []string{"Feed /a", "Feed /shared"} {
		if !strings.Contains(page, name) {
			t.Errorf("ada's page does not name %q", name)
		}
	}
	close(release)
	<-done
	if runErr != nil {
		t.Fatal(runErr)
	}
	if sum.DigestsBuilt != 2 || sum.PagesWritten != 2 || sum.FeedsPolled != 3 {
		t.Errorf("summary %+v, want 2 digests, 2 pages, 3 feeds polled", sum)
	}
	bob := readFile(t, filepath.Join(cfg.SiteDir, "bob", "2026-11-21.html"))
	for _, id := range []string{"shared-1", "slow-1"} {
		if !strings.Contains(bob, "https://site.example/"+id) {
			t.Errorf("bob's page lacks %s", id)
		}
	}
	if got := delivered(t, cfg, "ada"); got["a-1"] != 1 || got["shared-1"] != 1 || len(got) != 2 {
		t.Errorf("ada's pages link %v, want a-1 and shared-1 once", got)
	}
}

// A poll saved with its group (a 304) makes its users' digests ready only
// once the group is saved: the digest shows the feed's record. A poll
// saved on its own makes them ready at once.
func TestDigestWaitsForTheGroupOfItsUnchangedPoll(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	st := freshSQLite(t)
	urls := map[string][]string{"ada": {"https://a.example/feed"}, "bob": {"https://b.example/feed"},
		"cy": {"https://c.example/feed"}}
	if err := st.SyncSubscriptions(ctx, urls, now); err != nil {
		t.Fatal(err)
	}
	co := local.New(st)
	opts := Options{Now: now}
	opts.defaults()
	p := &pass{cfg: &config.Config{}, opts: opts, st: co, rd: st, sum: &Summary{}}
	if _, _, err := co.JoinPass(ctx, now, now, time.Minute); err != nil {
		t.Fatal(err)
	}
	feeds, err := co.FeedsToPlan(ctx, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	plan := store.PassPlan{Hour: now, Now: now}
	for _, f := range feeds { // by URL: a, b, c
		plan.Feeds = append(plan.Feeds, store.PlannedPoll{FeedID: f.ID, Host: fetch.HostOf(f.URL), Why: "due"})
	}
	for _, user := range []string{"ada", "bob", "cy"} {
		plan.Digests = append(plan.Digests, store.DigestKey{User: user, Date: "2026-11-22"})
	}
	ps, err := co.PlanPass(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorker(p, ps, nil)
	fresh := func(f string) fetch.Result {
		return fetch.Result{Outcome: fetch.OutcomeFresh, Status: 200, Requests: 1,
			Feed: &parse.Feed{Entries: []domain.Entry{{Key: f, Title: f}}}}
	}
	for range feeds {
		work, err := co.NextWork(ctx, ps)
		if err != nil || work.Kind != store.WorkHost || len(work.Feeds) != 1 {
			t.Fatalf("NextWork = %+v, %v; want a host of one feed", work, err)
		}
		f := work.Feeds[0].Feed
		r := polled{feed: f, why: "due", res: fetch.Result{Outcome: fetch.OutcomeUnchanged, Status: 304, Requests: 1}, claim: &work}
		if f.URL != urls["ada"][0] {
			r.res = fresh(f.URL)
		}
		if err := w.savePoll(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := co.FinishWork(ctx, work); err != nil {
			t.Fatal(err)
		}
	}
	if got := readyNames(t, co, ps); got != "bob cy" {
		t.Errorf("ready before the group is saved: %q, want bob cy", got)
	}
	if err := w.saveGroup(ctx); err != nil {
		t.Fatal(err)
	}
	if got := readyNames(t, co, ps); got != "ada" {
		t.Errorf("ready after the group is saved: %q, want ada", got)
	}
}

// readyNames claims the digests ready so far, and names their users.
func readyNames(t *testing.T, co store.Coordinator, ps store.Pass) string {
	var names []string
	for {
		work, err := co.NextWork(context.Background(), ps)
		switch {
		case errors.Is(err, store.ErrNoWorkYet):
			return strings.Join(names, " ")
		case err != nil:
			t.Fatal(err)
		case work.Kind != store.WorkDigest:
			t.Fatalf("claimed %+v, want a digest", work)
		}
		names = append(names, work.Digest.User)
	}
}
