package fetch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"feeddigest/parse"
)

// Following the feed an HTML page announces (parse.Parsed.FeedLinks):
// one more request in the same poll, never a second page.
var (
	// ErrPageNamesItself means an HTML page whose announced feed is the
	// page itself.
	ErrPageNamesItself = fmt.Errorf("%w: an HTML page naming itself as its feed", parse.ErrNotFeed)
	// ErrLinkToPage means the feed a page announced is another HTML page.
	ErrLinkToPage = fmt.Errorf("%w: the feed link leads to another HTML page", parse.ErrNotFeed)
)

// pollDiscovered GETs the feed a page announced. The stored validators and
// hash go with it, because they are the feed's: a Result of a discovery
// carries the feed's, never the page's, so that polling the page URL again
// (before the caller switches to DiscoveredURL) still asks the feed whether
// it changed. What the page's answer said (validators, freshness) is about
// the page and is dropped; only the request count and bytes add up.
func (c *Client) pollDiscovered(ctx context.Context, req Request, now time.Time, res *Result, page *fetchedBody, feedURL string) {
	if feedURL == page.url.String() || feedURL == req.URL {
		res.brokenBody(page.hash, ErrPageNamesItself)
		return
	}
	feedReq := req
	feedReq.URL = feedURL
	sub := newResult(req)
	sub.RefusesHEAD = res.RefusesHEAD
	if body := c.download(ctx, feedReq, now, &sub, headSkipped); body != nil {
		c.readDiscovered(ctx, feedReq, &sub, body)
	}
	sub.Requests += res.Requests
	sub.Bytes += res.Bytes
	if sub.Err != nil {
		sub.Err = fmt.Errorf("feed %s announced by the page: %w", feedURL, sub.Err)
	} else {
		sub.DiscoveredURL = feedURL
		if sub.PermanentURL != "" {
			sub.DiscoveredURL = sub.PermanentURL
		}
	}
	// PermanentURL speaks of the polled URL, the page.
	sub.PermanentURL, sub.OriginChanged = "", false
	if sub.Err == nil {
		sub.notePermanentRedirect(req, page.trace)
	}
	*res = sub
}

// readDiscovered parses the body of a feed a page announced, in the
// parse turn its download took. The poll was recorded before the page was read.
func (c *Client) readDiscovered(ctx context.Context, req Request, res *Result, body *fetchedBody) {
	defer body.release()
	parsed, err := parse.Read(body.body, body.contentType, body.url)
	if parsed.Page || errors.Is(err, parse.ErrPageWithoutFeed) || errors.Is(err, parse.ErrUnreadablePage) {
		// No second round of discovery: a page linking to a page is a
		// broken link, not a trail to follow.
		res.brokenBody(body.hash, ErrLinkToPage)
		return
	}
	res.readBody(req, body, parsed.Feed, err)
}
