package pipeline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"feeddigest/config"
	"feeddigest/render"
	"feeddigest/store"
)

func (p *pass) writeStatus(ctx context.Context) error {
	rows, err := statusRows(ctx, p.st, p.opts.Now)
	if err != nil {
		return err
	}
	page, err := render.StatusPage(rows, p.opts.Now)
	if err != nil {
		return fmt.Errorf("render status page: %w", err)
	}
	return writeFile(filepath.Join(p.cfg.SiteDir, "status.html"), page)
}

// Status reads the feeds' health from the state file, without taking the
// run lock.
func Status(ctx context.Context, cfg *config.Config, now time.Time) ([]render.FeedStatus, error) {
	st, err := store.OpenReader(ctx, cfg.State)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return statusRows(ctx, st, now)
}

func statusRows(ctx context.Context, st *store.Store, now time.Time) ([]render.FeedStatus, error) {
	feeds, err := st.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	subs, err := st.Subscribers(ctx)
	if err != nil {
		return nil, err
	}
	counts, err := st.EntryCounts(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]render.FeedStatus, 0, len(feeds))
	for _, f := range feeds {
		if len(subs[f.URL]) == 0 {
			continue // nobody follows it any more
		}
		rows = append(rows, render.FeedStatus{
			URL: f.URL, EffectiveURL: f.EffectiveURL, Title: f.Title, LastPoll: f.LastPoll,
			LastStatus: f.LastStatus, LastError: f.LastError, NextPoll: f.NextPoll, ErrorCount: f.ErrorCount,
			Reason: reason(f, now), State: feedHealth(f), Subscribers: subs[f.URL], Entries: counts[f.URL],
		})
	}
	return rows, nil
}

func feedHealth(f store.Feed) string {
	switch {
	case !f.GoneAt.IsZero():
		return "gone"
	case !f.DeadAt.IsZero():
		return "dead"
	case f.ErrorCount > 0:
		return "failing"
	case f.PendingURL != "":
		return "moved to another site?"
	case f.EffectiveURL != "":
		return "moved"
	case f.LastPoll.IsZero():
		return "new"
	}
	return "ok"
}

// reason says why the next poll waits, or what the user should know.
func reason(f store.Feed, now time.Time) string {
	r := f.Reason
	if f.PendingURL != "" {
		r = join(r, "redirects permanently to "+f.PendingURL+" on another site: update the subscription if you trust it")
	}
	if f.Repaired != "" {
		r = join(r, "ill-formed XML, repaired ("+f.Repaired+")")
	}
	if f.OverflowGap > 0 {
		r = join(r, "busy feed: extra polls every "+f.OverflowGap.String())
	}
	if f.NextPoll.After(now) && r == "" {
		r = "minimum interval"
	}
	return r
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// WriteStatusTable prints the rows as an aligned text table.
func WriteStatusTable(w io.Writer, rows []render.FeedStatus) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FEED\tSTATE\tLAST POLL\tSTATUS\tNEXT POLL\tERRORS\tWHY")
	for _, r := range rows {
		url := r.URL
		if r.EffectiveURL != "" {
			url += " -> " + r.EffectiveURL
		}
		status := "-"
		if r.LastStatus != 0 {
			status = fmt.Sprint(r.LastStatus)
		}
		why := r.Reason
		if r.LastError != "" {
			why = join(r.LastError, why)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", url, r.State, stamp(r.LastPoll), status, stamp(r.NextPoll), r.ErrorCount, why)
	}
	return tw.Flush()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}
