package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/internal/redact"
	"feeddigest/rules"
	"feeddigest/schedule"
	"feeddigest/store"
)

// A pass is done as work items that its runs claim from the state's
// coordinator (see store.Coordinator): several runs sharing a PostgreSQL
// state share each pass, on one machine or many, instead of excluding
// each other; a run on SQLite holds its state alone, and claims from an
// in-process coordinator (package local) the same items. The first run
// plans the pass (subscriptions, due users, feeds to poll); then every
// run claims work from the plan until none is left: a host with its
// feeds, polled under this run's per-host limits, so that the limits hold
// across runs; a digest whose user's feeds of the pass are all polled or
// failed, built, written and mailed by the run that claims it (so most
// digests are done while other users' feeds are still polled); and last
// the pass's end, by one run: leftover pages and mail, the status page,
// pruning. A run that dies leaves its claims to lapse, and the others
// take its work over; what it leaves on SQLite (digests built, perhaps
// not written) the next run's end writes.

// work does this run's part of the pass of its hour.
func (p *pass) work(ctx context.Context) error {
	co := p.st
	hour := p.opts.Now.Truncate(time.Hour)
	ps, planning, err := co.JoinPass(ctx, hour, p.opts.Now, p.opts.Lease)
	if err != nil {
		return err
	}
	if planning {
		if ps, err = p.plan(ctx, ps); err != nil {
			co.AbandonPlan()
			return err
		}
		p.opts.Log.Info("pass planned", "hour", ps.Hour, "feeds", ps.Feeds, "digests", ps.Digests)
	} else {
		// The pass's clock is its planner's: every run decides as one.
		p.opts.Now = ps.Now
		p.opts.Log.Info("pass joined", "hour", ps.Hour, "now", ps.Now, "feeds", ps.Feeds, "digests", ps.Digests)
	}
	p.sum.Now, p.sum.UsersDue = ps.Now, ps.Digests
	p.opts.Progress(Event{Kind: EventDue, Total: ps.Feeds})
	if ps.Feeds > 0 {
		// Before the first request, once there is one to make.
		if err := p.startDelay(ctx); err != nil {
			return err
		}
	}
	return p.claim(ctx, ps)
}

// plan decides the pass's work and records it: what a run planning it
// alone (SQLite) and the first run of a shared pass do alike.
func (p *pass) plan(ctx context.Context, ps store.Pass) (store.Pass, error) {
	if err := p.sync(ctx); err != nil {
		return ps, err
	}
	again, err := p.settleUnfinishedPolls(ctx)
	if err != nil {
		return ps, err
	}
	// Before any page of the pass is written, by whichever run: the
	// entries stored by an older program, or under other rules.
	if err := p.showAnew(ctx); err != nil {
		return ps, err
	}
	polls, byURL, err := p.choosePolls(ctx)
	if err != nil {
		return ps, err
	}
	// The polls a dead run left unfinished are in the pass, whether due
	// or not: the run that claims their host reads them again, after its
	// other feeds, one at a time (see worker.pollHost).
	polls, last := readAgainLast(polls, byURL, again)
	plan := store.PassPlan{Hour: ps.Hour, Now: ps.Now}
	all := append(polls, last...)
	shared := sharedLands(all, byURL)
	for _, poll := range all {
		f := byURL[poll.URL]
		plan.Feeds = append(plan.Feeds, store.PlannedPoll{FeedID: f.ID, Host: claimHost(f, shared), Why: string(poll.Why)})
	}
	for _, d := range p.due {
		plan.Digests = append(plan.Digests, store.DigestKey{User: d.Name, Date: d.Date})
	}
	return p.st.PlanPass(ctx, plan)
}

// claim claims and does work of the pass until none is left, in
// claimLoops loops, each host polled per_host at a time.
func (p *pass) claim(ctx context.Context, ps store.Pass) error {
	client := NewClient(p.cfg)
	defer client.Close()
	w := newWorker(p, ps, client)
	g, gctx := errgroup.WithContext(ctx)
	loops := max(1, p.cfg.Fetch.Concurrency)
	for i := range loops {
		g.Go(func() error { return w.loop(gctx, i == 0) })
	}
	for range claimLoops(ps, p.cfg.Fetch.Concurrency) - loops {
		g.Go(func() error { return w.moreHostsLoop(gctx) })
	}
	err := g.Wait()
	// What was polled before an interruption is saved all the same, as
	// the saves of the others were.
	err = errors.Join(err, w.saveGroup(context.WithoutCancel(ctx)))
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("interrupted after %d feeds: %w", p.sum.FeedsPolled, ctxErr)
	}
	return err
}

// claimLoops is how many claim loops a run works a pass with:
// concurrency, and one more a host to claim (see moreHostsLoop), up to
// four times that, which bounds the polls under way and so the results
// waiting to be saved.
func claimLoops(ps store.Pass, concurrency int) int {
	concurrency = max(1, concurrency)
	return max(concurrency, min(ps.Hosts, 4*concurrency))
}

// worker is this run's share of a pass: claim loops and one HTTP client,
// which bounds the requests in flight.
type worker struct {
	pass   *pass
	ps     store.Pass
	client *fetch.Client
	// building bounds the digests built at once (concurrency), whatever
	// the number of claim loops: their rows and pages are the pass's
	// largest memory.
	building chan struct{}
	// done and failed count the polls saved, and those failed, for
	// progress; under pass.mu.
	done, failed int
	randMu       sync.Mutex
	// nudge wakes one claim loop waiting for work (see wake): the loops
	// ask for work one by one, as there is some, not all at every piece
	// finished (on PostgreSQL each asking is a question to the server,
	// over a connection of its own). Of the loops waiting, one (the
	// watcher) also looks every waitForWork, for the work of other runs:
	// sixteen loops of four runs asking the database in turn, at the end
	// of the polls, cost more than the work they wait for.
	nudge      chan struct{}
	watchingMu sync.Mutex
	watching   bool // a loop is the watcher; under watchingMu
	// group holds the unchanged polls waiting to be saved together.
	group unchangedGroup
	// ended is closed once a loop finds the pass done.
	ended     chan struct{}
	endedOnce sync.Once
}

func newWorker(p *pass, ps store.Pass, client *fetch.Client) *worker {
	return &worker{pass: p, ps: ps, client: client, building: make(chan struct{}, max(1, p.cfg.Fetch.Concurrency)),
		nudge: make(chan struct{}, 1), group: unchangedGroup{together: savesTogether(p.st)}, ended: make(chan struct{})}
}

// wake wakes one waiting claim loop, to ask for work: a loop wakes
// another when it claims work (there may be more) and when it finds the
// pass done (the next finds it done too). A loop that finishes work asks
// for more itself, so what it finished frees needs no other loop to
// look. The one token is kept until a loop takes it: a wake while no
// loop waits is not lost.
func (w *worker) wake() {
	select {
	case w.nudge <- struct{}{}:
	default: // a loop will look already
	}
}

// wait waits until a claim loop of this run wakes it (see wake), or
// freed is closed; the watcher also for half to one and a half times
// every.
func (w *worker) wait(ctx context.Context, every time.Duration, freed <-chan struct{}) error {
	w.watchingMu.Lock()
	watcher := !w.watching
	w.watching = true
	w.watchingMu.Unlock()
	var timeout <-chan time.Time // never, but for the watcher
	if watcher {
		defer func() {
			w.watchingMu.Lock()
			w.watching = false
			w.watchingMu.Unlock()
		}()
		t := time.NewTimer(every/2 + w.jitter(every))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-w.nudge:
	case <-freed:
	case <-timeout:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// waitForWork is how long the watcher waits when nothing is free but
// work remains (other runs' claims, digests waiting for feeds), jittered;
// waitForEnd when all that is left is another run's end of the pass,
// which takes a fraction of a second: this run ends as soon after it as
// it can, at the cost of a cheap question more or less.
const (
	waitForWork = 250 * time.Millisecond
	waitForEnd  = 50 * time.Millisecond
)

// loop claims work until the pass is done. The first loop asks at once;
// the others wait to be woken when it claims work (see wake).
func (w *worker) loop(ctx context.Context, first bool) error {
	co := w.pass.st
	if !first {
		if err := w.wait(ctx, waitForWork, workFreed(co)); err != nil {
			return err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		freed := workFreed(co)
		work, err := co.NextWork(ctx, w.ps)
		switch {
		case errors.Is(err, store.ErrPassDone):
			w.passDone()
			return nil
		case errors.Is(err, store.ErrNoWorkYet):
			// The polls waiting to be saved together may be what the
			// rest waits for: saved, this loop asks again.
			if saved, err := w.saveWaiting(ctx); err != nil {
				return err
			} else if saved {
				continue
			}
			every := waitForWork
			if errors.Is(err, store.ErrPassEnding) {
				every = waitForEnd
			}
			if err := w.wait(ctx, every, freed); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		w.wake()
		if err := w.doClaimed(ctx, work); err != nil {
			return err
		}
	}
}

// passDone tells the loops that the pass is done: those waiting for the
// run to be rate-bound stop, and the next waiting loop is woken to find
// it done too.
func (w *worker) passDone() {
	w.endedOnce.Do(func() { close(w.ended) })
	w.wake()
}

// moreHostsLoop claims work beside the run's concurrency loops, so that
// a pass of many hosts, each paced by its token bucket (host_rate), has
// them all worked at once, not concurrency at a time: the client's
// concurrency bounds the requests in flight, not the hosts worked. On a
// pass the run holds alone (the in-process coordinator) it claims at
// once. On a shared pass it claims only while the run is bound by its
// hosts' rates (fetch.Client.RateBound: requests wait for their hosts'
// tokens, none for a slot of the run), so that a run bound by latency or
// CPU holds no more hosts than its concurrency loops, and leaves the rest
// to the other runs sharing the pass. It stops when it finds nothing
// free: the concurrency loops watch for the rest (see loop).
func (w *worker) moreHostsLoop(ctx context.Context) error {
	for {
		// Saves together is alone on the pass (see savesTogether).
		if !w.group.together {
			if ended, err := w.awaitRateBound(ctx); ended || err != nil {
				return err
			}
		}
		work, err := w.pass.st.NextWork(ctx, w.ps)
		switch {
		case errors.Is(err, store.ErrPassDone):
			w.passDone()
			return nil
		case errors.Is(err, store.ErrNoWorkYet):
			return nil
		case err != nil:
			return err
		}
		w.wake()
		if err := w.doClaimed(ctx, work); err != nil {
			return err
		}
	}
}

// awaitRateBound waits until the run is bound by its hosts' rates, or
// the pass is done (ended).
func (w *worker) awaitRateBound(ctx context.Context) (ended bool, err error) {
	for {
		bound, changed := w.client.RateBound()
		if bound {
			return false, nil
		}
		select {
		case <-changed:
		case <-w.ended:
			return true, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// doClaimed does claimed work and finishes it, or gives it back; a claim
// another run took over is no error.
func (w *worker) doClaimed(ctx context.Context, work store.Work) error {
	p, co := w.pass, w.pass.st
	if err := w.do(ctx, work); err != nil {
		// Given back, for another run (or this one's next claim).
		releaseErr := co.ReleaseWork(context.WithoutCancel(ctx), work)
		if errors.Is(err, store.ErrClaimLost) && releaseErr == nil && ctx.Err() == nil {
			// This run was too slow to renew its lease (a loaded
			// machine, a long pause): another run has the work, and
			// this one claims on.
			p.opts.Log.Warn("work taken over by another run", "kind", work.Kind, "host", work.Host, "error", err)
			return nil
		}
		return errors.Join(err, releaseErr)
	}
	err := co.FinishWork(ctx, work)
	if errors.Is(err, store.ErrClaimLost) {
		p.opts.Log.Warn("work taken over by another run", "kind", work.Kind, "host", work.Host, "digest", work.Digest)
		return nil
	}
	return err
}

// workFreed is closed when work of the pass is freed, for a coordinator
// that can tell (the in-process one: a save made a digest ready); nil,
// never closed, for one that cannot.
func workFreed(co store.Coordinator) <-chan struct{} {
	if c, ok := co.(interface{ WorkFreed() <-chan struct{} }); ok {
		return c.WorkFreed()
	}
	return nil
}

func (w *worker) jitter(d time.Duration) time.Duration {
	w.randMu.Lock()
	defer w.randMu.Unlock()
	return time.Duration(rand.Int64N(int64(d)))
}

func (w *worker) do(ctx context.Context, work store.Work) error {
	switch work.Kind {
	case store.WorkHost:
		return w.pollHost(ctx, work)
	case store.WorkDigest:
		select {
		case w.building <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-w.building }()
		return w.digest(ctx, work.Digest)
	case store.WorkEnd:
		p := w.pass
		p.opts.Log.Info("pass end: leftover pages and mail, status, pruning")
		for _, step := range []func(context.Context) error{p.pageBuilder().Render, p.send, p.prune} {
			if err := step(ctx); err != nil {
				return err
			}
		}
		p.opts.Log.Info("pass end written")
		return nil
	}
	return fmt.Errorf("unknown work %q", work.Kind)
}

// pollHost polls the feeds of a claimed host, per_host at a time, and
// saves each poll with its mark in the pass. Polls a dead run left
// unfinished are read again after the others, one at a time, or, cut
// short twice in a row, recorded as failed, as the planner does with
// those it finds (see settleUnfinishedPolls). The in-process coordinator
// hands them over apart, once every other poll is saved: read last and
// alone.
func (w *worker) pollHost(ctx context.Context, work store.Work) error {
	p := w.pass
	var again []store.Attempt
	for _, a := range work.Unfinished {
		if !suspected(a) {
			again = append(again, a)
			continue
		}
		res := runDied(a)
		if _, err := p.save(ctx, polled{feed: a.Feed, why: schedule.Retry, res: res, claim: &work}); err != nil {
			return err
		}
		p.opts.Log.Warn("left out until its penalty ends", "feed", redact.URL(a.Feed.URL), "error", res.Err)
	}
	// A feed known by several records (see twins.go) is polled once.
	groups := twinsOf(work.Feeds, p.articles)
	feeds := make(chan []store.ClaimedFeed)
	g, gctx := errgroup.WithContext(ctx)
	for range max(1, min(p.cfg.Fetch.PerHost, len(groups))) {
		g.Go(func() error {
			for twins := range feeds {
				if err := w.pollOne(gctx, work, twins); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for _, twins := range groups {
		select {
		case feeds <- twins:
		case <-gctx.Done():
		}
	}
	close(feeds)
	if err := g.Wait(); err != nil {
		return err
	}
	for _, a := range again {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.opts.Log.Info("reading again, alone, a feed a dead run was reading", "feed", redact.URL(a.Feed.URL))
		if err := w.pollOne(ctx, work, []store.ClaimedFeed{{Feed: a.Feed, Why: string(schedule.Retry)}}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// pollOne polls one feed of a claimed host and saves the poll: a feed
// known by several records (twins, see twinsOf) is polled once, as the
// first, and saved to each.
func (w *worker) pollOne(ctx context.Context, work store.Work, twins []store.ClaimedFeed) error {
	p := w.pass
	f := twins[0].Feed
	// The run's concurrency is the client's to keep (fetch.Options):
	// it bounds requests in flight, not polls waiting for their host.
	res, marked, stateErr := p.pollFeed(ctx, w.client, twinRequest(twins))
	if err := ctx.Err(); err != nil {
		return err // interrupted: the feed did not fail, we stopped listening
	}
	if stateErr != nil {
		// The state failed, not the feed: the claim is given back with
		// this run's marks (see loop), and the feed is due again.
		return fmt.Errorf("%s: %w", redact.URL(f.URL), stateErr)
	}
	if err := w.wholeArticles(ctx, &f, &res); err != nil {
		return fmt.Errorf("%s: %w", redact.URL(f.URL), err)
	}
	saves := make([]polled, len(twins))
	for i, cf := range twins {
		saves[i] = polled{feed: cf.Feed, why: schedule.Why(cf.Why), res: res, claim: &work}
		if i > 0 {
			saves[i].res = ridingAlong(res)
		}
	}
	saves[0].feed, saves[0].marked = f, marked
	for _, r := range saves {
		// Here, on the polling side, where concurrency spreads the work.
		makeFragments(r.feed, r.res)
		if err := w.savePoll(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// sieveOf is the user's rules and those of each feed of theirs, as a
// digest applies them; nil when there are none.
func sieveOf(u *config.User) store.Sieve {
	byFeed := map[string]*rules.Set{}
	for _, f := range u.Feeds {
		if !f.Rules.Empty() {
			byFeed[f.URL] = f.Rules
		}
	}
	if u.Rules.Empty() && len(byFeed) == 0 {
		return nil
	}
	return func(e domain.Entry) bool {
		levels := []rules.Set{u.Rules}
		if f := byFeed[e.FeedURL]; f != nil {
			levels = append(levels, *f)
		}
		return rules.LeftOut(rules.SubjectOf(e), levels...)
	}
}

// digest builds a claimed digest (unless a run that died built it), then
// writes its pages and mails it, with the user's other digests that wait.
func (w *worker) digest(ctx context.Context, key store.DigestKey) error {
	p := w.pass
	u, ok := p.cfg.User(key.User)
	if !ok {
		return nil // not in this run's config: left for the pass's end to skip too
	}
	wantSend := u.Email != "" && p.cfg.Email.SMTP != nil
	built, err := p.st.BuildDigest(ctx, key.User, key.Date, p.opts.Now, wantSend, sieveOf(u))
	switch {
	case errors.Is(err, store.ErrDigestExists):
		// Built by a run that died, or by an overlapping pass.
	case errors.Is(err, store.ErrNoFeedReadYet):
		// A first digest waits for a feed to be read: the user stays due,
		// and the next run tries the feeds again as their penalties allow.
		p.mu.Lock()
		p.sum.Waiting = append(p.sum.Waiting, key.User+": no first digest yet: none of the feeds could be read (see the feed errors; `status` shows when each is tried again)")
		p.mu.Unlock()
		p.opts.Log.Info("first digest waits: no feed read yet", "user", key.User)
		return nil
	case err != nil:
		return err
	default:
		p.mu.Lock()
		p.sum.DigestsBuilt++
		p.sum.DigestEntries += built.EntryCount
		p.opts.Progress(Event{Kind: EventDigest, Detail: key.User + " " + key.Date})
		p.mu.Unlock()
		p.opts.Log.Info("digest built", "user", key.User, "date", key.Date, "entries", built.EntryCount, "notices", len(built.Notices))
	}
	if err := p.pageBuilder().RenderUser(ctx, key.User); err != nil {
		return err
	}
	return p.sendTo(ctx, key.User)
}
