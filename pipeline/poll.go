package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/ingest"
	"feeddigest/internal/redact"
	"feeddigest/schedule"
	"feeddigest/store"
)

// savePoll saves a poll of a claimed host: on its own, at once, or,
// when it may wait (see groupable), with the unchanged polls waiting,
// saveGroupSize at a time.
func (w *worker) savePoll(ctx context.Context, r polled) error {
	if w.group.together && groupable(r) {
		if full := w.group.add(r); full != nil {
			return w.saveTogether(ctx, full)
		}
		return nil
	}
	ok, err := w.pass.save(ctx, r)
	w.progress(r, ok)
	if err != nil {
		return fmt.Errorf("save the poll of %s: %w", redact.URL(r.feed.URL), err)
	}
	return nil
}

// saveWaiting saves the unchanged polls waiting to be saved together,
// and says whether there were any.
func (w *worker) saveWaiting(ctx context.Context) (bool, error) {
	waiting := w.group.take()
	return len(waiting) > 0, w.saveTogether(ctx, waiting)
}

// saveGroup saves the unchanged polls waiting, if any.
func (w *worker) saveGroup(ctx context.Context) error {
	_, err := w.saveWaiting(ctx)
	return err
}

// saveGroupSize is how many unchanged polls are saved in one transaction. A
// crash loses at most these, which are polled again.
const saveGroupSize = 100

// groupable says whether a poll may wait to be saved with others (see
// saveGroupSize): an unchanged feed (a 304) whose attempt mark was never set
// (see store.Store.BeginAttempt), so that a crash before its save leaves
// its feed due again, as if it had never been polled, and not a poll
// that seems to have killed the run; not a failure, whose back-off and
// Retry-After a crash must not lose; and not a feed a dead run left
// unfinished, read again alone: the pass hands that one out until its
// save marks it done, so a save put off would have it asked again.
func groupable(r polled) bool {
	return !r.marked && r.res.Outcome == fetch.OutcomeUnchanged &&
		(r.res.Feed == nil || len(r.res.Feed.Entries) == 0) &&
		(r.claim == nil || len(r.claim.Unfinished) == 0)
}

// unchangedGroup holds the unchanged polls that wait to be saved
// together, when the coordinator counts such saves as the feeds done in
// the pass (see savesTogether); otherwise every poll is saved under its
// claim, at once.
type unchangedGroup struct {
	together bool
	mu       sync.Mutex
	polls    []polled
}

// add adds a poll to the group, and returns the group once it is full.
func (g *unchangedGroup) add(r polled) []polled {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.polls = append(g.polls, r)
	if len(g.polls) < saveGroupSize {
		return nil
	}
	full := g.polls
	g.polls = nil
	return full
}

// take empties the group.
func (g *unchangedGroup) take() []polled {
	g.mu.Lock()
	defer g.mu.Unlock()
	polls := g.polls
	g.polls = nil
	return polls
}

// savesTogether says whether co counts a feed record written by
// UpdateFeeds as its poll done in the pass (the in-process coordinator:
// its run is the only one saving), so that unchanged polls may wait to be
// saved together. A shared pass's coordinator marks each feed done by its
// own save, under the claim.
func savesTogether(co store.Coordinator) bool {
	c, ok := co.(interface{ CountsPlainSaves() bool })
	return ok && c.CountsPlainSaves()
}

// progress reports a saved poll; ok says whether the poll succeeded.
func (w *worker) progress(r polled, ok bool) {
	p := w.pass
	p.mu.Lock()
	defer p.mu.Unlock()
	w.done++
	if !ok {
		w.failed++
	}
	p.opts.Progress(Event{Kind: EventPolled, Total: w.ps.Feeds, Done: w.done, Failed: w.failed, Detail: redact.URL(r.feed.URL)})
}

// saveTogether saves unchanged polls in one transaction (see groupable).
func (w *worker) saveTogether(ctx context.Context, group []polled) error {
	if len(group) == 0 {
		return nil
	}
	p := w.pass
	records := make([]domain.Feed, len(group))
	for i, r := range group {
		records[i] = p.nextRecord(r.feed, r.res, store.SaveStats{}, r.feed.Polls == 0)
	}
	err := p.st.UpdateFeeds(ctx, records)
	for _, r := range group {
		if err != nil {
			// Counted as save counts a poll it could not save.
			p.mu.Lock()
			p.countPoll(r.res)
			p.mu.Unlock()
			w.progress(r, false)
			continue
		}
		w.progress(r, p.account(r, nil, store.SaveStats{}))
	}
	if err != nil {
		return fmt.Errorf("save %d unchanged polls: %w", len(group), err)
	}
	return nil
}

// choosePolls decides what the pass polls (the due users' feeds whose
// next poll has come, and the extra polls), shuffled and spread over
// hosts, with the feed records by URL.
func (p *pass) choosePolls(ctx context.Context) ([]schedule.Poll, map[string]*domain.Feed, error) {
	feeds, err := p.feedsToPlan(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Pointers into feeds, not copies: tens of thousands of records.
	byURL := make(map[string]*domain.Feed, len(feeds))
	states := make(map[string]schedule.FeedState, len(feeds))
	for i, f := range feeds {
		byURL[f.URL] = &feeds[i]
		if f.Polls == 0 && f.ErrorCount == 0 && f.LastPoll.IsZero() {
			continue // never polled: no state to respect yet
		}
		states[f.URL] = feedState(f)
	}
	polls := schedule.FeedsToPoll(p.due, p.daily, states, p.opts.Now)
	polls = withTwins(polls, byURL)
	schedule.Shuffle(polls, p.opts.Rand)
	// A user at a time, so that most users' digests are built while the
	// poll goes on (see work.go); spread by host all the same.
	schedule.UsersInTurn(polls, p.due)
	// Then round-robin over hosts, in that order within each: a worker
	// never queues behind a host whose token bucket is spent while other
	// hosts wait (the 2000-feed benchmark: 9 s shuffled, 6.4 s spread).
	polls = fetch.SpreadByHost(polls, func(poll schedule.Poll) string { return byURL[poll.URL].PollURL() })
	return polls, byURL, nil
}

// feedsToPlan reads the records choosePolls needs: those of the due
// users' feeds and of the feeds whose retry or extra poll has come (a
// shared pass's planner reads no more while the other runs wait), or
// more.
func (p *pass) feedsToPlan(ctx context.Context) ([]domain.Feed, error) {
	var urls []string
	for _, d := range p.due {
		urls = append(urls, d.Feeds...)
	}
	for _, d := range p.daily {
		urls = append(urls, d.Feeds...)
	}
	return p.st.FeedsToPlan(ctx, urls, p.opts.Now)
}

type polled struct {
	feed domain.Feed
	why  schedule.Why
	res  fetch.Result
	// claim is the host claimed (nil: a poll saved before the pass is
	// planned, see settleUnfinishedPolls): the save marks the feed done
	// in the pass, if the claim still holds.
	claim *store.Work
	// marked says the poll set its attempt mark (it read a body).
	marked bool
}

// pollFeed polls one feed. A body is read only once the poll is recorded
// (see store.Store.BeginAttempt): a run that dies reading it is known to
// the next, which reads it again after the others, alone. marked says
// whether the poll was recorded so; stateErr, that it could not be (the
// state failed, not the feed: the poll is dropped, and the pass ends).
func (p *pass) pollFeed(ctx context.Context, client *fetch.Client, f domain.Feed) (res fetch.Result, marked bool, stateErr error) {
	fetched := client.Fetch(ctx, pollRequest(f), p.opts.Now)
	if fetched.BodyWaiting() {
		if err := p.st.BeginAttempt(ctx, f.ID, p.opts.Now); err != nil {
			fetched.Abandon(err)
			if ctx.Err() != nil {
				return fetch.Result{}, false, nil // interrupted: not the state's failure either
			}
			return fetch.Result{}, false, err
		}
		marked = true
		if testHookReading != nil {
			testHookReading(f.URL)
		}
	}
	return client.Read(ctx, fetched), marked, nil
}

// testHookReading, set only in a build for tests (see killfeed.go), is
// called as a body is about to be read.
var testHookReading func(feedURL string)

// makeFragments makes the fragments of the entries a poll read (see
// ingest.MakeFragments), which are stored with them.
func makeFragments(f domain.Feed, res fetch.Result) {
	if res.Feed == nil {
		return
	}
	for i := range res.Feed.Entries {
		res.Feed.Entries[i].Fragments = ingest.MakeFragments(f.URL, res.Feed.Entries[i])
	}
}

func (p *pass) startDelay(ctx context.Context) error {
	lo, hi := p.cfg.Fetch.StartDelayMin, p.cfg.Fetch.StartDelayMax
	if hi <= 0 {
		return nil
	}
	d := lo
	if hi > lo {
		d += time.Duration(p.opts.Rand.Int64N(int64(hi - lo)))
	}
	p.opts.Log.Info("start delay", "wait", d)
	return p.opts.Sleep(ctx, d)
}

func pollRequest(f domain.Feed) fetch.Request {
	return fetch.Request{
		URL: f.PollURL(), ETag: f.ETag, LastModified: f.LastModified, BodyHash: f.BodyHash,
		BodyError: f.BodyError, TTL: f.TTL, Answers304: f.Answers304, RefusesHEAD: f.RefusesHEAD,
		IgnoresConditional: f.IgnoresConditional, Distrust: f.Distrust, LastGet: f.LastGet,
	}
}

func feedState(f domain.Feed) schedule.FeedState { return schedule.StateOf(f) }

// save stores one poll's result; ok says whether the poll succeeded.
func (p *pass) save(ctx context.Context, r polled) (bool, error) {
	var entries []domain.Entry
	if r.res.Feed != nil {
		entries = uniqueEntries(r.res.Feed.Entries)
	}
	stats, err := p.record(ctx, r.claim, r.feed, r.res, entries)
	if err != nil {
		p.mu.Lock()
		p.countPoll(r.res)
		p.mu.Unlock()
		return false, err
	}
	return p.account(r, entries, stats), nil
}

// countPoll counts a poll in the summary; p.mu held.
func (p *pass) countPoll(res fetch.Result) {
	p.sum.FeedsPolled++
	p.sum.Requests += res.Requests
	p.sum.Bytes += res.Bytes
}

// account counts and logs a saved poll; ok says whether it succeeded.
func (p *pass) account(r polled, entries []domain.Entry, stats store.SaveStats) (ok bool) {
	res := r.res
	p.mu.Lock()
	defer p.mu.Unlock()
	p.countPoll(res)
	p.sum.NewEntries += stats.New
	shown := redact.URL(r.feed.URL) // logs and the summary end up in CI
	log := p.opts.Log.With("feed", shown, "why", string(r.why), "status", res.Status, "requests", res.Requests)
	switch res.Outcome {
	case fetch.OutcomeFresh:
		p.sum.Fresh++
		log.Info("polled", "entries", len(entries), "new", stats.New)
	case fetch.OutcomeUnchanged:
		p.sum.Unchanged++
		log.Info("unchanged")
	case fetch.OutcomeGone:
		p.sum.Failed++
		log.Info("feed gone (410): no longer polled")
		p.sum.FeedErrors = append(p.sum.FeedErrors, fmt.Sprintf("%s: gone (410)", shown))
		return false
	default:
		p.sum.Failed++
		log.Info("poll failed", "error", res.Err)
		p.sum.FeedErrors = append(p.sum.FeedErrors, fmt.Sprintf("%s: %s", shown, PollErrorText(res.Err)))
		return false
	}
	return true
}

// uniqueEntries drops the repeats of a feed listing one entry twice.
func uniqueEntries(in []domain.Entry) []domain.Entry {
	out := make([]domain.Entry, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, e := range in {
		if !seen[e.Key] {
			seen[e.Key] = true
			out = append(out, e)
		}
	}
	return out
}

// record saves a poll in one transaction: its entries, then the feed
// record made of what the save found (overflow detection needs it),
// written last so that a crash before the commit leaves the feed due
// again, never marked done without its entries.
func (p *pass) record(ctx context.Context, claim *store.Work, f domain.Feed, res fetch.Result, entries []domain.Entry) (store.SaveStats, error) {
	var tx store.PollTx
	var err error
	if claim != nil {
		tx, err = p.st.BeginPassPoll(ctx, *claim, f.ID)
	} else {
		tx, err = p.st.BeginPoll(ctx, f.ID)
	}
	if err != nil {
		return store.SaveStats{}, err
	}
	defer tx.Rollback()
	save := tx.SaveEntries
	if res.Partial {
		// A delta: the entries it leaves out are still the feed's.
		save = tx.SavePartial
	}
	stats, err := save(ctx, entries, p.opts.Now, p.cfg.MaxEntriesPerFeed)
	if err != nil {
		return store.SaveStats{}, err
	}
	rec := p.nextRecord(f, res, stats, f.Polls == 0)
	if err := tx.UpdateFeed(ctx, rec); err != nil {
		return store.SaveStats{}, err
	}
	if err := tx.Commit(); err != nil {
		return store.SaveStats{}, err
	}
	return stats, nil
}

// nextRecord is the feed record after a poll: what was learned, the
// validators, and the schedule's verdict on the next poll.
func (p *pass) nextRecord(f domain.Feed, res fetch.Result, saved store.SaveStats, firstPoll bool) domain.Feed {
	now := p.opts.Now
	f.LastStatus = res.Status
	f.Answers304, f.RefusesHEAD, f.IgnoresConditional = res.Answers304, res.RefusesHEAD, res.IgnoresConditional
	// What a poll showed of the validators only adds up, and the time of
	// the last GET only moves on: a result made without a poll (a run
	// that died in it) says nothing of either.
	f.Distrust = f.Distrust.Or(res.Distrust)
	if res.LastGet.After(f.LastGet) {
		f.LastGet = res.LastGet
	}
	outcome := schedule.Outcome{Class: classOf(res), Status: res.Status, RetryAfter: res.RetryAfter,
		Hint: res.Hint, HintSource: res.HintSource, FirstPoll: firstPoll}
	if res.Err == nil {
		f.LastError, f.LastSuccess = "", now
		f.ETag, f.LastModified = res.ETag, res.LastModified
		f.Polls++
		// Unchanged counts too: a feed that moved as it was (same body, or
		// a 304 at the new URL) moves at once, not at its next new post.
		p.notePermanentRedirect(&f, res)
	} else {
		f.LastError = PollErrorText(res.Err)
	}
	if res.ValidatorsDropped {
		// A conditional request was refused for its validators: they are
		// forgotten, whatever the poll's outcome.
		f.ETag, f.LastModified = res.ETag, res.LastModified
	}
	if res.BodyError != "" {
		// A body that is not a usable feed: its validators and hash are
		// kept all the same, so the next poll asks whether it changed.
		f.ETag, f.LastModified, f.BodyHash = res.ETag, res.LastModified, res.BodyHash
	}
	f.BodyError = res.BodyError
	if feed := res.Feed; feed != nil {
		outcome.Entries, outcome.New = saved.New+saved.Known, saved.New
		if feed.Title != "" {
			f.Title = feed.Title
		}
		if feed.SiteURL != "" {
			f.SiteURL = feed.SiteURL
		}
		f.TTL = feed.TTL
		f.Repaired = feed.Repaired
		f.Language = feed.Language
		if !res.Partial {
			f.BodyHash = res.BodyHash
		}
	}
	f.Schedule = p.opts.Policy.Next(f.Schedule, outcome, now, p.salt)
	if res.Err != nil {
		// As a code, worded by each digest in its reader's language: what
		// went wrong, and since when (a 410 at once has no run of
		// errors). The words an older version kept go: they were of an
		// earlier failure.
		f.ProblemCode, f.Problem, f.ProblemAt, f.ProblemSince = res.Problem(), "", now, f.FirstError
		if f.ProblemSince.IsZero() {
			f.ProblemSince = now
		}
	}
	return f
}

func (p *pass) notePermanentRedirect(f *domain.Feed, res fetch.Result) {
	if res.DiscoveredURL != "" && res.DiscoveredURL != f.PollURL() {
		// The subscribed URL was a web page naming its feed: poll the feed
		// itself from now on, one request instead of two.
		f.MovedFrom, f.EffectiveURL, f.MovedAt = f.PollURL(), res.DiscoveredURL, p.opts.Now
		return
	}
	if res.PermanentURL == "" || res.PermanentURL == f.PollURL() {
		return
	}
	if res.OriginChanged {
		if f.PendingURL != res.PermanentURL {
			f.PendingURL, f.OriginFlagAt = res.PermanentURL, p.opts.Now
		}
		return
	}
	f.MovedFrom, f.EffectiveURL, f.MovedAt = f.PollURL(), res.PermanentURL, p.opts.Now
}

func classOf(res fetch.Result) schedule.Class {
	switch res.Outcome {
	case fetch.OutcomeFresh:
		return schedule.Fresh
	case fetch.OutcomeUnchanged:
		return schedule.Unchanged
	case fetch.OutcomeGone:
		return schedule.Gone
	case fetch.OutcomeNetError:
		return schedule.Transient
	case fetch.OutcomeBroken:
		return schedule.Broken
	}
	switch s := res.Status; {
	case s == 404:
		return schedule.NotFound
	case s == 429 || (s == 503 && !res.RetryAfter.IsZero()):
		return schedule.RateLimited
	case s >= 500:
		return schedule.ServerError
	}
	return schedule.Broken
}

// salt is the random salt of computed deadlines; the claim loops save
// polls from many goroutines, and a rand.Rand is not safe for that.
func (p *pass) salt(d time.Duration) time.Duration {
	p.randMu.Lock()
	defer p.randMu.Unlock()
	return schedule.RandomSalt(p.opts.Rand)(d)
}
