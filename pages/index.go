package pages

import (
	"context"
	"fmt"
	"io"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/output"
	"feeddigest/render"
)

// writeUserIndex writes the user's index and Atom feed. The index copies
// the body of the newest digest's page when this pass wrote it (newest),
// rather than rendering the digest again.
func (b *Builder) writeUserIndex(ctx context.Context, pub *output.Publisher, u config.User, feeds FeedNames, newest writtenPage) error {
	all, err := b.rd.Digests(ctx, u.Name)
	if err != nil {
		return err
	}
	site, err := b.atomSite(ctx)
	if err != nil {
		return err
	}
	kept := keptAtomEntries(pub, u.Name)
	var archive []render.DigestRef
	var recent []render.Digest
	for i, d := range all {
		archive = append(archive, refOf(d, u))
		if i >= render.MaxFeedDigests {
			continue
		}
		if d.Date == newest.date {
			recent = append(recent, newest.titles)
			continue
		}
		if kept.Keeps(u.Name, u.Lang, site, d.Date, d.BuiltAt) {
			recent = append(recent, render.Digest{User: d.User, Date: d.Date, BuiltAt: d.BuiltAt})
			continue
		}
		rd, err := b.digestOf(ctx, d, u, feeds, b.rd.DigestTitles)
		if err != nil {
			return err
		}
		recent = append(recent, rd)
	}
	if err := b.writeIndexPage(ctx, pub, u, feeds, all, archive, newest); err != nil {
		return fmt.Errorf("render index of %s: %w", u.Name, err)
	}
	err = pub.UserFeed(u.Name, streamed(func(w io.Writer) error {
		return render.WriteAtomFeedKeeping(w, u.Name, u.Lang, site, recent, b.now, kept)
	}))
	if err != nil {
		return fmt.Errorf("render feed of %s: %w", u.Name, err)
	}
	return nil
}

// keptAtomEntries are the entries of user's feed.xml as written before
// (none when there is none to read).
func keptAtomEntries(pub *output.Publisher, user string) render.AtomEntries {
	f, err := pub.OpenUserFeed(user)
	if err != nil {
		return nil
	}
	defer f.Close()
	return render.ReadAtomEntries(f)
}

func (b *Builder) writeIndexPage(ctx context.Context, pub *output.Publisher, u config.User, feeds FeedNames, all []domain.Digest, archive []render.DigestRef, newest writtenPage) error {
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
		rd, err := b.renderDigest(ctx, all[0], u, feeds)
		if err != nil {
			return err
		}
		latest = &rd
	}
	return pub.UserIndex(user, streamed(func(w io.Writer) error {
		return render.WriteIndex(w, user, u.Lang, latest, archive)
	}))
}

// atomSite is what the users' feed.xml ids are built from: site_url, else
// the state's installation id (kept by the first run; "" in a state no
// run has written, whose feeds keep the old ids). Read once.
func (b *Builder) atomSite(ctx context.Context) (render.AtomSite, error) {
	b.installMu.Lock()
	defer b.installMu.Unlock()
	if b.installation == nil {
		id, err := b.rd.Installation(ctx)
		if err != nil {
			return render.AtomSite{}, fmt.Errorf("installation id: %w", err)
		}
		b.installation = &id
	}
	return render.AtomSite{URL: b.cfg.SiteURL, Installation: *b.installation}, nil
}
