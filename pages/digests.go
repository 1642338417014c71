package pages

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
	"feeddigest/ingest"
	"feeddigest/mail"
	"feeddigest/output"
	"feeddigest/render"
)

// Render writes the pages (and outbox files) of every digest not written
// yet, the index and Atom feed of their users, and the status page: the
// end of a pass.
func (b *Builder) Render(ctx context.Context) error {
	pending, err := b.rd.Unrendered(ctx)
	if err != nil {
		return err
	}
	// Every feed's name at once for a pass that writes pages; read as
	// they are needed when none is pending (the end of a shared pass,
	// whose pages their digests' runs wrote).
	feeds := FeedNames{}
	if len(pending) > 0 {
		if feeds, err = b.feedNames(ctx); err != nil {
			return err
		}
	}
	pub := output.New(b.cfg.SiteDir, b.cfg.Email.Outbox)
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
	for _, u := range b.cfg.Users {
		mine := byUser[u.Name]
		if len(mine) == 0 && pub.HasUserIndex(u.Name) {
			continue
		}
		g.Go(func() error {
			// Each its own names: a name looked up is added to them.
			names := maps.Clone(feeds)
			written, err := b.writePending(gctx, pub, mine, names)
			if err != nil {
				return err
			}
			if w, ok := written[u.Name]; ok || !pub.HasUserIndex(u.Name) {
				return b.writeUserIndex(gctx, pub, u, names, w)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return b.writeStatus(ctx, pub)
}

// renderWorkers is how many users' pages are written at once: one a core.
func renderWorkers() int {
	return max(1, min(4, runtime.GOMAXPROCS(0)))
}

// writePending writes the pages (and outbox files) of digests not written
// yet, each linked to its neighbours, and says whose: for each user with
// a page written, the newest page written (see writtenPage).
func (b *Builder) writePending(ctx context.Context, pub *output.Publisher, pending []domain.Digest, feeds FeedNames) (map[string]writtenPage, error) {
	written := map[string]writtenPage{}
	// The pagers of the pages written here, by digestKey: a page written
	// with its next linked already is not relinked.
	pagers := map[string]render.Pager{}
	for _, d := range pending {
		u, ok := b.cfg.User(d.User)
		if !ok {
			continue // user removed from the config: nowhere to show it
		}
		all, err := b.rd.Digests(ctx, d.User)
		if err != nil {
			return written, err
		}
		rd, err := b.renderDigest(ctx, d, *u, feeds)
		if err != nil {
			return written, err
		}
		prev, next := neighbours(all, d.Date)
		rd.Prev, rd.Next = refOf(prev, *u), refOf(next, *u)
		stop := b.prefetchListings(ctx, &rd)
		body, err := b.writeDigest(ctx, pub, rd, !b.SkipsMail(d))
		stop()
		if err != nil {
			return written, err
		}
		pagers[digestKey(d.User, d.Date)] = render.Pager{Prev: rd.Prev, Next: rd.Next, Lang: u.Lang}
		if next.Date == "" {
			written[d.User] = writtenPage{date: d.Date, body: body, titles: titlesOnly(rd)}
		}
		// Before d counts as rendered: a run that dies here links the
		// previous page at the next run.
		if err := b.linkNext(ctx, pub, prev, all, *u, feeds, pagers); err != nil {
			return written, err
		}
		if err := b.mark.MarkRendered(ctx, d.User, d.Date, b.now); err != nil {
			return written, err
		}
		if _, ok := written[d.User]; !ok {
			written[d.User] = writtenPage{}
		}
	}
	return written, nil
}

// RenderUser writes the pages of user's digests not written yet, and the
// user's index and feed: what the run that built a digest writes.
func (b *Builder) RenderUser(ctx context.Context, user string) error {
	return b.renderUser(ctx, user, nil)
}

// renderUser is RenderUser with the feed names in feeds, and any other
// read as the pages need it; feeds nil: the user's feeds are read first,
// in one question.
func (b *Builder) renderUser(ctx context.Context, user string, feeds FeedNames) error {
	u, ok := b.cfg.User(user)
	if !ok {
		return nil
	}
	// The user's digests, not everyone's unrendered ones: a pass of
	// thousands of digests would read them all for each.
	all, err := b.rd.Digests(ctx, user)
	if err != nil {
		return err
	}
	var pending []domain.Digest
	for _, d := range slices.Backward(all) { // oldest first, as Unrendered
		if d.RenderedAt.IsZero() {
			pending = append(pending, d)
		}
	}
	pub := output.New(b.cfg.SiteDir, b.cfg.Email.Outbox)
	if err := pub.Favicon(); err != nil {
		return err
	}
	if feeds == nil {
		// The names of the user's feeds in one question; any other a
		// page shows (a feed no longer followed) is looked up as it is
		// needed.
		mine, err := b.rd.FeedsAt(ctx, u.FeedURLs())
		if err != nil {
			return err
		}
		feeds = infosByURL(mine)
	}
	written, err := b.writePending(ctx, pub, pending, feeds)
	if err != nil {
		return err
	}
	if w, ok := written[user]; ok || !pub.HasUserIndex(user) {
		return b.writeUserIndex(ctx, pub, *u, feeds, w)
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
// HTML only what holds the links its text part lists (ingest.ExcerptHTML).
func dropHTML(groups []render.FeedGroup) {
	for _, g := range groups {
		for j, e := range g.Entries {
			if e.Fragments.Rules == ingest.FragmentRules {
				g.Entries[j].Fragments.HTML, g.Entries[j].Content, g.Entries[j].Summary = ingest.ExcerptHTML(e.Fragments), "", ""
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
			if e.Fragments.Rules == ingest.FragmentRules {
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
	cw := &render.CountingWriter{W: w}
	err := s(cw)
	return cw.N, err
}

// neighbours are the digests just before and after date in a user's
// digests (newest first); zero values where there is none.
// refOf names d, a digest of u's (the zero digest: none), for the
// archive and for the pages before and after it.
func refOf(d domain.Digest, u config.User) render.DigestRef {
	if d.Date == "" {
		return render.DigestRef{}
	}
	return render.DigestRef{Date: d.Date, Entries: d.EntryCount, BuiltAt: d.BuiltAt,
		Weekly: u.Every == config.Weekly, Since: d.Since, Location: u.Location, Lang: u.Lang}
}

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

// mailInDoubt is the date of the digest of d's user just before d when
// its email may not have arrived: its send was cut off between the end
// of the message's data and the mail server's answer, and it is not sent
// again (see render.Digest.MailInDoubt). "" otherwise, and without SMTP.
func (b *Builder) mailInDoubt(ctx context.Context, d domain.Digest) (string, error) {
	if b.cfg.Email.SMTP == nil {
		return "", nil
	}
	all, err := b.rd.Digests(ctx, d.User)
	if err != nil {
		return "", err
	}
	prev, _ := neighbours(all, d.Date)
	if prev.SendWanted && prev.SentAt.IsZero() && !prev.SendDataEnded.IsZero() {
		return prev.Date, nil
	}
	return "", nil
}

// linkNext writes again the page of prev, a digest rendered before (pagers
// are those of the pages written in this pass), so that it links the
// digest after it. Only the page's pager changes: the rest is copied from
// the page as written, so the page says what it said, whether or not its
// entries kept their texts. A page that is missing or does not end as
// this version writes it is rendered again, unless its entries have lost
// their texts since (see store.Reader.DigestIntact): then it is left as
// it is, a missing link being better than an archive page emptied. The
// check is made only then: it reads every entry of the digest, and most
// pages are relinked.
func (b *Builder) linkNext(ctx context.Context, pub *output.Publisher, prev domain.Digest, all []domain.Digest, u config.User, feeds FeedNames, pagers map[string]render.Pager) error {
	if prev.Date == "" || prev.RenderedAt.IsZero() {
		return nil // none, or one this pass renders with its neighbours
	}
	before, after := neighbours(all, prev.Date)
	was, now := render.Pager{Prev: refOf(before, u), Lang: u.Lang}, render.Pager{Prev: refOf(before, u), Next: refOf(after, u), Lang: u.Lang}
	if w, ok := pagers[digestKey(prev.User, prev.Date)]; ok {
		// Written in this pass: with its neighbours as they are now
		// (relinked, the pager would show twice), or as they were.
		if w == now {
			return nil
		}
		was = w
	}
	err := relinkPage(pub, prev.User, prev.Date, was, now)
	if !errors.Is(err, render.ErrNoPager) && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	intact, err := b.rd.DigestIntact(ctx, prev.User, prev.Date)
	if err != nil || !intact {
		return err
	}
	rd, err := b.renderDigest(ctx, prev, u, feeds)
	if err != nil {
		return err
	}
	rd.Prev, rd.Next = now.Prev, now.Next
	_, err = writePage(pub, rd)
	return err
}

// relinkPage writes the page of user's digest of date again with the
// pager now in place of was (see render.RelinkPage).
func relinkPage(pub *output.Publisher, user, date string, was, now render.Pager) error {
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
func writePage(pub *output.Publisher, d render.Digest) (render.PageBody, error) {
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
// mailed says the digest is mailed (see SkipsMail).
func (b *Builder) writeDigest(ctx context.Context, pub *output.Publisher, d render.Digest, mailed bool) (render.PageBody, error) {
	body, err := writePage(pub, d)
	if err != nil {
		return body, err
	}
	b.mu.Lock()
	b.written++
	b.mu.Unlock()
	if !pub.KeepsOutbox() || d.Email == "" || !mailed {
		return body, nil // no outbox, nobody to write to, or nothing to say
	}
	d, err = b.withExcerpts(ctx, d, body.Links)
	if err != nil {
		return body, err
	}
	msg, err := b.composeEmail(d)
	if err != nil {
		return body, err
	}
	if err := pub.OutboxMessage(d.User, d.Date, msg); err != nil {
		return body, err
	}
	b.mu.Lock() // the claim loops of a shared pass write pages at once
	defer b.mu.Unlock()
	b.outboxed++
	if b.emails == nil {
		b.emails = map[string]*mail.Message{}
	}
	b.emails[digestKey(d.User, d.Date)] = msg
	return body, nil
}

// inUserOrder lists the feeds' groups in the order of the user's config,
// each with the user's title and folder for it and how many of its
// entries show in full, gathered by folder: folders, and the feeds
// without one as one unnamed folder, at the place of their first feed in
// the config, whether or not that feed has entries in this digest (render
// keeps this order). A feed the user no longer follows (a digest rendered
// again after the config changed) comes last.
func inUserOrder(u config.User, byFeed map[string]*render.FeedGroup) []render.FeedGroup {
	out := make([]render.FeedGroup, 0, len(byFeed))
	for _, sub := range inFolders(u.Feeds) {
		g, ok := byFeed[sub.URL]
		if !ok {
			continue
		}
		if sub.Title != "" {
			g.FeedName = sub.Title
		}
		g.Folder, g.Full = sub.Folder, sub.ShownInFull(u)
		out = append(out, *g)
		delete(byFeed, sub.URL)
	}
	for _, url := range slices.Sorted(maps.Keys(byFeed)) {
		g := byFeed[url]
		g.Full = u.FullEntries
		out = append(out, *g)
	}
	return out
}

// inFolders is subs with each folder's feeds together, the folders in
// the order of their first feed.
func inFolders(subs []config.Subscription) []config.Subscription {
	rank := map[string]int{}
	for _, s := range subs {
		if _, ok := rank[s.Folder]; !ok {
			rank[s.Folder] = len(rank)
		}
	}
	out := slices.Clone(subs)
	slices.SortStableFunc(out, func(a, b config.Subscription) int { return cmp.Compare(rank[a.Folder], rank[b.Folder]) })
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
func displayName(u config.User, feedURL string, feeds FeedNames) string {
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
func problemName(u config.User, feedURL string, feeds FeedNames) string {
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
func (b *Builder) renderDigest(ctx context.Context, d domain.Digest, u config.User, feeds FeedNames) (render.Digest, error) {
	if d.EntryCount <= WholeDigestEntries {
		return b.digestOf(ctx, d, u, feeds, b.rd.DigestListing)
	}
	rd, err := b.digestOf(ctx, d, u, feeds, b.rd.DigestTitles)
	if err != nil {
		return rd, err
	}
	for i := range rd.Groups {
		feedURL, n := rd.Groups[i].FeedURL, inFull(rd.Groups[i], b.perFeed())
		rd.Groups[i].Listed = func(yield func(domain.Entry, error) bool) {
			entries, err := b.rd.DigestFeedListing(ctx, d.User, d.Date, feedURL, n)
			yieldAll(entries, err, yield)
		}
	}
	return rd, nil
}

// inFull is how many of g's newest entries its listing reads with their
// texts: those the feed shows in full, and those shown under another
// feed's (render.FeedGroup.Elsewhere), which the section skips; at most
// perFeed. The rest are listed by their titles, which g has.
func inFull(g render.FeedGroup, perFeed int) int {
	if g.Full <= 0 {
		return perFeed
	}
	return min(perFeed, g.Full+len(g.Elsewhere))
}

// WholeDigestEntries is the most entries a digest may have to be read
// whole (a few megabytes of fragments at most): a day's digest, almost
// always, in one question instead of one per feed and again per feed for
// its email. A variable so that a test reads a small digest as a large
// one.
var WholeDigestEntries = 1000

// perFeed is how many of a feed's entries a digest lists.
func (b *Builder) perFeed() int {
	if b.cfg.MaxEntriesPerFeed <= 0 {
		return config.DefaultMaxEntriesPerFeed
	}
	return b.cfg.MaxEntriesPerFeed
}

// listing is store.Reader's DigestListing or DigestTitles.
type listing func(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error)

// digestOf is renderDigest with the entries that list gives.
func (b *Builder) digestOf(ctx context.Context, d domain.Digest, u config.User, feeds FeedNames, list listing) (render.Digest, error) {
	entries, more, err := list(ctx, d.User, d.Date, b.perFeed())
	if err != nil {
		return render.Digest{}, err
	}
	if err := b.lookUpNames(ctx, feeds, d, u, entries); err != nil {
		return render.Digest{}, err
	}
	out := render.Digest{User: d.User, Lang: u.Lang, Email: u.Email, Date: d.Date, Location: u.Location, Since: d.Since, BuiltAt: d.BuiltAt,
		Unsubscribe: b.cfg.Email.UnsubscribeFor(d.User), Weekly: u.Every == config.Weekly, LeftOut: d.LeftOut, LeftOutTitles: d.LeftOutTitles}
	intro, err := render.IntroHTML(b.cfg.Intro, u.Intro)
	if err != nil {
		return out, err
	}
	out.IntroHTML = intro
	if out.MailInDoubt, err = b.mailInDoubt(ctx, d); err != nil {
		return out, err
	}
	byFeed := map[string]*render.FeedGroup{}
	for _, e := range entries {
		g := byFeed[e.FeedURL]
		if g == nil {
			info := feeds[e.FeedURL]
			g = &render.FeedGroup{FeedURL: e.FeedURL, FeedName: info.name, SiteURL: info.site, Lang: info.lang, More: more[e.FeedURL],
				Lands: info.lands}
			byFeed[e.FeedURL] = g
		}
		g.Entries = append(g.Entries, e)
	}
	for _, bl := range d.Backlogs {
		if g := byFeed[bl.FeedURL]; g != nil {
			g.Older = bl.Older // a feed rules left nothing of has no section to say it in
		}
	}
	line := firstLines(u, feeds)
	underFirstLine(line, feeds, byFeed)
	out.Groups = render.MergeStories(inUserOrder(u, byFeed))
	for _, n := range d.Notices {
		out.Notices = append(out.Notices, render.Notice{Notice: n, FeedName: displayName(u, n.FeedURL, feeds)})
	}
	for _, pr := range d.Problems {
		out.Problems = append(out.Problems, render.Problem{Problem: pr, FeedName: problemName(u, line.of(pr.FeedURL), feeds)})
	}
	slices.SortStableFunc(out.Problems, func(a, b render.Problem) int {
		return cmp.Compare(configIndex(u, line.of(a.FeedURL)), configIndex(u, line.of(b.FeedURL)))
	})
	return out, nil
}

// lines maps each of a user's feed URLs that repeats an earlier line's
// feed (the two land on one URL: one feed the user lists twice, see
// store.Repeats) to that first line's URL.
type lines map[string]string

// of is the URL of the first line that lists the feed at url.
func (l lines) of(url string) string {
	if first, ok := l[url]; ok {
		return first
	}
	return url
}

// firstLines finds, of u's feeds, those that repeat an earlier line's.
func firstLines(u config.User, feeds FeedNames) lines {
	first := make(map[string]string, len(u.Feeds)) // where a feed lands -> its first line's URL
	out := lines{}
	for _, s := range u.Feeds {
		lands := feeds[s.URL].lands
		if lands == "" {
			lands = s.URL
		}
		if f, ok := first[lands]; ok {
			out[s.URL] = f
			continue
		}
		first[lands] = s.URL
	}
	return out
}

// underFirstLine shows the entries of a feed the user lists twice (the
// digest holds them under one of its lines, store.Repeats) under the
// first of its lines: with that line's title and folder, and the feed's
// name as that line's record gives it.
func underFirstLine(line lines, feeds FeedNames, byFeed map[string]*render.FeedGroup) {
	for url, first := range line {
		g := byFeed[url]
		if g == nil || byFeed[first] != nil {
			continue // nothing to move, or a digest built before with both: render names neither
		}
		g.FeedName = feeds[first].name
		byFeed[first] = g
		delete(byFeed, url)
	}
}
