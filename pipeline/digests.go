package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/mail"
	"feeddigest/render"
	"feeddigest/site"
	"feeddigest/store"
)

// render writes the pages (and outbox files) of every digest not written
// yet, the index and Atom feed of their users, and the status page.
func (p *pass) render(ctx context.Context) error {
	pending, err := p.st.Unrendered(ctx)
	if err != nil {
		return err
	}
	// Every feed's name at once for a pass that writes pages; read as
	// they are needed when none is pending (the end of a shared pass,
	// whose pages their digests' runs wrote).
	feeds := map[string]feedInfo{}
	if len(pending) > 0 {
		if feeds, err = p.feedNames(ctx); err != nil {
			return err
		}
	}
	pub := site.New(p.cfg.SiteDir, p.cfg.Email.Outbox)
	if err := pub.Favicon(); err != nil {
		return err
	}
	byUser := map[string][]domain.Digest{}
	for _, d := range pending {
		byUser[d.User] = append(byUser[d.User], d) // oldest first still
	}
	// The users' pages are written side by side: the poll is over, the
	// cores are free, and pages and emails are mostly template work.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(renderWorkers())
	for _, u := range p.cfg.Users {
		mine := byUser[u.Name]
		if len(mine) == 0 && pub.HasUserIndex(u.Name) {
			continue
		}
		g.Go(func() error {
			// Each its own names: a name looked up is added to them.
			names := maps.Clone(feeds)
			written, err := p.writePending(gctx, pub, mine, names)
			if err != nil {
				return err
			}
			if w, ok := written[u.Name]; ok || !pub.HasUserIndex(u.Name) {
				return p.writeUserIndex(gctx, pub, u, names, w)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return p.writeStatus(ctx, pub)
}

// renderWorkers is how many users' pages are written at once: one a core.
func renderWorkers() int {
	return max(1, min(4, runtime.GOMAXPROCS(0)))
}

// writePending writes the pages (and outbox files) of digests not written
// yet, each linked to its neighbours, and says whose: for each user with
// a page written, the newest page written (see writtenPage).
func (p *pass) writePending(ctx context.Context, pub *site.Publisher, pending []domain.Digest, feeds map[string]feedInfo) (map[string]writtenPage, error) {
	written := map[string]writtenPage{}
	for _, d := range pending {
		u, ok := p.cfg.User(d.User)
		if !ok {
			continue // user removed from the config: nowhere to show it
		}
		all, err := p.st.Digests(ctx, d.User)
		if err != nil {
			return written, err
		}
		rd, err := p.renderDigest(ctx, d, *u, feeds)
		if err != nil {
			return written, err
		}
		prev, next := neighbours(all, d.Date)
		rd.Prev, rd.Next = prev.Date, next.Date
		stop := p.prefetchListings(ctx, &rd)
		body, err := p.writeDigest(ctx, pub, rd, !p.skipsMail(d))
		stop()
		if err != nil {
			return written, err
		}
		if next.Date == "" {
			written[d.User] = writtenPage{date: d.Date, body: body, titles: titlesOnly(rd)}
		}
		// Before d counts as rendered: a run that dies here links the
		// previous page at the next run.
		if err := p.linkNext(ctx, pub, prev, all, *u, feeds); err != nil {
			return written, err
		}
		if err := p.st.MarkRendered(ctx, d.User, d.Date, p.opts.Now); err != nil {
			return written, err
		}
		if _, ok := written[d.User]; !ok {
			written[d.User] = writtenPage{}
		}
	}
	return written, nil
}

// renderUser writes the pages of user's digests not written yet, and the
// user's index and feed: what the run that built a digest writes. Feed
// names are those in feeds, and any other read as the pages need it;
// feeds nil: the user's feeds are read first, in one question.
func (p *pass) renderUser(ctx context.Context, user string, feeds map[string]feedInfo) error {
	u, ok := p.cfg.User(user)
	if !ok {
		return nil
	}
	// The user's digests, not everyone's unrendered ones: a pass of
	// thousands of digests would read them all for each.
	all, err := p.st.Digests(ctx, user)
	if err != nil {
		return err
	}
	var pending []domain.Digest
	for _, d := range slices.Backward(all) { // oldest first, as Unrendered
		if d.RenderedAt.IsZero() {
			pending = append(pending, d)
		}
	}
	pub := site.New(p.cfg.SiteDir, p.cfg.Email.Outbox)
	if err := pub.Favicon(); err != nil {
		return err
	}
	if feeds == nil {
		// The names of the user's feeds in one question; any other a
		// page shows (a feed no longer followed) is looked up as it is
		// needed.
		mine, err := p.rd.FeedsAt(ctx, u.FeedURLs())
		if err != nil {
			return err
		}
		feeds = infosByURL(mine)
	}
	written, err := p.writePending(ctx, pub, pending, feeds)
	if err != nil {
		return err
	}
	if w, ok := written[user]; ok || !pub.HasUserIndex(user) {
		return p.writeUserIndex(ctx, pub, *u, feeds, w)
	}
	return nil
}

// writtenPage is the newest digest page of a user written in this pass
// (date "" when none): where its body is, and the digest with its
// entries' titles only, for the Atom feed.
type writtenPage struct {
	date   string
	body   render.PageBody
	titles render.Digest
}

// dropHTML forgets, in place, the HTML and texts of the groups' entries
// that have fragments of these rules: an email shows the rest, and of the
// HTML only what holds the links its text part lists (render.ExcerptHTML).
func dropHTML(groups []render.FeedGroup) {
	for _, g := range groups {
		for j, e := range g.Entries {
			if e.Fragments.Rules == render.FragmentRules {
				g.Entries[j].Fragments.HTML, g.Entries[j].Content, g.Entries[j].Summary = render.ExcerptHTML(e.Fragments), "", ""
			}
		}
	}
}

// titlesOnly is d without the entries' texts and HTML, which the Atom
// feed does not show: the rest of the pass need not hold them.
func titlesOnly(d render.Digest) render.Digest {
	groups := make([]render.FeedGroup, len(d.Groups))
	for i, g := range d.Groups {
		entries := make([]domain.Entry, len(g.Entries))
		for j, e := range g.Entries {
			if e.Fragments.Rules == render.FragmentRules {
				e.Fragments = domain.Fragments{Rules: e.Fragments.Rules, Title: e.Fragments.Title}
				e.Content, e.Summary = "", ""
			}
			entries[j] = e
		}
		g.Entries, g.Listed = entries, nil
		groups[i] = g
	}
	d.Groups = groups
	return d
}

// streamed is content rendered straight into the file that site writes,
// never built whole in memory.
type streamed func(io.Writer) error

func (s streamed) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	err := s(cw)
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// neighbours are the digests just before and after date in a user's
// digests (newest first); zero values where there is none.
func neighbours(all []domain.Digest, date string) (prev, next domain.Digest) {
	for i, d := range all {
		if d.Date != date {
			continue
		}
		if i > 0 {
			next = all[i-1]
		}
		if i+1 < len(all) {
			prev = all[i+1]
		}
	}
	return prev, next
}

// linkNext writes again the page of prev, a digest rendered in an earlier
// pass, so that it links the digest after it. Only the page's pager
// changes: the rest is copied from the page as written, so the page says
// what it said, whether or not its entries kept their texts. A page that
// is missing or does not end as this version writes it is rendered again,
// unless its entries have lost their texts since (see
// store.Reader.DigestIntact): then it is left as it is, a missing link
// being better than an archive page emptied. The check is made only
// then: it reads every entry of the digest, and most pages are relinked.
func (p *pass) linkNext(ctx context.Context, pub *site.Publisher, prev domain.Digest, all []domain.Digest, u config.User, feeds map[string]feedInfo) error {
	if prev.Date == "" || prev.RenderedAt.IsZero() {
		return nil // none, or one this pass renders with its neighbours
	}
	before, after := neighbours(all, prev.Date)
	err := relinkPage(pub, prev.User, prev.Date, render.Pager{Prev: before.Date}, render.Pager{Prev: before.Date, Next: after.Date})
	if !errors.Is(err, render.ErrNoPager) && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	intact, err := p.st.DigestIntact(ctx, prev.User, prev.Date)
	if err != nil || !intact {
		return err
	}
	rd, err := p.renderDigest(ctx, prev, u, feeds)
	if err != nil {
		return err
	}
	rd.Prev, rd.Next = before.Date, after.Date
	_, err = writePage(pub, rd)
	return err
}

// relinkPage writes the page of user's digest of date again with the
// pager now in place of was (see render.RelinkPage).
func relinkPage(pub *site.Publisher, user, date string, was, now render.Pager) error {
	page, err := pub.OpenDigestPage(user, date)
	if err != nil {
		return err
	}
	defer page.Close()
	info, err := page.Stat()
	if err != nil {
		return fmt.Errorf("relink %s %s: %w", user, date, err)
	}
	return pub.DigestPage(user, date, streamed(func(w io.Writer) error {
		return render.RelinkPage(w, page, info.Size(), was, now)
	}))
}

// writePage streams the page of d into its file, and says where its
// body is.
func writePage(pub *site.Publisher, d render.Digest) (render.PageBody, error) {
	var body render.PageBody
	err := pub.DigestPage(d.User, d.Date, streamed(func(w io.Writer) (err error) {
		body, err = render.WriteDigestPage(w, d)
		return err
	}))
	if err != nil {
		return body, fmt.Errorf("render digest %s %s: %w", d.User, d.Date, err)
	}
	return body, nil
}

// writeDigest writes the page of d, and its email to the outbox when
// mailed says the digest is mailed (see skipsMail).
func (p *pass) writeDigest(ctx context.Context, pub *site.Publisher, d render.Digest, mailed bool) (render.PageBody, error) {
	body, err := writePage(pub, d)
	if err != nil {
		return body, err
	}
	p.mu.Lock()
	p.sum.PagesWritten++
	p.mu.Unlock()
	if !pub.KeepsOutbox() || d.Email == "" || !mailed {
		return body, nil // no outbox, nobody to write to, or nothing to say
	}
	d, err = p.withExcerpts(ctx, d, body.Links)
	if err != nil {
		return body, err
	}
	msg, err := p.composeEmail(d)
	if err != nil {
		return body, err
	}
	if err := pub.OutboxMessage(d.User, d.Date, msg); err != nil {
		return body, err
	}
	p.mu.Lock() // the claim loops of a shared pass write pages at once
	defer p.mu.Unlock()
	if p.emails == nil {
		p.emails = map[string]*mail.Message{}
	}
	p.emails[digestKey(d.User, d.Date)] = msg
	return body, nil
}

// withExcerpts is d, whose page was written from its feeds' listings,
// with its entries read for the email: one feed at a time, each dropping
// its entries' HTML, which the email never shows, so that the whole
// digest's HTML is never held. Entries are read, in the email's order,
// until their excerpts alone are more than an email can carry
// (mail.MaxSize): an email that lists the entries after them is too large
// whatever they say, so they never show. Given the links the page
// counted (links not nil), those entries are not read at all, only
// counted (render.FeedGroup.Unread), and the email holds at most that
// much of any digest (never cut before the entries of the preheader);
// else they are read without their excerpts, for their links.
func (p *pass) withExcerpts(ctx context.Context, d render.Digest, links []render.HostCount) (render.Digest, error) {
	groups := render.InFolderOrder(d.Groups)
	d.Links = links
	room, given := mail.MaxSize, 0
	cut := func() bool { return room < 0 && links != nil && given >= render.HeadlineEntries }
	for i, g := range groups {
		g.Listed = nil
		if cut() {
			g.Entries, g.Unread = nil, len(g.Entries)
			groups[i] = g
			continue
		}
		entries, err := fullEntries(groups[i]) // g has no listing now
		if err != nil {
			return d, err
		}
		for j, e := range entries {
			if cut() {
				clear(entries[j:]) // not held by the slice kept
				entries, g.Unread = entries[:j:j], len(entries)-j
				break
			}
			if room < 0 {
				entries[j].Fragments.Excerpt = ""
			}
			if e.Fragments.Rules == render.FragmentRules {
				room -= len(e.Fragments.Excerpt)
			}
			given++
		}
		g.Entries = entries
		groups[i] = g
		dropHTML(groups[i : i+1])
	}
	d.Groups = groups
	return d, nil
}

// fullEntries are the entries of g with their texts and fragments: read
// from its listing, or, for a digest read whole, a copy of its entries.
func fullEntries(g render.FeedGroup) ([]domain.Entry, error) {
	if g.Listed == nil {
		return slices.Clone(g.Entries), nil
	}
	var entries []domain.Entry
	for e, err := range g.Listed {
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// composeEmail builds and composes the email of d, once: the outbox and
// the send step take the same message.
func (p *pass) composeEmail(d render.Digest) (*mail.Message, error) {
	draft, err := render.DigestEmail(d, p.cfg.Email.From, p.cfg.SiteURL)
	if err != nil {
		return nil, fmt.Errorf("email for %s %s: %w", d.User, d.Date, err)
	}
	msg, err := mail.ComposeDigest(draft)
	if err != nil {
		return nil, fmt.Errorf("email for %s %s: %w", d.User, d.Date, err)
	}
	return msg, nil
}

func digestKey(user, date string) string { return user + " " + date }

// skipsMail says the digest is not mailed (nor written to the outbox):
// [email] skip_empty is set and it has nothing to say, no entry, no feed
// that could not be read and no feed change. Its page is written all the
// same. A pure function of the stored digest, so a run that dies between
// building and sending decides alike in the next.
func (p *pass) skipsMail(d domain.Digest) bool {
	return p.cfg.Email.SkipEmpty && d.EntryCount == 0 && len(d.Problems) == 0 && len(d.Notices) == 0
}

// writeUserIndex writes the user's index and Atom feed. The index copies
// the body of the newest digest's page when this pass wrote it (newest),
// rather than rendering the digest again.
func (p *pass) writeUserIndex(ctx context.Context, pub *site.Publisher, u config.User, feeds map[string]feedInfo, newest writtenPage) error {
	all, err := p.rd.Digests(ctx, u.Name)
	if err != nil {
		return err
	}
	kept := keptAtomEntries(pub, u.Name)
	var archive []render.DigestRef
	var recent []render.Digest
	for i, d := range all {
		archive = append(archive, render.DigestRef{Date: d.Date, Entries: d.EntryCount, BuiltAt: d.BuiltAt})
		if i >= render.MaxFeedDigests {
			continue
		}
		if d.Date == newest.date {
			recent = append(recent, newest.titles)
			continue
		}
		if kept.Keeps(u.Name, p.atomSite(), d.Date, d.BuiltAt) {
			recent = append(recent, render.Digest{User: d.User, Date: d.Date, BuiltAt: d.BuiltAt})
			continue
		}
		rd, err := p.digestOf(ctx, d, u, feeds, p.rd.DigestTitles)
		if err != nil {
			return err
		}
		recent = append(recent, rd)
	}
	if err := p.writeIndexPage(ctx, pub, u, feeds, all, archive, newest); err != nil {
		return fmt.Errorf("render index of %s: %w", u.Name, err)
	}
	err = pub.UserFeed(u.Name, streamed(func(w io.Writer) error {
		return render.WriteAtomFeedKeeping(w, u.Name, p.atomSite(), recent, p.opts.Now, kept)
	}))
	if err != nil {
		return fmt.Errorf("render feed of %s: %w", u.Name, err)
	}
	return nil
}

// keptAtomEntries are the entries of user's feed.xml as written before
// (none when there is none to read).
func keptAtomEntries(pub *site.Publisher, user string) render.AtomEntries {
	f, err := pub.OpenUserFeed(user)
	if err != nil {
		return nil
	}
	defer f.Close()
	return render.ReadAtomEntries(f)
}

func (p *pass) writeIndexPage(ctx context.Context, pub *site.Publisher, u config.User, feeds map[string]feedInfo, all []domain.Digest, archive []render.DigestRef, newest writtenPage) error {
	user := u.Name
	if len(all) > 0 && newest.date == all[0].Date {
		page, err := pub.OpenDigestPage(user, newest.date)
		if err != nil {
			return err
		}
		defer page.Close()
		if _, err := page.Seek(newest.body.Offset, io.SeekStart); err != nil {
			return err
		}
		return pub.UserIndex(user, streamed(func(w io.Writer) error {
			return render.WriteIndexPage(w, user, newest.body, page, archive)
		}))
	}
	// The newest digest's page was written by an earlier pass (the index
	// was lost, or the user has no digest yet): render it here.
	var latest *render.Digest
	if len(all) > 0 {
		rd, err := p.renderDigest(ctx, all[0], u, feeds)
		if err != nil {
			return err
		}
		latest = &rd
	}
	return pub.UserIndex(user, streamed(func(w io.Writer) error {
		return render.WriteIndex(w, user, latest, archive)
	}))
}

type feedInfo struct {
	name, site, lang string
	titled           bool // the feed named itself: name is not its host
}

// storedFeeds reads the feed records once after the poll, for the pages
// and the status page: nothing later in the pass changes them.
func (p *pass) storedFeeds(ctx context.Context) ([]domain.Feed, error) {
	if p.feeds != nil {
		return p.feeds, nil
	}
	feeds, err := p.rd.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	p.feeds = feeds
	return feeds, nil
}

func (p *pass) feedNames(ctx context.Context) (map[string]feedInfo, error) {
	feeds, err := p.storedFeeds(ctx)
	if err != nil {
		return nil, err
	}
	return infosByURL(feeds), nil
}

// infosByURL is what the pages show of each of feeds, by URL.
func infosByURL(feeds []domain.Feed) map[string]feedInfo {
	out := make(map[string]feedInfo, len(feeds))
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
func (p *pass) lookUpName(ctx context.Context, feeds map[string]feedInfo, url string) error {
	if _, ok := feeds[url]; ok {
		return nil
	}
	f, err := p.rd.Feed(ctx, url)
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

// inUserOrder lists the feeds' groups in the order of the user's config,
// each with the user's title and folder for it; render gathers each
// folder's feeds at the place of its first. A feed the user no longer
// follows (a digest rendered again after the config changed) comes last.
func inUserOrder(u config.User, byFeed map[string]*render.FeedGroup) []render.FeedGroup {
	out := make([]render.FeedGroup, 0, len(byFeed))
	for _, sub := range u.Feeds {
		g, ok := byFeed[sub.URL]
		if !ok {
			continue
		}
		if sub.Title != "" {
			g.FeedName = sub.Title
		}
		g.Folder = sub.Folder
		out = append(out, *g)
		delete(byFeed, sub.URL)
	}
	for _, url := range slices.Sorted(maps.Keys(byFeed)) {
		out = append(out, *byFeed[url])
	}
	return out
}

// configIndex is the place of a feed in the user's config; a feed the
// user no longer follows comes after all of them.
func configIndex(u config.User, feedURL string) int {
	if i := slices.IndexFunc(u.Feeds, func(s config.Subscription) bool { return s.URL == feedURL }); i >= 0 {
		return i
	}
	return len(u.Feeds)
}

// displayName is what the user calls a feed: their title for it, else
// the feed's own name.
func displayName(u config.User, feedURL string, feeds map[string]feedInfo) string {
	for _, sub := range u.Feeds {
		if sub.URL == feedURL && sub.Title != "" {
			return sub.Title
		}
	}
	return feeds[feedURL].name
}

// problemName is what a digest calls a feed it could not read: the
// user's title, else the feed's own, else its address without scheme,
// user or query. A feed never read has no name, and its host alone may
// be another feed's too.
func problemName(u config.User, feedURL string, feeds map[string]feedInfo) string {
	name := displayName(u, feedURL, feeds)
	if info := feeds[feedURL]; name != info.name || info.titled {
		return name
	}
	if p, err := url.Parse(feedURL); err == nil && p.Host != "" {
		return p.Host + p.EscapedPath()
	}
	return name
}

// renderDigest turns a stored digest into render's input for its page.
// A small one is read whole, in one question; a large one as the
// entries' titles, for the contents, and each feed's entries in full
// read as its section is written (see render.FeedGroup.Listed), so that
// it is never held whole.
func (p *pass) renderDigest(ctx context.Context, d domain.Digest, u config.User, feeds map[string]feedInfo) (render.Digest, error) {
	if d.EntryCount <= wholeDigestEntries {
		return p.digestOf(ctx, d, u, feeds, p.rd.DigestListing)
	}
	rd, err := p.digestOf(ctx, d, u, feeds, p.rd.DigestTitles)
	if err != nil {
		return rd, err
	}
	for i := range rd.Groups {
		feedURL := rd.Groups[i].FeedURL
		rd.Groups[i].Listed = func(yield func(domain.Entry, error) bool) {
			entries, err := p.rd.DigestFeedListing(ctx, d.User, d.Date, feedURL, p.perFeed())
			yieldAll(entries, err, yield)
		}
	}
	return rd, nil
}

// wholeDigestEntries is the most entries a digest may have to be read
// whole (a few megabytes of fragments at most): a day's digest, almost
// always, in one question instead of one per feed and again per feed for
// its email.
var wholeDigestEntries = 1000

// perFeed is how many of a feed's entries a digest lists.
func (p *pass) perFeed() int {
	if p.cfg.MaxEntriesPerFeed <= 0 {
		return config.DefaultMaxEntriesPerFeed
	}
	return p.cfg.MaxEntriesPerFeed
}

// listing is store.Reader's DigestListing or DigestTitles.
type listing func(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error)

// digestOf is renderDigest with the entries that list gives.
func (p *pass) digestOf(ctx context.Context, d domain.Digest, u config.User, feeds map[string]feedInfo, list listing) (render.Digest, error) {
	entries, more, err := list(ctx, d.User, d.Date, p.perFeed())
	if err != nil {
		return render.Digest{}, err
	}
	if err := p.lookUpNames(ctx, feeds, d, entries); err != nil {
		return render.Digest{}, err
	}
	out := render.Digest{User: d.User, Email: u.Email, Date: d.Date, Location: u.Location, BuiltAt: d.BuiltAt,
		Unsubscribe: p.cfg.Email.UnsubscribeFor(d.User), Weekly: u.Every == config.Weekly}
	intro, err := render.IntroHTML(p.cfg.Intro, u.Intro)
	if err != nil {
		return out, err
	}
	out.IntroHTML = intro
	byFeed := map[string]*render.FeedGroup{}
	for _, e := range entries {
		g := byFeed[e.FeedURL]
		if g == nil {
			info := feeds[e.FeedURL]
			g = &render.FeedGroup{FeedURL: e.FeedURL, FeedName: info.name, SiteURL: info.site, Lang: info.lang, More: more[e.FeedURL]}
			byFeed[e.FeedURL] = g
		}
		g.Entries = append(g.Entries, e)
	}
	out.Groups = inUserOrder(u, byFeed)
	for _, n := range d.Notices {
		out.Notices = append(out.Notices, render.Notice{Notice: n, FeedName: displayName(u, n.FeedURL, feeds)})
	}
	for _, pr := range d.Problems {
		out.Problems = append(out.Problems, render.Problem{Problem: pr, FeedName: problemName(u, pr.FeedURL, feeds)})
	}
	slices.SortStableFunc(out.Problems, func(a, b render.Problem) int {
		return cmp.Compare(configIndex(u, a.FeedURL), configIndex(u, b.FeedURL))
	})
	return out, nil
}

// lookUpNames adds to feeds the names of the feeds that d shows (see
// lookUpName).
func (p *pass) lookUpNames(ctx context.Context, feeds map[string]feedInfo, d domain.Digest, entries []domain.Entry) error {
	for _, e := range entries {
		if err := p.lookUpName(ctx, feeds, e.FeedURL); err != nil {
			return err
		}
	}
	for _, n := range d.Notices {
		if err := p.lookUpName(ctx, feeds, n.FeedURL); err != nil {
			return err
		}
	}
	for _, pr := range d.Problems {
		if err := p.lookUpName(ctx, feeds, pr.FeedURL); err != nil {
			return err
		}
	}
	return nil
}
