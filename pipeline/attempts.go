package pipeline

import (
	"context"
	"fmt"
	"time"

	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/internal/redact"
	"feeddigest/schedule"
	"feeddigest/store"
)

// ErrRunDied is the failure recorded for a feed whose reading was cut
// short twice in a row (see suspected): the runs reading it died, perhaps
// of this very feed, so it waits out a penalty like any broken feed
// instead of being read again at once (and perhaps killing this run too).
// It is fetch's, so that fetch.Result.Problem has plain words for it.
var ErrRunDied = fetch.ErrRunDied

// suspectAfter is how many reads of a feed in a row must be cut short
// (see store.Attempt.Reads) before the feed is taken for their cause.
// One proves nothing: a run killed from outside (a CI timeout, a reboot,
// the OOM killer choosing it for a neighbour's sake) cuts short whatever
// it was reading.
const suspectAfter = 2

// suspected says whether an unfinished poll is the feed's fault until
// its penalty ends: its reading was cut short twice in a row, the second
// time read after every other poll of the pass and alone.
func suspected(a store.Attempt) bool { return a.Reads >= suspectAfter }

// settleUnfinishedPolls deals with the polls a dead run left unfinished,
// before this pass chooses what to poll: those suspected (see suspected)
// are recorded as failed; the others are returned, to be read again after
// every other poll of the pass, one at a time (see readAgainLast).
func (p *pass) settleUnfinishedPolls(ctx context.Context) ([]store.Attempt, error) {
	attempts, err := p.st.UnfinishedAttempts(ctx)
	if err != nil {
		return nil, err
	}
	var again []store.Attempt
	for _, a := range attempts {
		if !suspected(a) {
			p.opts.Log.Info("read again after the others: a run died while reading it", "feed", redact.URL(a.Feed.URL))
			again = append(again, a)
			continue
		}
		f := a.Feed
		res := runDied(a)
		if _, err := p.record(ctx, nil, f, res, nil); err != nil {
			return nil, err
		}
		p.sum.Failed++
		p.sum.FeedErrors = append(p.sum.FeedErrors, fmt.Sprintf("%s: %v", f.URL, res.Err))
		p.opts.Log.Warn("left out until its penalty ends", "feed", f.URL, "error", res.Err)
	}
	return again, nil
}

// runDied is the failed poll recorded for a suspected feed.
func runDied(a store.Attempt) fetch.Result {
	return fetch.Result{Outcome: fetch.OutcomeBroken, Answers304: a.Feed.Answers304, RefusesHEAD: a.Feed.RefusesHEAD,
		IgnoresConditional: a.Feed.IgnoresConditional,
		Err:                fmt.Errorf("%w, %d reads in a row (the last started %s)", ErrRunDied, a.Reads, a.Started.Format(time.RFC3339))}
}

// readAgainLast takes the feeds of unfinished polls out of polls, and
// returns them apart, to be read after the others, one at a time: if one
// of them is what killed the run, everything else is saved by then. Their
// records join byURL.
func readAgainLast(polls []schedule.Poll, byURL map[string]*domain.Feed, again []store.Attempt) ([]schedule.Poll, []schedule.Poll) {
	if len(again) == 0 {
		return polls, nil
	}
	last := make([]schedule.Poll, 0, len(again))
	why := make(map[string]schedule.Why, len(again))
	for _, a := range again {
		why[a.Feed.URL] = schedule.Retry
	}
	rest := polls[:0:0]
	for _, poll := range polls {
		if _, ok := why[poll.URL]; ok {
			why[poll.URL] = poll.Why
			continue
		}
		rest = append(rest, poll)
	}
	for _, a := range again {
		if byURL[a.Feed.URL] == nil {
			f := a.Feed
			byURL[f.URL] = &f
		}
		last = append(last, schedule.Poll{URL: a.Feed.URL, Why: why[a.Feed.URL]})
	}
	return rest, last
}
