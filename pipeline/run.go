// Package pipeline wires one scheduled pass together, in one direction:
// config -> due users -> feeds to poll -> fetch -> store -> digests ->
// pages, outbox and mail. Decisions come from schedule, HTTP from fetch,
// the state through the store contract (opened in state.go), the pages,
// the outbox and the emails' messages from pages, SMTP through mail.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"feeddigest/config"
	"feeddigest/fetch"
	"feeddigest/ingest"
	"feeddigest/pages"
	"feeddigest/schedule"
	"feeddigest/store"
	"feeddigest/store/local"
)

// Options are a pass's dependencies that tests replace.
type Options struct {
	Now          time.Time                                  // the pass's clock; every decision uses it
	Rand         *rand.Rand                                 // order shuffle, salts, start delay; seeded from the clock when nil
	Log          *slog.Logger                               // nil: discard
	Policy       *schedule.Policy                           // nil: schedule.DefaultPolicy
	Sleep        func(context.Context, time.Duration) error // start delay; nil: a real timer
	Progress     func(Event)                                // optional progress reports
	SMTPPassword string
	// SMTPTimeout bounds connecting and each SMTP exchange; 0: the mail
	// package's (30 s).
	SMTPTimeout time.Duration
	// Entropy makes the installation's id, once (see installation.go);
	// nil: crypto/rand. Not Rand: seeded from the clock, two installations
	// started in the same second would share it.
	Entropy io.Reader
	// Lease is how long the claims of a run sharing a pass (PostgreSQL)
	// outlive the run: it renews them while it lives, and the work of a
	// run that died is taken over once they lapse. 0: DefaultLease.
	Lease time.Duration
}

// DefaultLease is the default length of a shared pass's claims.
const DefaultLease = 30 * time.Second

// Event reports progress of a pass.
type Event struct {
	Kind   EventKind
	Total  int
	Done   int
	Failed int
	Detail string
}

// Summary is what a pass did.
type Summary struct {
	Now         time.Time `json:"now"`
	UsersDue    int       `json:"users_due"`
	FeedsPolled int       `json:"feeds_polled"`
	Fresh       int       `json:"fresh"`
	Unchanged   int       `json:"unchanged"`
	Failed      int       `json:"failed"`
	Requests    int       `json:"requests"`
	Bytes       int64     `json:"bytes"`
	// NewEntries counts the entries the pass's polls stored for the
	// first time; DigestEntries those of the digests it built, which
	// their pages count as new (a first digest shows a feed's newest
	// few, rules leave some out, one entry goes to several users).
	NewEntries    int `json:"new_entries"`
	DigestEntries int `json:"digest_entries"`
	// Articles counts the pages of full_text feeds' entries asked for
	// (their requests are in Requests), ArticlesRead those whose article
	// replaced the feed's text.
	Articles     int `json:"articles,omitempty"`
	ArticlesRead int `json:"articles_read,omitempty"`
	DigestsBuilt int `json:"digests_built"`
	PagesWritten int `json:"pages_written"`
	// Outbox is the outbox folder ("" for none), OutboxWritten how many
	// digest emails were written there; MailServer says an SMTP server
	// is set, without which nothing is sent and EmailsSent is no news.
	Outbox        string `json:"outbox,omitempty"`
	OutboxWritten int    `json:"outbox_written"`
	MailServer    bool   `json:"mail_server"`
	EmailsSent    int    `json:"emails_sent"`
	// EmailsSkipped counts the digests not mailed for having nothing to
	// say ([email] skip_empty).
	EmailsSkipped int      `json:"emails_skipped,omitempty"`
	SendFailures  int      `json:"send_failures"`
	Pruned        int64    `json:"pruned"`
	FeedErrors    []string `json:"feed_errors,omitempty"`
	// MailProblems has a line per user with mail that did not go out:
	// what failed, when the next try is, what was given up.
	MailProblems []string `json:"mail_problems,omitempty"`
	// Waiting has a line per user whose first digest waits because none
	// of their feeds could be read yet.
	Waiting []string `json:"waiting,omitempty"`
	// SameFeeds has a warning per config line that leads, polled, to the
	// same feed as an earlier line of its user's (config.SameFeeds): read
	// once, shown once, but the user may remove one.
	SameFeeds []string `json:"same_feeds,omitempty"`
}

// EventKind says what an Event reports.
type EventKind string

const (
	EventDue    EventKind = "due"    // the feeds to poll are chosen: Total
	EventPolled EventKind = "polled" // a poll is saved: Done of Total, Failed so far, Detail the feed
	EventDigest EventKind = "digest" // a digest is built: Detail the user and date
	EventSent   EventKind = "sent"   // a digest is mailed: Detail the user and date
)

func (o *Options) defaults() {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Second)
	if o.Rand == nil {
		seed := uint64(o.Now.UnixNano())
		o.Rand = rand.New(rand.NewPCG(seed, seed>>1|1))
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	// A copy: the pass adjusts it to the config, never the caller's.
	policy := schedule.DefaultPolicy
	if o.Policy != nil {
		policy = *o.Policy
	}
	o.Policy = &policy
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Progress == nil {
		o.Progress = func(Event) {}
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run does one scheduled pass. It returns an error only when the pass
// could not complete (state unusable, pages not writable); failed feeds
// and failed sends are recorded, shown, and retried, not errors.
func Run(ctx context.Context, cfg *config.Config, opts Options) (Summary, error) {
	opts.defaults()
	if cfg.Fetch.HintCap > 0 {
		opts.Policy.HintCap = cfg.Fetch.HintCap
	}
	sum := Summary{Now: opts.Now, Outbox: cfg.Email.Outbox, MailServer: cfg.Email.SMTP != nil}
	st, err := openState(ctx, cfg)
	if err != nil {
		return sum, err
	}
	defer st.Close()
	p := &pass{cfg: cfg, opts: opts, st: coordinatorOf(st), rd: st, sum: &sum, articles: articleLimits(cfg)}
	if _, err = keepInstallation(ctx, st, opts.Entropy); err != nil {
		return sum, st.Damaged(err)
	}
	err = p.work(ctx)
	if err == nil {
		sum.SameFeeds, err = p.sameFeeds(ctx)
	}
	sum.PagesWritten = p.pageBuilder().Written()
	sum.OutboxWritten = p.pageBuilder().Outboxed()
	if err != nil {
		return sum, st.Damaged(err)
	}
	return sum, nil
}

// pageBuilder is the builder of the pass's pages, made at its first use.
func (p *pass) pageBuilder() *pages.Builder {
	p.pagesOnce.Do(func() {
		p.pages = pages.New(p.cfg, p.rd, p.st, p.opts.Now, mailStatusRows)
	})
	return p.pages
}

// coordinatorOf is the coordinator of st's passes: st itself when runs
// share it (PostgreSQL), an in-process one when a run holds it alone
// (SQLite). Either way the run works through the same items (see
// work.go).
func coordinatorOf(st store.Store) store.Coordinator {
	if co, ok := st.(store.Coordinator); ok {
		return co
	}
	return local.New(st)
}

// pass is the state of one Run.
type pass struct {
	cfg  *config.Config
	opts Options
	// st is the state, and the coordinator of the pass's work (see
	// coordinatorOf).
	st store.Coordinator
	// rd is st as a reader: what writing pages needs.
	rd store.Reader
	// mu guards sum, and the progress reports, saved from the claim
	// loops; randMu guards opts.Rand.
	mu, randMu sync.Mutex
	sum        *Summary
	due        []schedule.Due
	// daily are the weekly users between digests, whose feeds are still
	// polled once a day.
	daily []schedule.DailyPoll
	// pages writes the pass's pages, keeping the emails it composed for
	// the send step (see pageBuilder).
	pages     *pages.Builder
	pagesOnce sync.Once
	// articles is how many new entries' pages a poll of a full_text feed
	// fetches, by feed URL (see articles.go).
	articles map[string]int
	// sendMu makes the pass's sends one at a time (the claim loops
	// build digests side by side, but there is one mail server) and
	// guards mailDown: the failure of a send before any message (the
	// server unreachable, the login refused), which the digests of this
	// pass still to send share without a connection of their own (each
	// try is a login), whether they are sent as each digest is built or
	// at the end of the pass.
	sendMu   sync.Mutex
	mailDown error
}

func (p *pass) sync(ctx context.Context) error {
	// The digests of the last days, in one question rather than one per
	// user: a user is due for a date within a week of now (a weekly
	// user's digest day).
	since := p.opts.Now.AddDate(0, 0, -9).Format(time.DateOnly)
	recent, err := p.st.DigestsSince(ctx, since)
	if err != nil {
		return err
	}
	have := make(map[store.DigestKey]bool, len(recent))
	newest := map[string]string{}
	for _, d := range recent {
		have[store.DigestKey{User: d.User, Date: d.Date}] = true
		newest[d.User] = max(newest[d.User], d.Date)
	}
	subs := map[string][]string{}
	users := make([]schedule.User, 0, len(p.cfg.Users))
	for _, u := range p.cfg.Users {
		subs[u.Name] = u.FeedURLs()
		su := pages.ScheduleUser(u)
		if su.Weekly {
			su.NewestDigest = newest[u.Name]
			if su.NewestDigest == "" { // none in the last days: look further
				digests, err := p.st.Digests(ctx, u.Name)
				if err != nil {
					return err
				}
				su.NewestDigest = pages.NewestDate(digests)
			}
		}
		users = append(users, su)
	}
	if err := p.st.SyncSubscriptions(ctx, subs, p.opts.Now); err != nil {
		return fmt.Errorf("update subscriptions: %w", err)
	}
	var lookupErr error
	p.due = schedule.DueUsers(users, p.opts.Now, func(user, date string) bool {
		if date >= since {
			return have[store.DigestKey{User: user, Date: date}]
		}
		has, err := p.st.HasDigest(ctx, user, date)
		lookupErr = errors.Join(lookupErr, err)
		return has || err != nil
	})
	p.sum.UsersDue = len(p.due)
	for _, d := range p.due {
		p.opts.Log.Info("digest due", "user", d.Name, "date", d.Date)
	}
	p.daily = schedule.DailyPolls(users, p.due, p.opts.Now)
	return lookupErr
}

// showAnew makes the fragments (see ingest.MakeFragments) of the stored
// entries that have none made by the rules of this program: those stored
// by an older one (schema 11 adds fragments to existing states), or
// before the rules changed (ingest.FragmentRules).
func (p *pass) showAnew(ctx context.Context) error {
	var after int64
	for {
		stale, err := p.st.StaleFragments(ctx, ingest.FragmentRules, after, 500)
		if err != nil || len(stale) == 0 {
			return err
		}
		for i, e := range stale {
			stale[i].Fragments = ingest.MakeFragments(e.FeedURL, e)
		}
		if err := p.st.SaveFragments(ctx, stale); err != nil {
			return err
		}
		after = stale[len(stale)-1].ID
	}
}

func (p *pass) prune(ctx context.Context) error {
	if p.cfg.Retention <= 0 {
		return nil
	}
	n, err := p.st.Prune(ctx, p.opts.Now.Add(-p.cfg.Retention))
	if err != nil {
		return err
	}
	p.sum.Pruned = n
	if _, err := p.st.DropTexts(ctx, p.opts.Now.Add(-min(p.cfg.Retention, TextRetention))); err != nil {
		return err
	}
	return p.st.Compact(ctx)
}

// TextRetention is how long entries keep their full texts: long after
// every subscriber's digest showing them was built, even with cron off
// for days. Identities and titles stay for the whole retention period.
const TextRetention = 14 * 24 * time.Hour

// NewClient builds the HTTP client the configuration describes: one for
// the whole pass.
func NewClient(cfg *config.Config) *fetch.Client {
	return fetch.New(fetch.Options{
		Contact:              cfg.Fetch.Contact,
		Timeout:              cfg.Fetch.Timeout,
		MaxBody:              cfg.Fetch.MaxBody,
		PerHost:              cfg.Fetch.PerHost,
		HostRate:             cfg.Fetch.HostRate,
		Concurrency:          cfg.Fetch.Concurrency,
		AllowPrivateNetworks: cfg.Fetch.AllowPrivateNetworks,
		HeadAlways:           cfg.Fetch.Head == config.HeadAlways,
	})
}
