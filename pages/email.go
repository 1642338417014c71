package pages

import (
	"context"
	"fmt"
	"slices"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/mail"
	"feeddigest/render"
)

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
func (b *Builder) withExcerpts(ctx context.Context, d render.Digest, links []render.HostCount) (render.Digest, error) {
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
			if e.Fragments.Rules == ingest.FragmentRules && (g.Full <= 0 || j < g.Full) {
				room -= len(e.Fragments.Excerpt) // a compact entry shows no excerpt
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
// from its listing (those shown in full, followed by the titles g holds
// of the compact list), or, for a digest read whole, a copy of its
// entries.
func fullEntries(g render.FeedGroup) ([]domain.Entry, error) {
	if g.Listed == nil {
		return slices.Clone(g.Entries), nil
	}
	var entries []domain.Entry
	for e, err := range g.Shown() {
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	if len(entries) < len(g.Entries) {
		entries = append(entries, g.Entries[len(entries):]...)
	}
	return entries, nil
}

// composeEmail builds and composes the email of d, once: the outbox and
// the send step take the same message.
func (b *Builder) composeEmail(d render.Digest) (*mail.Message, error) {
	draft, err := render.DigestEmail(d, b.cfg.Email.From, b.cfg.SiteURL)
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

// Email is the email of d: the one composed for the outbox by this
// Builder, or, for a digest written in an earlier run, composed now (the
// same bytes: a digest's email is reproducible), with the feed names in
// feeds and any other read as it needs them.
func (b *Builder) Email(ctx context.Context, d domain.Digest, feeds FeedNames) (*mail.Message, error) {
	b.mu.Lock()
	msg, ok := b.emails[digestKey(d.User, d.Date)]
	b.mu.Unlock()
	if ok {
		return msg, nil
	}
	u, _ := b.cfg.User(d.User)
	rd, err := b.renderDigest(ctx, d, *u, feeds)
	if err != nil {
		return nil, err
	}
	if rd, err = b.withExcerpts(ctx, rd, nil); err != nil {
		return nil, err
	}
	return b.composeEmail(rd)
}

// SkipsMail says the digest is not mailed (nor written to the outbox):
// [email] skip_empty is set and it has nothing to say, no entry, no feed
// that could not be read and no feed change. Its page is written all the
// same. A pure function of the stored digest, so a run that dies between
// building and sending decides alike in the next.
func (b *Builder) SkipsMail(d domain.Digest) bool {
	return b.cfg.Email.SkipEmpty && d.EntryCount == 0 && !slices.ContainsFunc(d.Problems, domain.Problem.Named) && len(d.Notices) == 0
}
