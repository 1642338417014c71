package pipeline

import (
	"context"
	"errors"
	"sync"

	"feeddigest/domain"
	"feeddigest/schedule"
)

// A pass on SQLite builds each due user's digest, and writes its pages
// and outbox email, as soon as every feed of the user that the pass polls
// has its poll saved (a poll saved with its group once the group is): the
// digest shows those feeds' entries and problems, and nothing later in
// the poll changes them. So most digests are done while the other users'
// feeds are still polled, rather than all after the poll. What a crash
// leaves is what a shared pass's leaves: digests built, perhaps not
// written, which the next run's render step writes; mail is sent at the
// end of the pass, as before.

// asPolled hands the due users whose feeds are saved to the goroutines
// that build and write their digests (see pass.digestAndPages).
type asPolled struct {
	p *pass
	// mu guards waiting and left: saves report from the saving goroutine,
	// the first ready users from the poll's start.
	mu sync.Mutex
	// waiting are, by the URL of a feed the pass polls, the due users (by
	// index in p.due) waiting for its save; left, by due user, how many of
	// their polled feeds are not saved yet.
	waiting map[string][]int
	left    []int
	ready   chan schedule.Due
	g       sync.WaitGroup
	errMu   sync.Mutex
	err     error
}

// startAsPolled starts one goroutine building and writing the digests of
// the due users as their feeds of polls are saved (see asPolled), and
// hands it those with none polled at once. One during the poll: the
// poll's parsing needs the cores more than the digests do.
func (p *pass) startAsPolled(ctx context.Context, polls []schedule.Poll) *asPolled {
	a := p.newAsPolled(polls)
	a.work(ctx, 1)
	return a
}

// newAsPolled is an asPolled for polls with no goroutine yet, the users
// with none of their feeds polled ready.
func (p *pass) newAsPolled(polls []schedule.Poll) *asPolled {
	a := &asPolled{p: p, waiting: map[string][]int{}, left: make([]int, len(p.due)),
		ready: make(chan schedule.Due, len(p.due))}
	polled := make(map[string]bool, len(polls))
	for _, poll := range polls {
		polled[poll.URL] = true
	}
	for i, d := range p.due {
		seen := map[string]bool{}
		for _, url := range d.Feeds {
			if polled[url] && !seen[url] {
				seen[url] = true
				a.waiting[url] = append(a.waiting[url], i)
				a.left[i]++
			}
		}
		if a.left[i] == 0 {
			a.ready <- d
		}
	}
	return a
}

// saved notes that the poll of the feed at url is saved, and hands over
// the users it was the last of. It never waits: ready holds every due
// user.
func (a *asPolled) saved(url string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, i := range a.waiting[url] {
		if a.left[i]--; a.left[i] == 0 {
			a.ready <- a.p.due[i]
		}
	}
	delete(a.waiting, url)
}

// work starts n goroutines taking ready users until ready is closed.
// After a failure the users are left to the steps after the poll, which
// fail alike.
func (a *asPolled) work(ctx context.Context, n int) {
	for range n {
		a.g.Add(1)
		go func() {
			defer a.g.Done()
			for d := range a.ready {
				if a.failed() || ctx.Err() != nil {
					continue
				}
				if err := a.p.digestAndPages(ctx, d); err != nil {
					a.errMu.Lock()
					a.err = errors.Join(a.err, err)
					a.errMu.Unlock()
				}
			}
		}()
	}
}

func (a *asPolled) failed() bool {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	return a.err != nil
}

// finish waits for the digests of the users handed over, written by as
// many goroutines as the pages of a pass are once the poll is over (see
// renderWorkers), and says what failed. The users whose feeds were not all
// saved (a save that failed) are left to buildDigests.
func (a *asPolled) finish(ctx context.Context) error {
	a.work(ctx, renderWorkers()-1)
	close(a.ready)
	a.g.Wait()
	return a.err
}

// digestAndPages builds the digest d, and writes the user's pages and
// outbox email.
func (p *pass) digestAndPages(ctx context.Context, d schedule.Due) error {
	if err := p.buildDigest(ctx, d); err != nil {
		return err
	}
	return p.renderUser(ctx, d.Name, p.namesOf(d.Feeds))
}

// noteNames keeps the names of the feeds as the pass read their records
// before the poll (see pass.names).
func (p *pass) noteNames(byURL map[string]*domain.Feed) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.names = make(map[string]feedInfo, len(byURL))
	for url, f := range byURL {
		p.names[url] = infoOf(*f)
	}
}

// noteName updates the name of a feed whose record a poll's save wrote,
// if the pass keeps names.
func (p *pass) noteName(f domain.Feed) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.names != nil {
		p.names[f.URL] = infoOf(f)
	}
}

// namesOf are the names kept of the feeds at urls (see pass.names), for a
// user whose feeds are all saved: their records do not change again in
// the pass.
func (p *pass) namesOf(urls []string) map[string]feedInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]feedInfo, len(urls))
	for _, url := range urls {
		if info, ok := p.names[url]; ok {
			out[url] = info
		}
	}
	return out
}
