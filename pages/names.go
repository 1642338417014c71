package pages

import (
	"context"
	"errors"
	"net/url"

	"feeddigest/domain"
	"feeddigest/store"
)

// FeedNames is what the pages show of each feed (its name, site and
// language), by URL: read once for many pages, or as they need it.
type FeedNames map[string]feedInfo

type feedInfo struct {
	name, site, lang string
	titled           bool // the feed named itself: name is not its host
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
	return feedInfo{name: feedName(f), site: f.SiteURL, lang: f.Language, titled: f.Title != ""}
}

// lookUpName adds the name of the feed at url to feeds, unless it is
// there: a shared pass reads only the names its pages show.
func (b *Builder) lookUpName(ctx context.Context, feeds FeedNames, url string) error {
	if _, ok := feeds[url]; ok {
		return nil
	}
	f, err := b.rd.Feed(ctx, url)
	if errors.Is(err, store.ErrNoFeed) {
		f, err = domain.Feed{URL: url}, nil
	}
	feeds[url] = infoOf(f)
	return err
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

// lookUpNames adds to feeds the names of the feeds that d shows (see
// lookUpName).
func (b *Builder) lookUpNames(ctx context.Context, feeds FeedNames, d domain.Digest, entries []domain.Entry) error {
	for _, e := range entries {
		if err := b.lookUpName(ctx, feeds, e.FeedURL); err != nil {
			return err
		}
	}
	for _, n := range d.Notices {
		if err := b.lookUpName(ctx, feeds, n.FeedURL); err != nil {
			return err
		}
	}
	for _, pr := range d.Problems {
		if err := b.lookUpName(ctx, feeds, pr.FeedURL); err != nil {
			return err
		}
	}
	return nil
}
