package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"feeddigest/store"
)

// Shared passes (store.Coordinator). Several runs work on one database
// at once; each is a worker, a row of workers that it keeps alive by
// renewing alive_until (its lease) every third of the lease. A pass is a
// row of passes, planned by one worker under the planning lock (a session
// advisory lock: it goes with the planner's connection if it dies) and
// then shared: its hosts (pass_hosts, each with its feeds in pass_feeds)
// and digests (pass_digests) are claimed by setting their owner, and done
// when finished. A claim is live while its owner is; a claim whose owner
// stopped renewing is free for the others, who take the work over.
// Claiming picks the first free row in the plan's order with FOR UPDATE
// SKIP LOCKED, so that runs claiming at the same moment take different
// rows instead of queueing on one. Leases run on the server's clock
// (clock_timestamp()), never on a run's -now.
//
// Why not a job queue such as River: a digest may only be claimed once
// every feed of its user in the pass is done, a dependency between jobs
// that River's open-source version does not express; River's rescue of
// the jobs of a dead process works in minutes to hours (RescueStuckJobsAfter)
// rather than a lease renewed while the run lives; and a pass is a batch
// that ends, which fits a table of claims better than a queue drained
// by long-running clients.

// alive holds for a worker whose lease has not lapsed.
const alive = `EXISTS (SELECT 1 FROM workers w WHERE w.id = %s AND w.alive_until > clock_timestamp())`

func aliveOwner(column string) string { return fmt.Sprintf(alive, column) }

// join registers this run as a worker with the given lease, renewed until
// leave.
func (s *Store) join(ctx context.Context, lease time.Duration) error {
	if s.stopHeartbeat != nil {
		return nil
	}
	if lease <= 0 {
		return errors.New("the lease of a shared pass must be positive")
	}
	host, _ := os.Hostname()
	if _, err := s.pool.Exec(ctx, `INSERT INTO workers (id, host, pid, alive_until) VALUES ($1, $2, $3, clock_timestamp() + $4::interval)`,
		s.worker, host, os.Getpid(), lease); err != nil {
		return fmt.Errorf("join the pass in %s: %w", s.name, err)
	}
	beat, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-beat.Done():
				return
			case <-tick.C:
				// A missed beat is tried again at the next: a lease lasts three.
				ctx, cancel := context.WithTimeout(beat, lease/3)
				s.pool.Exec(ctx, `UPDATE workers SET alive_until = clock_timestamp() + $2::interval WHERE id = $1`, s.worker, lease)
				cancel()
			}
		}
	}()
	s.stopHeartbeat = func() { stop(); <-done }
	return nil
}

// leave stops renewing the lease and removes the worker, so that its
// claims (none, after a run that finished) are free at once.
func (s *Store) leave() {
	if s.stopHeartbeat == nil {
		return
	}
	s.stopHeartbeat()
	s.stopHeartbeat = nil
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.pool.Exec(ctx, "DELETE FROM workers WHERE id = $1", s.worker)
}

// JoinPass enters the unfinished pass of hour, or makes this run its
// planner (see store.Coordinator).
func (s *Store) JoinPass(ctx context.Context, hour, now time.Time, lease time.Duration) (store.Pass, bool, error) {
	if err := s.join(ctx, lease); err != nil {
		return store.Pass{}, false, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return store.Pass{}, false, fmt.Errorf("join the pass in %s: %w", s.name, err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1, $2)", lockClass, lockPlan); err != nil {
		conn.Release()
		return store.Pass{}, false, fmt.Errorf("join the pass in %s: %w", s.name, err)
	}
	s.planning = conn
	p, err := s.unfinishedPass(ctx, conn, hour)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Pass{Hour: hour.UTC(), Now: now.UTC().Truncate(time.Second)}, true, nil
	}
	s.AbandonPlan()
	if err != nil {
		return store.Pass{}, false, fmt.Errorf("join the pass in %s: %w", s.name, err)
	}
	return p, false, nil
}

func (s *Store) unfinishedPass(ctx context.Context, q querier, hour time.Time) (store.Pass, error) {
	var p store.Pass
	err := q.QueryRow(ctx, `SELECT id, hour, now, (SELECT count(*) FROM pass_feeds f WHERE f.pass_id = p.id),
		(SELECT count(*) FROM pass_digests d WHERE d.pass_id = p.id),
		(SELECT count(*) FROM pass_hosts h WHERE h.pass_id = p.id AND NOT h.done)
		FROM passes p WHERE hour = $1 AND finished_at IS NULL ORDER BY id DESC LIMIT 1`, hour).
		Scan(&p.ID, timeOf{&p.Hour}, timeOf{&p.Now}, &p.Feeds, &p.Digests, &p.Hosts)
	return p, err
}

// AbandonPlan releases the planning lock, if this run holds it.
func (s *Store) AbandonPlan() {
	if s.planning == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.planning.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", lockClass, lockPlan); err != nil {
		// A connection that cannot say so goes: the lock goes with it.
		s.planning.Conn().Close(ctx)
	}
	s.planning.Release()
	s.planning = nil
}

// keepPasses is how long finished and abandoned passes stay, for the
// curious; a pass left unfinished by runs that all died is planned anew
// by the next hour's runs.
const keepPasses = 48 * time.Hour

// PlanPass records the plan of the pass and lets the waiting runs in.
func (s *Store) PlanPass(ctx context.Context, plan store.PassPlan) (store.Pass, error) {
	if s.planning == nil {
		return store.Pass{}, errors.New("PlanPass without JoinPass asking this run to plan")
	}
	defer s.AbandonPlan()
	p := store.Pass{Hour: plan.Hour.UTC(), Now: plan.Now.UTC().Truncate(time.Second), Feeds: len(plan.Feeds), Digests: len(plan.Digests)}
	var hosts []string
	seen := map[string]bool{}
	feedIDs := make([]int64, len(plan.Feeds))
	feedHosts := make([]string, len(plan.Feeds))
	whys := make([]string, len(plan.Feeds))
	for i, f := range plan.Feeds {
		if !seen[f.Host] {
			seen[f.Host] = true
			hosts = append(hosts, f.Host)
		}
		feedIDs[i], feedHosts[i], whys[i] = f.FeedID, f.Host, f.Why
	}
	p.Hosts = len(hosts)
	users := make([]string, len(plan.Digests))
	dates := make([]string, len(plan.Digests))
	for i, d := range plan.Digests {
		users[i], dates[i] = d.User, d.Date
	}
	err := pgx.BeginFunc(ctx, s.planning, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM passes WHERE hour < $1", at(p.Hour.Add(-keepPasses))); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM workers WHERE alive_until < clock_timestamp() - $1::interval", keepPasses); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "INSERT INTO passes (hour, now, planned_by) VALUES ($1, $2, $3) RETURNING id",
			at(p.Hour), at(p.Now), s.worker).Scan(&p.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO pass_hosts (pass_id, host, position)
			SELECT $1, h, n FROM unnest($2::text[]) WITH ORDINALITY AS u(h, n)`, p.ID, hosts); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO pass_feeds (pass_id, feed_id, host, why)
			SELECT $1, f, h, w FROM unnest($2::bigint[], $3::text[], $4::text[]) AS u(f, h, w)`, p.ID, feedIDs, feedHosts, whys); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO pass_digests (pass_id, user_name, date)
			SELECT $1, u, d FROM unnest($2::text[], $3::text[]) AS n(u, d)`, p.ID, users, dates)
		return err
	})
	if err != nil {
		return store.Pass{}, fmt.Errorf("plan the pass in %s: %w", s.name, err)
	}
	// The server's statistics know nothing yet of the pass just planned:
	// every plan made from them would take its thousands of feeds for
	// one and may scan them all, where an index finds a host's feeds or a
	// user's (a claim cost 4 ms instead of 0.1). Before the runs waiting
	// on the planning lock come in and make their plans.
	if _, err := s.planning.Exec(ctx, "ANALYZE pass_hosts, pass_feeds, pass_digests"); err != nil {
		return store.Pass{}, fmt.Errorf("plan the pass in %s: %w", s.name, err)
	}
	return p, nil
}

// NextWork claims the next piece of work of the pass (see
// store.Coordinator).
func (s *Store) NextWork(ctx context.Context, p store.Pass) (store.Work, error) {
	for {
		w, found, err := s.claimHost(ctx, p)
		if err != nil || !found {
			break
		}
		if len(w.Feeds)+len(w.Unfinished) > 0 {
			return w, nil
		}
		// Every feed was done by a run that died before saying the host
		// was: say it, and claim on.
		if err := s.FinishWork(ctx, w); err != nil && !errors.Is(err, store.ErrClaimLost) {
			return store.Work{}, err
		}
	}
	if w, found, err := s.claimDigest(ctx, p); err != nil || found {
		return w, err
	}
	if w, found, err := s.claimEnd(ctx, p); err != nil || found {
		return w, err
	}
	// The end is claimed only once every host and digest is done: a claim
	// that claimEnd could not take over is a live run's.
	var done, ending bool
	if err := s.pool.QueryRow(ctx, "SELECT end_done, end_owner IS NOT NULL FROM passes WHERE id = $1", p.ID).Scan(&done, &ending); err != nil {
		return store.Work{}, fmt.Errorf("pass %d: %w", p.ID, err)
	}
	switch {
	case done:
		return store.Work{}, store.ErrPassDone
	case ending:
		return store.Work{}, store.ErrPassEnding
	}
	return store.Work{}, store.ErrNoWorkYet
}

// claimHost claims the first host of the pass, in the plan's order, that
// is not done, not claimed by a live worker, and not being polled by a
// live worker of another pass (the per-host limits hold across passes
// that overlap, too). It reads its feeds not done, and the poll marks
// left on them.
func (s *Store) claimHost(ctx context.Context, p store.Pass) (store.Work, bool, error) {
	w := store.Work{Kind: store.WorkHost, Pass: p}
	err := s.pool.QueryRow(ctx, `WITH candidate AS (
			SELECT h.pass_id, h.host FROM pass_hosts h
			WHERE h.pass_id = $1 AND NOT h.done AND (h.owner IS NULL OR NOT `+aliveOwner("h.owner")+`)
			AND NOT EXISTS (SELECT 1 FROM pass_hosts o WHERE o.host = h.host AND o.pass_id <> h.pass_id
				AND NOT o.done AND o.owner IS NOT NULL AND `+aliveOwner("o.owner")+`)
			ORDER BY h.position LIMIT 1 FOR UPDATE OF h SKIP LOCKED)
		UPDATE pass_hosts h SET owner = $2 FROM candidate c WHERE h.pass_id = c.pass_id AND h.host = c.host
		RETURNING h.host`, p.ID, s.worker).Scan(&w.Host)
	if errors.Is(err, pgx.ErrNoRows) {
		return w, false, nil
	}
	if err != nil {
		return w, false, fmt.Errorf("claim a host of pass %d: %w", p.ID, err)
	}
	if err := s.readClaimedFeeds(ctx, &w); err != nil {
		return w, false, err
	}
	return w, true, nil
}

// readClaimedFeeds reads the feeds of a claimed host that are not done:
// those with a poll mark, left by a run that died reading their body, go
// to Unfinished (this run holds the host: nobody else is polling them),
// with how many reads in a row were cut short.
func (s *Store) readClaimedFeeds(ctx context.Context, w *store.Work) error {
	rows, _ := s.pool.Query(ctx, "SELECT "+feedColumnsOf("f.")+`, pf.why, a.started, coalesce(a.reads, 0)
		FROM pass_feeds pf JOIN feeds f ON f.id = pf.feed_id LEFT JOIN poll_attempts a ON a.feed_id = f.id
		WHERE pf.pass_id = $1 AND pf.host = $2 AND NOT pf.done ORDER BY f.url`, w.Pass.ID, w.Host)
	var why string
	var started time.Time
	var reads int
	_, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
		f, err := scanFeed(row, &why, timeOf{&started}, &reads)
		switch {
		case err != nil:
		case started.IsZero():
			w.Feeds = append(w.Feeds, store.ClaimedFeed{Feed: f, Why: why})
		default:
			w.Unfinished = append(w.Unfinished, store.Attempt{Feed: f, Started: started, Reads: reads})
		}
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("read the feeds of host %s: %w", w.Host, err)
	}
	return nil
}

// claimDigest claims a digest of the pass that is not done, not claimed
// by a live worker, and ready: every feed of its user in the pass is done.
// Readiness is asked of the user's subscriptions, each looked up in the
// pass (a subquery the planner keeps as it is written), never of the
// pass's thousands of feeds.
func (s *Store) claimDigest(ctx context.Context, p store.Pass) (store.Work, bool, error) {
	w := store.Work{Kind: store.WorkDigest, Pass: p}
	err := s.pool.QueryRow(ctx, `WITH candidate AS (
			SELECT d.pass_id, d.user_name, d.date FROM pass_digests d
			WHERE d.pass_id = $1 AND NOT d.done AND (d.owner IS NULL OR NOT `+aliveOwner("d.owner")+`)
			AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_name = d.user_name
				AND (SELECT NOT pf.done FROM pass_feeds pf WHERE pf.pass_id = d.pass_id AND pf.feed_id = s.feed_id))
			ORDER BY d.user_name, d.date LIMIT 1 FOR UPDATE OF d SKIP LOCKED)
		UPDATE pass_digests d SET owner = $2 FROM candidate c
		WHERE d.pass_id = c.pass_id AND d.user_name = c.user_name AND d.date = c.date
		RETURNING d.user_name, d.date`, p.ID, s.worker).Scan(&w.Digest.User, &w.Digest.Date)
	if errors.Is(err, pgx.ErrNoRows) {
		return w, false, nil
	}
	if err != nil {
		return w, false, fmt.Errorf("claim a digest of pass %d: %w", p.ID, err)
	}
	return w, true, nil
}

// claimEnd claims the pass's end once every host and digest is done.
func (s *Store) claimEnd(ctx context.Context, p store.Pass) (store.Work, bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE passes p SET end_owner = $2 WHERE p.id = $1 AND NOT p.end_done
		AND (p.end_owner IS NULL OR NOT `+aliveOwner("p.end_owner")+`)
		AND NOT EXISTS (SELECT 1 FROM pass_hosts h WHERE h.pass_id = p.id AND NOT h.done)
		AND NOT EXISTS (SELECT 1 FROM pass_digests d WHERE d.pass_id = p.id AND NOT d.done)`, p.ID, s.worker)
	if err != nil {
		return store.Work{}, false, fmt.Errorf("claim the end of pass %d: %w", p.ID, err)
	}
	return store.Work{Kind: store.WorkEnd, Pass: p}, tag.RowsAffected() == 1, nil
}

// BeginPassPoll starts saving a poll of a feed of a claimed host: the
// save marks the feed done in the pass, in the same transaction, if this
// run still holds the host. The host's row is locked for share until the
// commit, so that a run taking the host over waits for the save and then
// finds the feed done.
func (s *Store) BeginPassPoll(ctx context.Context, w store.Work, feedID int64) (store.PollTx, error) {
	if w.Kind != store.WorkHost {
		return nil, fmt.Errorf("save poll of feed %d: the claim is of a %s, not a host", feedID, w.Kind)
	}
	tx, err := s.BeginPoll(ctx, feedID)
	if err != nil {
		return nil, err
	}
	t := tx.(*pollTx)
	// The claim is checked and held (FOR SHARE: a run taking the host over
	// waits for this save's end) before any entry is written. Checked only
	// at the end, a run whose lease lapsed would write entries beside its
	// taker's: an insert racing the taker's uncommitted one of the same
	// entry finds neither a new row nor, in its snapshot, the old one.
	t.afterBegin = func(b *pgx.Batch) {
		b.Queue(`SELECT 1 FROM pass_hosts WHERE pass_id = $1 AND host = $2 AND owner = $3 FOR SHARE`,
			w.Pass.ID, w.Host, s.worker).QueryRow(func(row pgx.Row) error {
			var one int
			if err := row.Scan(&one); errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("host %s of pass %d: %w", w.Host, w.Pass.ID, store.ErrClaimLost)
			} else if err != nil {
				return fmt.Errorf("host %s of pass %d: check the claim: %w", w.Host, w.Pass.ID, err)
			}
			return nil
		})
	}
	t.afterUpdate = func(b *pgx.Batch) {
		b.Queue(`UPDATE pass_feeds SET done = true WHERE pass_id = $1 AND feed_id = $2 AND NOT done
			AND EXISTS (SELECT 1 FROM pass_hosts WHERE pass_id = $1 AND host = $3 AND owner = $4 FOR SHARE)`,
			w.Pass.ID, feedID, w.Host, s.worker).Exec(func(tag pgconn.CommandTag) error {
			if tag.RowsAffected() != 1 {
				return fmt.Errorf("host %s of pass %d: %w", w.Host, w.Pass.ID, store.ErrClaimLost)
			}
			return nil
		})
	}
	return t, nil
}

// FinishWork marks claimed work done (see store.Coordinator).
func (s *Store) FinishWork(ctx context.Context, w store.Work) error {
	var tag pgconn.CommandTag
	var err error
	switch w.Kind {
	case store.WorkHost:
		tag, err = s.pool.Exec(ctx, `UPDATE pass_hosts h SET done = true WHERE pass_id = $1 AND host = $2 AND owner = $3
			AND NOT EXISTS (SELECT 1 FROM pass_feeds f WHERE f.pass_id = h.pass_id AND f.host = h.host AND NOT f.done)`,
			w.Pass.ID, w.Host, s.worker)
		if err == nil && tag.RowsAffected() == 0 {
			// Feeds are left, or the host is another run's now.
			if err = s.ReleaseWork(ctx, w); err == nil {
				err = store.ErrClaimLost
			}
		}
	case store.WorkDigest:
		tag, err = s.pool.Exec(ctx, `UPDATE pass_digests SET done = true WHERE pass_id = $1 AND user_name = $2 AND date = $3
			AND owner = $4`, w.Pass.ID, w.Digest.User, w.Digest.Date, s.worker)
	case store.WorkEnd:
		tag, err = s.pool.Exec(ctx, `UPDATE passes SET end_done = true, finished_at = clock_timestamp()
			WHERE id = $1 AND end_owner = $2`, w.Pass.ID, s.worker)
	default:
		return fmt.Errorf("finish work of kind %q", w.Kind)
	}
	if err == nil && tag.RowsAffected() == 0 {
		err = store.ErrClaimLost
	}
	if err != nil {
		return fmt.Errorf("finish the %s work of pass %d: %w", w.Kind, w.Pass.ID, err)
	}
	return nil
}

// ReleaseWork gives claimed work back undone, and forgets this run's poll
// marks of a host's feeds: the polls it stopped listening to did not fail.
func (s *Store) ReleaseWork(ctx context.Context, w store.Work) error {
	var err error
	switch w.Kind {
	case store.WorkHost:
		_, err = s.pool.Exec(ctx, `DELETE FROM poll_attempts a USING pass_feeds pf WHERE pf.feed_id = a.feed_id
			AND pf.pass_id = $1 AND pf.host = $2 AND a.worker = $3`, w.Pass.ID, w.Host, s.worker)
		if err == nil {
			_, err = s.pool.Exec(ctx, `UPDATE pass_hosts SET owner = NULL WHERE pass_id = $1 AND host = $2 AND owner = $3`,
				w.Pass.ID, w.Host, s.worker)
		}
	case store.WorkDigest:
		_, err = s.pool.Exec(ctx, `UPDATE pass_digests SET owner = NULL WHERE pass_id = $1 AND user_name = $2 AND date = $3
			AND owner = $4`, w.Pass.ID, w.Digest.User, w.Digest.Date, s.worker)
	case store.WorkEnd:
		_, err = s.pool.Exec(ctx, `UPDATE passes SET end_owner = NULL WHERE id = $1 AND end_owner = $2`, w.Pass.ID, s.worker)
	}
	if err != nil {
		return fmt.Errorf("release the %s work of pass %d: %w", w.Kind, w.Pass.ID, err)
	}
	return nil
}
