package pages

import (
	"context"
	"slices"
	"sync/atomic"

	"feeddigest/domain"
	"feeddigest/render"
)

// listingsAhead is how many feeds' listings a page's prefetch reads ahead
// of its writer (see prefetchListings): a few feeds' entries held.
const listingsAhead = 4

// A listing's state in a prefetch.
const (
	listingWaiting  = iota // neither read nor asked for
	listingReading         // read by the prefetch (done closes when read)
	listingAskedFor        // asked for before the prefetch came to it
)

// prefetched is one feed's listing read ahead of the page's writer.
type prefetched struct {
	state   atomic.Int32
	done    chan struct{}
	entries []domain.Entry
	err     error
}

// prefetchListings makes the page of rd read each feed's listing (see
// renderDigest) in a goroutine, in the order the page shows the feeds,
// listingsAhead at most before the page asks for them: the state's reads
// go on beside the sanitising and writing of the feeds before, instead of
// in turn with them (the page of 20,000 entries: 2,000 reads). A feed
// asked for before the goroutine came to it, or again, is read as it is
// asked for, as renderDigest reads it. stop ends the goroutine, and must
// be called once the page is written.
func (b *Builder) prefetchListings(ctx context.Context, rd *render.Digest) (stop func()) {
	if slices.ContainsFunc(rd.Groups, func(g render.FeedGroup) bool { return g.Listed == nil }) {
		// Read whole (see renderDigest): nothing to read ahead. A feed
		// without a listing is shown from its Entries.
		return func() {}
	}
	byURL := make(map[string]*prefetched, len(rd.Groups))
	for _, g := range rd.Groups {
		byURL[g.FeedURL] = &prefetched{done: make(chan struct{})}
	}
	slots := make(chan struct{}, listingsAhead)
	quit, finished := make(chan struct{}), make(chan struct{})
	user, date := rd.User, rd.Date
	order := render.InFolderOrder(rd.Groups) // before Listed is replaced
	go func() {
		defer close(finished)
		for _, g := range order {
			select {
			case slots <- struct{}{}:
			case <-quit:
				return
			}
			f := byURL[g.FeedURL]
			if !f.state.CompareAndSwap(listingWaiting, listingReading) {
				<-slots // asked for already: read by the page itself
				continue
			}
			f.entries, f.err = b.rd.DigestFeedListing(ctx, user, date, g.FeedURL, b.perFeed())
			close(f.done)
		}
	}()
	for i := range rd.Groups {
		f, read := byURL[rd.Groups[i].FeedURL], rd.Groups[i].Listed
		rd.Groups[i].Listed = func(yield func(domain.Entry, error) bool) {
			// Not come to yet (the goroutine leaves it), or asked for
			// again: read here.
			if f.state.CompareAndSwap(listingWaiting, listingAskedFor) ||
				!f.state.CompareAndSwap(listingReading, listingAskedFor) {
				read(yield)
				return
			}
			<-f.done
			entries, err := f.entries, f.err
			f.entries = nil // not held once shown
			<-slots
			yieldAll(entries, err, yield)
		}
	}
	return func() {
		close(quit)
		<-finished
	}
}

// yieldAll gives entries to yield, or err.
func yieldAll(entries []domain.Entry, err error, yield func(domain.Entry, error) bool) {
	if err != nil {
		yield(domain.Entry{}, err)
		return
	}
	for _, e := range entries {
		if !yield(e, nil) {
			return
		}
	}
}
