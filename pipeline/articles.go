package pipeline

import (
	"context"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/internal/redact"
	"feeddigest/parse"
	"feeddigest/parse/article"
)

// Whole articles for teaser feeds (full_text = true): after a feed's
// poll, before its save, the pages of its new entries are fetched, at
// most full_entries a poll, through the pass's one client (so under the
// same per-host slots and rate as the feed polls, the same address
// check, timeout, size limit and User-Agent), and each article found
// becomes the entry's content, made into its fragments like any feed's
// text. Only the pages of entries some digest may show are fetched (a
// first digest leaves a feed's older entries out). The pages are claimed
// in the state before the first is asked for, and each is counted as
// asked for just before its request (store.Store.ClaimArticles and
// AskArticle, then ArticleAnswered once its answer came): the claims of a
// run killed among them are taken over by the next poll of the feed,
// which asks for the pages again, except one whose asking was cut short
// store.ArticleTries times in a row (a page that kills the process),
// whose entry keeps the feed's own text. The feed is
// saved, and so the digests waiting for it built, only once its articles
// are settled. A page that fails, is not HTML or holds no article keeps
// the feed's own text, and is no problem of the feed's.

// articleLimits says, per feed URL, how many new entries' pages a poll
// fetches: the most any subscriber with full_text asks for.
func articleLimits(cfg *config.Config) map[string]int {
	limits := map[string]int{}
	for _, u := range cfg.Users {
		for _, s := range u.Feeds {
			if n := s.ArticlesAPoll(u); n > limits[s.URL] {
				limits[s.URL] = n
			}
		}
	}
	return limits
}

// testHookArticle, set only in a build for tests (see killfeed.go), is
// called as an article page is about to be asked for, its asking
// counted.
var testHookArticle func(pageURL string)

// wholeArticles replaces the texts of a fresh poll's new entries by their
// articles, counts the requests in the poll's result, and notes on the
// feed's record how many pages it asked for and how many held an article
// (kept from an earlier poll when this one asks for none; 0 and 0 once
// the feed is no longer full_text), which `status` shows. Its error is
// the state's (a claim that could not be recorded), never a page's.
func (w *worker) wholeArticles(ctx context.Context, f *domain.Feed, res *fetch.Result) error {
	p := w.pass
	limit := p.articles[f.URL]
	if limit <= 0 {
		f.ArticlesAsked, f.ArticlesRead = 0, 0
		return nil
	}
	if res.Outcome != fetch.OutcomeFresh || res.Feed == nil || len(res.Feed.Entries) == 0 {
		return nil
	}
	keys, err := p.st.ClaimArticles(ctx, f.ID, res.Feed.Entries, limit, p.opts.Now)
	if err != nil || len(keys) == 0 {
		return err
	}
	claimed := make(map[string]bool, len(keys))
	for _, k := range keys {
		claimed[k] = true
	}
	asked, read := 0, 0
	for i := range res.Feed.Entries {
		e := &res.Feed.Entries[i]
		if !claimed[e.Key] {
			continue
		}
		delete(claimed, e.Key) // a key listed twice is asked for once
		ok, err := w.wholeArticle(ctx, f.ID, e, res)
		if err != nil {
			return err
		}
		asked++
		if ok {
			read++
		}
	}
	f.ArticlesAsked, f.ArticlesRead = asked, read
	return nil
}

// wholeArticle fetches an entry's page and, when it holds an article,
// makes it the entry's content, and says so; only an interruption, or
// the state's failing to count the asking, is an error.
func (w *worker) wholeArticle(ctx context.Context, feedID int64, e *domain.Entry, res *fetch.Result) (bool, error) {
	if err := w.pass.st.AskArticle(ctx, feedID, e.Key); err != nil {
		return false, err
	}
	if testHookArticle != nil {
		testHookArticle(e.Link)
	}
	page, err := w.client.Page(ctx, e.Link)
	res.Requests += page.Requests
	res.Bytes += page.Bytes
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	html := ""
	if err == nil {
		html, err = article.Extract(parse.PageUTF8(page.Body, page.ContentType), page.URL)
	}
	// Answered and read: a page whose reading kills the process is cut
	// short as much as one whose request does.
	if err := w.pass.st.ArticleAnswered(ctx, feedID, e.Key); err != nil {
		return false, err
	}
	p := w.pass
	p.mu.Lock()
	p.sum.Articles++
	if err == nil {
		p.sum.ArticlesRead++
	}
	p.mu.Unlock()
	if err != nil {
		p.opts.Log.Info("article not read: the feed's own text stays", "page", redact.URL(e.Link), "error", err)
		return false, nil
	}
	e.Content = html
	return true, nil
}
