package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"net/url"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/mail"
	"feeddigest/render"
	"feeddigest/site"
)

// buildDigests records the digest of every due user, each in one
// transaction. Pages and mail come after, from the recorded digests, so a
// crash between the two is finished by the next run.
func (p *pass) buildDigests(ctx context.Context) error {
	for _, d := range p.due {
		u, _ := p.cfg.User(d.Name)
		wantSend := u.Email != "" && p.cfg.Email.SMTP != nil
		built, err := p.st.BuildDigest(ctx, d.Name, d.Date, p.opts.Now, wantSend)
		if err != nil {
			return err
		}
		p.sum.DigestsBuilt++
		p.opts.Log.Info("digest built", "user", d.Name, "date", d.Date, "entries", built.EntryCount, "notices", len(built.Notices))
		p.opts.Progress(Event{Kind: EventDigest, Detail: d.Name + " " + d.Date})
	}
	return nil
}

// render writes the pages (and outbox files) of every digest not written
// yet, the index and Atom feed of their users, and the status page.
func (p *pass) render(ctx context.Context) error {
	pending, err := p.st.Unrendered(ctx)
	if err != nil {
		return err
	}
	feeds, err := p.feedNames(ctx)
	if err != nil {
		return err
	}
	pub := site.New(p.cfg.SiteDir, p.cfg.Email.Outbox)
	touched := map[string]bool{}
	for _, d := range pending {
		u, ok := p.cfg.User(d.User)
		if !ok {
			continue // user removed from the config: nowhere to show it
		}
		rd, err := p.renderDigest(ctx, d, *u, feeds)
		if err != nil {
			return err
		}
		if err := p.writeDigest(pub, rd); err != nil {
			return err
		}
		if err := p.st.MarkRendered(ctx, d.User, d.Date, p.opts.Now); err != nil {
			return err
		}
		touched[d.User] = true
	}
	for _, u := range p.cfg.Users {
		if touched[u.Name] || !pub.HasUserIndex(u.Name) {
			if err := p.writeUserIndex(ctx, pub, u, feeds); err != nil {
				return err
			}
		}
	}
	return p.writeStatus(ctx, pub)
}

func (p *pass) writeDigest(pub *site.Publisher, d render.Digest) error {
	page, err := render.DigestPage(d)
	if err != nil {
		return fmt.Errorf("render digest %s %s: %w", d.User, d.Date, err)
	}
	if err := pub.DigestPage(d.User, d.Date, bytes.NewReader(page)); err != nil {
		return err
	}
	p.sum.PagesWritten++
	if !pub.KeepsOutbox() || d.Email == "" {
		return nil // no outbox, or nobody to write to
	}
	msg, err := p.composeEmail(d)
	if err != nil {
		return err
	}
	if err := pub.OutboxMessage(d.User, d.Date, msg); err != nil {
		return err
	}
	if p.emails == nil {
		p.emails = map[string]*mail.Message{}
	}
	p.emails[digestKey(d.User, d.Date)] = msg
	return nil
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

func (p *pass) writeUserIndex(ctx context.Context, pub *site.Publisher, u config.User, feeds map[string]feedInfo) error {
	all, err := p.st.Digests(ctx, u.Name)
	if err != nil {
		return err
	}
	var archive []render.DigestRef
	var recent []render.Digest
	for i, d := range all {
		archive = append(archive, render.DigestRef{Date: d.Date, Entries: d.EntryCount, BuiltAt: d.BuiltAt})
		if i < atomDigests {
			rd, err := p.renderDigest(ctx, d, u, feeds)
			if err != nil {
				return err
			}
			recent = append(recent, rd)
		}
	}
	var newest *render.Digest
	if len(recent) > 0 {
		newest = &recent[0]
	}
	index, err := render.IndexPage(u.Name, newest, archive)
	if err != nil {
		return fmt.Errorf("render index of %s: %w", u.Name, err)
	}
	if err := pub.UserIndex(u.Name, bytes.NewReader(index)); err != nil {
		return err
	}
	atom, err := render.AtomFeed(u.Name, p.cfg.SiteURL, recent, p.opts.Now)
	if err != nil {
		return fmt.Errorf("render feed of %s: %w", u.Name, err)
	}
	return pub.UserFeed(u.Name, bytes.NewReader(atom))
}

// atomDigests is how many recent digests a user's Atom feed carries.
const atomDigests = 20

type feedInfo struct {
	name, site string
}

func (p *pass) feedNames(ctx context.Context) (map[string]feedInfo, error) {
	feeds, err := p.st.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]feedInfo, len(feeds))
	for _, f := range feeds {
		out[f.URL] = feedInfo{name: feedName(f), site: f.SiteURL}
	}
	return out, nil
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

// renderDigest turns a stored digest into render's input.
func (p *pass) renderDigest(ctx context.Context, d domain.Digest, u config.User, feeds map[string]feedInfo) (render.Digest, error) {
	perFeed := p.cfg.MaxEntriesPerFeed
	if perFeed <= 0 {
		perFeed = config.DefaultMaxEntriesPerFeed
	}
	entries, more, err := p.st.DigestListing(ctx, d.User, d.Date, perFeed)
	if err != nil {
		return render.Digest{}, err
	}
	out := render.Digest{User: d.User, Email: u.Email, Date: d.Date, Location: u.Location, BuiltAt: d.BuiltAt}
	intro, err := render.IntroHTML(p.cfg.Intro, u.Intro)
	if err != nil {
		return out, err
	}
	out.IntroHTML = intro
	for _, e := range entries {
		if n := len(out.Groups); n == 0 || out.Groups[n-1].FeedURL != e.FeedURL {
			info := feeds[e.FeedURL]
			out.Groups = append(out.Groups, render.FeedGroup{FeedURL: e.FeedURL, FeedName: info.name, SiteURL: info.site,
				More: more[e.FeedURL]})
		}
		g := &out.Groups[len(out.Groups)-1]
		g.Entries = append(g.Entries, e)
	}
	for _, n := range d.Notices {
		out.Notices = append(out.Notices, render.Notice{Notice: n, FeedName: feeds[n.FeedURL].name})
	}
	return out, nil
}
