package pages

import (
	"context"
	"net/url"

	"feeddigest/config"
	"feeddigest/domain"
)

// FeedNames is what the pages show of each feed (its name, site and
// language), by URL: read once for many pages, or as they need it.
type FeedNames map[string]feedInfo

type feedInfo struct {
	name, site, lang string
	titled           bool // the feed named itself: name is not its host
	// lands is where its polls land (domain.Feed.Lands): two lines of a
	// user's whose feeds land on one URL are one feed.
	lands string
}

// storedFeeds reads the feed records once after the poll, for the pages
// and the status page: nothing later in the pass changes them.
func (b *Builder) storedFeeds(ctx context.Context) ([]domain.Feed, error) {
	if b.feeds != nil {
		return b.feeds, nil
	}
	feeds, err := b.rd.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	b.feeds = feeds
	return feeds, nil
}

func (b *Builder) feedNames(ctx context.Context) (FeedNames, error) {
	feeds, err := b.storedFeeds(ctx)
	if err != nil {
		return nil, err
	}
	return infosByURL(feeds), nil
}

// infosByURL is what the pages show of each of feeds, by URL.
func infosByURL(feeds []domain.Feed) FeedNames {
	out := make(FeedNames, len(feeds))
	for _, f := range feeds {
		out[f.URL] = infoOf(f)
	}
	return out
}

// infoOf is what the pages show of the feed of record f.
func infoOf(f domain.Feed) feedInfo {
	return feedInfo{name: feedName(f), site: f.SiteURL, lang: f.Language, titled: f.Title != "", lands: f.Lands()}
}

func feedName(f domain.Feed) string {
	if f.Title != "" {
		return f.Title
	}
	if u, err := url.Parse(f.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return f.URL
}

// lookUpNames adds to feeds, in one question, what the pages show of
// the feeds that d shows and of u's feeds (which of them are one feed,
// see underFirstLine), unless feeds has them already: a shared pass
// reads only the records its pages need.
func (b *Builder) lookUpNames(ctx context.Context, feeds FeedNames, d domain.Digest, u config.User, entries []domain.Entry) error {
	var missing []string
	asked := map[string]bool{}
	want := func(url string) {
		if _, ok := feeds[url]; !ok && !asked[url] {
			asked[url] = true
			missing = append(missing, url)
		}
	}
	for _, e := range entries {
		want(e.FeedURL)
	}
	for _, n := range d.Notices {
		want(n.FeedURL)
	}
	for _, pr := range d.Problems {
		want(pr.FeedURL)
	}
	for _, s := range u.Feeds {
		want(s.URL)
	}
	if len(missing) == 0 {
		return nil
	}
	records, err := b.rd.FeedsAt(ctx, missing)
	if err != nil {
		return err
	}
	for _, f := range records {
		feeds[f.URL] = infoOf(f)
	}
	for _, url := range missing {
		if _, ok := feeds[url]; !ok { // no record: named by its address
			feeds[url] = infoOf(domain.Feed{URL: url})
		}
	}
	return nil
}
