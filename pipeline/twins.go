package pipeline

import (
	"cmp"
	"context"
	"slices"

	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/schedule"
	"feeddigest/store"
)

// One feed is sometimes known by several records: a user lists an old
// address that answers 301 onto the new one they list too, a web page
// and the feed it names, two addresses moved to one. Such records land
// on one URL (domain.Feed.Lands). A pass polls that URL once and saves
// what it read to each record, so that they stay the same (and each of
// their subscribers has the entries); a digest of a user who lists
// several shows the feed once (store.Repeats), under the first line
// (pages); `run` and `check` name the lines (config.SameFeed).

// withTwins adds to polls the records of feeds that land where a polled
// one does and are not polled yet (not gone or dead), polled for the
// same reason: they ride along, so that the pass polls the URL once for
// all of them (see twinsOf) and no record falls behind the others. feeds
// are the records the pass read, by URL.
func withTwins(polls []schedule.Poll, feeds map[string]*domain.Feed) []schedule.Poll {
	if len(polls) == 0 {
		return polls
	}
	byLands := make(map[string][]*domain.Feed, len(feeds))
	for _, f := range feeds {
		lands := f.Lands()
		byLands[lands] = append(byLands[lands], f)
	}
	for _, twins := range byLands {
		slices.SortFunc(twins, func(a, b *domain.Feed) int { return cmp.Compare(a.URL, b.URL) })
	}
	polled := make(map[string]bool, len(polls))
	for _, poll := range polls {
		polled[poll.URL] = true
	}
	out := polls
	for _, poll := range polls {
		f := feeds[poll.URL]
		if f == nil {
			continue
		}
		for _, twin := range byLands[f.Lands()] {
			if polled[twin.URL] || twin.State().Stopped() {
				continue
			}
			polled[twin.URL] = true
			out = append(out, schedule.Poll{URL: twin.URL, Why: poll.Why})
		}
	}
	return out
}

// claimHost is the host a planned poll of f is claimed by: where its
// poll goes, or, for a feed that shares the URL it lands on with another
// of the pass (shared), that URL's host, so that one claim holds them all
// and they are polled once.
func claimHost(f *domain.Feed, shared map[string]bool) string {
	if lands := f.Lands(); shared[lands] {
		return fetch.HostOf(lands)
	}
	return fetch.HostOf(f.PollURL())
}

// sharedLands are the URLs that several of the pass's polls land on.
func sharedLands(polls []schedule.Poll, feeds map[string]*domain.Feed) map[string]bool {
	seen := make(map[string]bool, len(polls))
	shared := map[string]bool{}
	for _, poll := range polls {
		if f := feeds[poll.URL]; f != nil {
			lands := f.Lands()
			shared[lands] = seen[lands]
			seen[lands] = true
		}
	}
	for lands, twice := range shared {
		if !twice {
			delete(shared, lands)
		}
	}
	return shared
}

// twinsOf gathers a claimed host's feeds by the URL they land on, in
// their order: a group of one is a feed polled as ever; a larger one is
// polled once, by its first (see pollFirst), and saved to each.
func twinsOf(feeds []store.ClaimedFeed, articles map[string]int) [][]store.ClaimedFeed {
	var groups [][]store.ClaimedFeed
	at := make(map[string]int, len(feeds))
	for _, cf := range feeds {
		lands := cf.Feed.Lands()
		i, ok := at[lands]
		if !ok {
			at[lands] = len(groups)
			groups = append(groups, []store.ClaimedFeed{cf})
			continue
		}
		groups[i] = append(groups[i], cf)
	}
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b store.ClaimedFeed) int { return pollFirst(a.Feed, b.Feed, articles) })
	}
	return groups
}

// pollFirst orders the records of one feed for its poll: first the one
// whose own address is the URL they land on (no redirect to follow),
// then the one asking for the most whole articles (its poll asks for
// them, for all), then the lowest ID.
func pollFirst(a, b domain.Feed, articles map[string]int) int {
	direct := func(f domain.Feed) bool {
		n, err := domain.NormalizeFeedURL(f.PollURL())
		return err == nil && n == f.Lands()
	}
	if da, db := direct(a), direct(b); da != db {
		if da {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(articles[b.URL], articles[a.URL]); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// twinRequest is the feed record whose poll is sent for a group of
// records of one feed, its first: as it is when all hold the same
// validators and body hash, else without them, so that the answer is the
// whole body, which tells each record what it lacks (a 304 to one
// record's validators says nothing of another's).
func twinRequest(twins []store.ClaimedFeed) domain.Feed {
	f := twins[0].Feed
	for _, cf := range twins[1:] {
		o := cf.Feed
		if o.ETag != f.ETag || o.LastModified != f.LastModified || o.BodyHash != f.BodyHash || o.BodyError != f.BodyError {
			f.ETag, f.LastModified, f.BodyHash, f.BodyError = "", "", "", ""
			break
		}
	}
	return f
}

// ridingAlong is a poll's result as saved to another record of the same
// feed: the same answer, with entries of its own (their fragments are
// made for that record), and no requests or bytes, which the first
// record's save counts.
func ridingAlong(res fetch.Result) fetch.Result {
	res.Requests, res.Bytes = 0, 0
	if res.Feed != nil {
		feed := *res.Feed
		feed.Entries = slices.Clone(feed.Entries)
		res.Feed = &feed
	}
	return res
}

// sameFeeds are the warnings of the config's lines that lead to the same
// feed as an earlier line of their user's (config.SameFeeds), as the
// records of the feeds this run planned the pass for stand after its
// polls, which find the redirects; none for a run that joined a pass
// another planned.
func (p *pass) sameFeeds(ctx context.Context) ([]string, error) {
	var urls []string
	seen := map[string]bool{}
	add := func(feeds []string) {
		for _, url := range feeds {
			if !seen[url] {
				seen[url] = true
				urls = append(urls, url)
			}
		}
	}
	for _, d := range p.due {
		add(d.Feeds)
	}
	for _, d := range p.daily {
		add(d.Feeds)
	}
	if len(urls) == 0 {
		return nil, nil
	}
	records, err := p.rd.FeedsAt(ctx, urls)
	if err != nil {
		return nil, err
	}
	lands := make(map[string]string, len(records))
	for _, f := range records {
		lands[f.URL] = f.Lands()
	}
	return p.cfg.SameFeeds(func(url string) string { return lands[url] }), nil
}
