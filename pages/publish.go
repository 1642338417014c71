package pages

import (
	"context"
	"fmt"

	"feeddigest/output"
)

// Published says what Publish wrote.
type Published struct {
	Dir    string `json:"dir"`
	Users  int    `json:"users"`
	Pages  int    `json:"pages"` // digest pages
	Status bool   `json:"status"`
}

// Publish writes the whole site from the state into dir (the config's
// site_dir when ""): every digest's page, each user's index and Atom
// feed, and the status page, through the site's one publisher. It reads
// the state without changing it, so it works beside runs, and serves
// runs that share no disk (a PostgreSQL state): they build the digests,
// one publish writes what they built. Users no longer in the config are
// left out, as a run leaves them out.
// The Builder's state is read as of its now, and marked nowhere: the
// caller opens and closes it.
func (b *Builder) Publish(ctx context.Context, dir string) (Published, error) {
	cfg, rd := b.cfg, b.rd
	out := Published{Dir: dir}
	if out.Dir == "" {
		out.Dir = cfg.SiteDir
	}
	pub := output.New(out.Dir, "") // pages only: the outbox is the runs' business
	if err := pub.Favicon(); err != nil {
		return out, err
	}
	feeds, err := b.feedNames(ctx)
	if err != nil {
		return out, rd.Damaged(err)
	}
	for _, u := range cfg.Users {
		digests, err := rd.Digests(ctx, u.Name)
		if err != nil {
			return out, rd.Damaged(err)
		}
		// The newest page (digests come newest first): the index copies
		// its body, and the Atom feed takes its titles.
		var newest writtenPage
		for i, d := range digests {
			page, err := b.renderDigest(ctx, d, u, feeds)
			if err != nil {
				return out, rd.Damaged(err)
			}
			prev, next := neighbours(digests, d.Date)
			page.Prev, page.Next = refOf(prev, u), refOf(next, u)
			body, err := b.writeDigest(ctx, pub, page, false)
			if err != nil {
				return out, fmt.Errorf("publish %s %s: %w", d.User, d.Date, err)
			}
			if i == 0 {
				newest = writtenPage{date: d.Date, body: body, titles: titlesOnly(page)}
			}
		}
		if err := b.writeUserIndex(ctx, pub, u, feeds, newest); err != nil {
			return out, rd.Damaged(err)
		}
		out.Users++
	}
	if err := b.writeStatus(ctx, pub); err != nil {
		return out, rd.Damaged(err)
	}
	out.Pages, out.Status = b.Written(), true
	return out, nil
}
