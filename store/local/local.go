// Package local coordinates the passes of a state that one run holds at
// a time (SQLite) with the work items of a shared pass (see
// store.Coordinator): a host with its feeds, a digest once its user's
// feeds of the pass are saved, the pass's end. So one worker loop drives
// every state. The pass lives in memory: its run is its only worker,
// and what a run that dies leaves is found by the next in the state
// itself (poll marks, digests not written). It imports no driver.
package local

import (
	"context"
	"fmt"
	"sync"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// Coordinator is a store.Store whose passes are planned and claimed in
// the run's memory. It counts a feed as done in the pass when its poll is
// saved through it, whichever way (BeginPoll, BeginPassPoll or
// UpdateFeeds): the run is the only one saving, so unchanged polls may
// be saved together outside any claim (see CountsPlainSaves).
type Coordinator struct {
	store.Store

	mu     sync.Mutex
	pass   store.Pass
	passes int64
	// records are the feed records FeedsToPlan read, by ID, for the plan.
	records map[int64]domain.Feed
	hosts   []*host
	feeds   map[int64]*feed
	// again are the polls a dead run left unfinished: each claimed on its
	// own, once every other poll is saved and none is in flight.
	again   []*feed
	digests []*digest
	// waiting are, by feed URL, the digests that wait for its save.
	waiting         map[string][]*digest
	ending, ended   bool
	againInProgress bool
	// freed is closed, and replaced, when a save makes a digest ready.
	freed chan struct{}
}

type host struct {
	name              string
	feeds             []*feed
	claimed, finished bool
}

type feed struct {
	claimed store.ClaimedFeed
	attempt store.Attempt // for the polls of again
	host    string
	done    bool
}

type digest struct {
	key           store.DigestKey
	left          int // feeds of the pass its user waits for
	claimed, done bool
}

// New coordinates the passes of st.
func New(st store.Store) *Coordinator {
	return &Coordinator{Store: st, freed: make(chan struct{})}
}

// WorkFreed is closed when a save makes a digest ready, or the end: the
// run's loops waiting for work ask again at once, which costs nothing
// here.
func (c *Coordinator) WorkFreed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.freed
}

var _ store.Coordinator = (*Coordinator)(nil)

// CountsPlainSaves says that a feed record written outside a claim
// (UpdateFeeds, BeginPoll) marks its feed done in the pass.
func (c *Coordinator) CountsPlainSaves() bool { return true }

// JoinPass starts a new pass of hour: this run is its only worker, and
// plans it.
func (c *Coordinator) JoinPass(_ context.Context, hour, now time.Time, _ time.Duration) (store.Pass, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.passes++
	c.pass = store.Pass{ID: c.passes, Hour: hour, Now: now}
	c.hosts, c.feeds, c.again, c.digests, c.waiting = nil, nil, nil, nil, nil
	c.ending, c.ended, c.againInProgress = false, false, false
	return c.pass, true, nil
}

// FeedsToPlan returns every feed record: the state is the run's alone,
// and reading them all is one question.
func (c *Coordinator) FeedsToPlan(ctx context.Context, _ []string, _ time.Time) ([]domain.Feed, error) {
	feeds, err := c.Store.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = make(map[int64]domain.Feed, len(feeds))
	for _, f := range feeds {
		c.records[f.ID] = f
	}
	return feeds, nil
}

// AbandonPlan does nothing: no other run waits for the plan.
func (c *Coordinator) AbandonPlan() {}

// PlanPass records the plan: hosts in the order their first feed comes,
// each with its feeds in the plan's order; the feeds a dead run left
// unfinished (their poll marks) apart, to be read last and alone; and
// each digest waiting for its user's feeds of the pass.
func (c *Coordinator) PlanPass(ctx context.Context, plan store.PassPlan) (store.Pass, error) {
	records, err := c.plannedRecords(ctx, plan.Feeds)
	if err != nil {
		return store.Pass{}, err
	}
	unfinished, err := c.Store.UnfinishedAttempts(ctx)
	if err != nil {
		return store.Pass{}, err
	}
	subscribers, err := c.Store.Subscribers(ctx)
	if err != nil {
		return store.Pass{}, err
	}
	marked := make(map[int64]store.Attempt, len(unfinished))
	for _, a := range unfinished {
		marked[a.Feed.ID] = a
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.feeds = make(map[int64]*feed, len(plan.Feeds))
	byHost := map[string]*host{}
	for _, pp := range plan.Feeds {
		f := &feed{claimed: store.ClaimedFeed{Feed: records[pp.FeedID], Why: pp.Why}, host: pp.Host}
		c.feeds[pp.FeedID] = f
		if a, ok := marked[pp.FeedID]; ok {
			f.attempt = a
			c.again = append(c.again, f)
			continue
		}
		h := byHost[pp.Host]
		if h == nil {
			h = &host{name: pp.Host}
			byHost[pp.Host] = h
			c.hosts = append(c.hosts, h)
		}
		h.feeds = append(h.feeds, f)
	}
	byUser := map[string][]*digest{}
	for _, key := range plan.Digests {
		d := &digest{key: key}
		c.digests = append(c.digests, d)
		byUser[key.User] = append(byUser[key.User], d)
	}
	c.waiting = map[string][]*digest{}
	for _, f := range c.feeds {
		url := f.claimed.Feed.URL
		for _, user := range subscribers[url] {
			for _, d := range byUser[user] {
				d.left++
				c.waiting[url] = append(c.waiting[url], d)
			}
		}
	}
	c.pass.Feeds, c.pass.Digests, c.pass.Hosts = len(plan.Feeds), len(plan.Digests), len(c.hosts)
	return c.pass, nil
}

// plannedRecords are the records of the planned feeds: those FeedsToPlan
// read, or, for a plan made without it, every record read again.
func (c *Coordinator) plannedRecords(ctx context.Context, planned []store.PlannedPoll) (map[int64]domain.Feed, error) {
	c.mu.Lock()
	records := c.records
	c.records = nil
	c.mu.Unlock()
	for _, pp := range planned {
		if _, ok := records[pp.FeedID]; ok {
			continue
		}
		feeds, err := c.Store.Feeds(ctx)
		if err != nil {
			return nil, err
		}
		records = make(map[int64]domain.Feed, len(feeds))
		for _, f := range feeds {
			records[f.ID] = f
		}
		break
	}
	for _, pp := range planned {
		if _, ok := records[pp.FeedID]; !ok {
			return nil, fmt.Errorf("plan a poll of feed %d: %w", pp.FeedID, store.ErrNoFeed)
		}
	}
	return records, nil
}

// NextWork claims a host with feeds not saved, else, once every other
// poll is saved and none is in flight, a poll a dead run left unfinished,
// else a ready digest, else the end.
func (c *Coordinator) NextWork(_ context.Context, p store.Pass) (store.Work, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.ID != c.pass.ID {
		return store.Work{}, fmt.Errorf("pass %d: not the pass of this run (%d)", p.ID, c.pass.ID)
	}
	pollsLeft := false
	for _, h := range c.hosts {
		if !h.anyLeft() {
			continue
		}
		pollsLeft = true
		if !h.claimed && !h.finished {
			h.claimed = true
			return store.Work{Kind: store.WorkHost, Pass: c.pass, Host: h.name, Feeds: h.left()}, nil
		}
	}
	for _, f := range c.again {
		if f.done {
			continue
		}
		if !pollsLeft && !c.againInProgress {
			c.againInProgress = true
			return store.Work{Kind: store.WorkHost, Pass: c.pass, Host: f.host, Unfinished: []store.Attempt{f.attempt}}, nil
		}
		pollsLeft = true
		break
	}
	busy := pollsLeft
	for _, d := range c.digests {
		switch {
		case d.done:
		case !d.claimed && d.left == 0:
			d.claimed = true
			return store.Work{Kind: store.WorkDigest, Pass: c.pass, Digest: d.key}, nil
		default:
			busy = true
		}
	}
	for _, h := range c.hosts {
		busy = busy || h.claimed
	}
	switch {
	case busy || c.againInProgress:
		return store.Work{}, store.ErrNoWorkYet
	case c.ended:
		return store.Work{}, store.ErrPassDone
	case c.ending:
		return store.Work{}, store.ErrPassEnding
	}
	c.ending = true
	return store.Work{Kind: store.WorkEnd, Pass: c.pass}, nil
}

// anyLeft says whether a feed of the host is not saved yet, without
// the garbage of left: NextWork asks it of every host each time a
// worker looks for work.
func (h *host) anyLeft() bool {
	for _, f := range h.feeds {
		if !f.done {
			return true
		}
	}
	return false
}

// left are the host's feeds not saved yet.
func (h *host) left() []store.ClaimedFeed {
	var out []store.ClaimedFeed
	for _, f := range h.feeds {
		if !f.done {
			out = append(out, f.claimed)
		}
	}
	return out
}

// BeginPassPoll starts saving a poll of a feed of a claimed host: its
// commit marks the feed done in the pass.
func (c *Coordinator) BeginPassPoll(ctx context.Context, w store.Work, feedID int64) (store.PollTx, error) {
	if w.Kind != store.WorkHost {
		return nil, fmt.Errorf("save poll of feed %d: the claim is of a %s, not a host", feedID, w.Kind)
	}
	return c.BeginPoll(ctx, feedID)
}

// BeginPoll starts saving a poll: its commit marks the feed done in the
// pass, if the pass polls it.
func (c *Coordinator) BeginPoll(ctx context.Context, feedID int64) (store.PollTx, error) {
	tx, err := c.Store.BeginPoll(ctx, feedID)
	if err != nil {
		return nil, err
	}
	return &pollTx{PollTx: tx, commit: func() { c.saved(feedID) }}, nil
}

// UpdateFeeds writes the records of polls that stored no entries, and
// marks their feeds done in the pass.
func (c *Coordinator) UpdateFeeds(ctx context.Context, feeds []domain.Feed) error {
	if err := c.Store.UpdateFeeds(ctx, feeds); err != nil {
		return err
	}
	for _, f := range feeds {
		c.saved(f.ID)
	}
	return nil
}

// saved marks the feed of id done in the pass, and the digests waiting
// for it one feed nearer.
func (c *Coordinator) saved(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.feeds[id]
	if !ok || f.done {
		return
	}
	f.done = true
	freed := false
	for _, d := range c.waiting[f.claimed.Feed.URL] {
		d.left--
		freed = freed || d.left == 0
	}
	if freed {
		close(c.freed)
		c.freed = make(chan struct{})
	}
}

// FinishWork marks claimed work done. A host stays unclaimable, and its
// feeds not saved yet (waiting to be saved together) keep the digests
// waiting until they are.
func (c *Coordinator) FinishWork(_ context.Context, w store.Work) error {
	return c.settle(w, true)
}

// ReleaseWork gives claimed work back undone. The poll marks of the run
// go too (see store.Store.DropAttempts): its polls were given up, not
// failed, and the run is the state's only one.
func (c *Coordinator) ReleaseWork(ctx context.Context, w store.Work) error {
	if err := c.settle(w, false); err != nil {
		return err
	}
	if w.Kind == store.WorkHost {
		return c.Store.DropAttempts(ctx)
	}
	return nil
}

func (c *Coordinator) settle(w store.Work, done bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.Pass.ID != c.pass.ID {
		return fmt.Errorf("finish the %s work of pass %d: %w", w.Kind, w.Pass.ID, store.ErrClaimLost)
	}
	switch w.Kind {
	case store.WorkHost:
		if len(w.Unfinished) > 0 {
			c.againInProgress = false
			return nil
		}
		for _, h := range c.hosts {
			if h.name == w.Host && h.claimed {
				h.claimed, h.finished = false, done
				return nil
			}
		}
	case store.WorkDigest:
		for _, d := range c.digests {
			if d.key == w.Digest && d.claimed {
				d.claimed, d.done = false, done
				return nil
			}
		}
	case store.WorkEnd:
		if c.ending {
			c.ending, c.ended = done, done
			return nil
		}
	default:
		return fmt.Errorf("finish work of kind %q", w.Kind)
	}
	return fmt.Errorf("finish the %s work of pass %d: %w", w.Kind, w.Pass.ID, store.ErrClaimLost)
}

// pollTx is a poll's transaction whose commit is told to the pass.
type pollTx struct {
	store.PollTx
	commit func()
}

func (t *pollTx) Commit() error {
	if err := t.PollTx.Commit(); err != nil {
		return err
	}
	t.commit()
	return nil
}
