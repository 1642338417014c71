package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"feeddigest/fetch"
)

// ErrRunDied is the failure recorded for a feed whose poll a previous run
// started and never saved: that run died, perhaps of this very feed, so it
// waits out a penalty like any broken feed instead of being read again at
// once (and perhaps killing this run too).
var ErrRunDied = errors.New("a previous run died while reading this feed")

// settleUnfinishedPolls records the polls a dead run left unfinished as
// failed, before this pass chooses what to poll.
func (p *pass) settleUnfinishedPolls(ctx context.Context) error {
	attempts, err := p.st.UnfinishedAttempts(ctx)
	if err != nil {
		return err
	}
	for _, a := range attempts {
		f := a.Feed
		res := fetch.Result{Outcome: fetch.OutcomeBroken, Answers304: f.Answers304, RefusesHEAD: f.RefusesHEAD,
			Err: fmt.Errorf("%w (its poll started %s)", ErrRunDied, a.Started.Format(time.RFC3339))}
		if _, err := p.record(ctx, nil, f, res, nil); err != nil {
			return err
		}
		p.sum.Failed++
		p.sum.FeedErrors = append(p.sum.FeedErrors, fmt.Sprintf("%s: %v", f.URL, res.Err))
		p.opts.Log.Warn("left out until its penalty ends", "feed", f.URL, "error", res.Err)
	}
	return nil
}

// dropAbandonedPolls forgets the marks of the polls an interrupted pass
// stopped listening to: they did not fail. The pass's context is done by
// then, so this write does without it.
func (p *pass) dropAbandonedPolls(ctx context.Context) error {
	return p.st.DropAttempts(context.WithoutCancel(ctx))
}
