// Package store is the contract of feeddigest's state: what the pipeline
// reads and writes (feeds and what was learned about them, entries with
// their first-seen time, users' subscriptions, the digests built and
// sent), the errors it names, and the rules every implementation keeps.
// It holds no SQL: the implementations are named after what they depend
// on (package sqlite), and package storetest runs the same behaviour
// tests against each.
package store

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"feeddigest/domain"
)

// Named errors, checked with errors.Is.
var (
	// ErrLocked means another process (another run) holds the state
	// file's lock.
	ErrLocked = errors.New("the state file is locked by another process")
	// ErrNoState means there is no state file to read: nothing has run yet.
	ErrNoState = errors.New("no state file")
	// ErrNoFeed means no feed record has that URL (or ID).
	ErrNoFeed = errors.New("no such feed")
	// ErrDigestExists means a digest for that user and date was built already.
	ErrDigestExists = errors.New("digest already built")
	// ErrNotState means the state exists but holds no feeddigest state.
	ErrNotState = errors.New("not a feeddigest state file")
	// ErrDamaged means the state is corrupt.
	ErrDamaged = errors.New("the state file is damaged")
)

// SchemaError means the state file's schema is not the one this program
// reads: older (opening it for a run migrates it) or newer (a later
// version of the program wrote it).
type SchemaError struct {
	Have, Want int
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("schema version %d, this program reads %d", e.Have, e.Want)
}

// Reader reads the state. It is all that status and export need, and it
// works while a run holds the state.
type Reader interface {
	// Installation is the id made once for this state (KeepInstallation),
	// "" before the first run kept one. Atom ids are built from it when no
	// site_url is set, so that two installations never share them.
	Installation(ctx context.Context) (string, error)
	// Feeds returns every feed record, by URL.
	Feeds(ctx context.Context) ([]domain.Feed, error)
	// Feed returns the record of one subscribed URL (ErrNoFeed: none).
	Feed(ctx context.Context, url string) (domain.Feed, error)
	// FeedsAt returns the records of the feeds at urls, by URL; a URL
	// without one is left out.
	FeedsAt(ctx context.Context, urls []string) ([]domain.Feed, error)
	// Subscribers returns, per feed URL, the users subscribed to it.
	Subscribers(ctx context.Context) (map[string][]string, error)
	// EntryCounts returns how many entries are stored per feed URL.
	EntryCounts(ctx context.Context) (map[string]int, error)

	// HasDigest says whether user already has a digest for the local date.
	HasDigest(ctx context.Context, user, date string) (bool, error)
	// DigestsSince lists every digest dated date (YYYY-MM-DD) or later,
	// by user then date: which users are due, and how each stands, in one
	// question rather than one per user.
	DigestsSince(ctx context.Context, date string) ([]domain.Digest, error)
	// Digests lists a user's digests, newest date first.
	Digests(ctx context.Context, user string) ([]domain.Digest, error)
	// Unrendered lists digests whose pages are not written yet, oldest first.
	Unrendered(ctx context.Context) ([]domain.Digest, error)
	// Unsent lists digests that want sending, are not sent yet, were not
	// given up, and whose last attempt (if any) failed cleanly or was
	// cut off before the end of the message's data (its run died);
	// oldest first.
	Unsent(ctx context.Context) ([]domain.Digest, error)
	// NotSent lists every digest that wants sending and is not sent: those
	// still to be tried, those cut off by a crash, and those given up at
	// or after since; oldest first. For showing why mail did not go out.
	NotSent(ctx context.Context, since time.Time) ([]domain.Digest, error)
	// InterruptedSends lists digests whose send was cut off between the
	// end of the message's data and the server's answer (EndSendData
	// without MarkSent).
	InterruptedSends(ctx context.Context) ([]domain.Digest, error)
	// DigestListing returns what a digest lists (an entry with
	// Fragments without its raw texts, which only serve to make them):
	// at most perFeed of each
	// feed's newest entries in it (all when perFeed <= 0), grouped by
	// feed in the order of their URLs and newest first within a feed, and
	// for each feed URL how many more entries the digest holds beyond
	// those. The others were delivered with the digest all the same (they
	// never show in a later one); only their texts are not read.
	DigestListing(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error)
	// DigestTitles is DigestListing for showing the entries' display
	// titles only (an Atom feed): entries with Fragments come with their
	// Title and Rules alone.
	DigestTitles(ctx context.Context, user, date string, perFeed int) ([]domain.Entry, map[string]int, error)
	// DigestFeedListing is DigestListing of one feed of the digest (by its
	// URL, as DigestListing gives it): its entries listed, in the same
	// order. A page is written one feed at a time from it, so a large
	// digest is never held whole.
	DigestFeedListing(ctx context.Context, user, date, feedURL string, perFeed int) ([]domain.Entry, error)
	// RecentEntries lists the entries of the feeds (by URL) first seen at
	// or after since, newest first, as rules look at them (see
	// DigestTx.Judged): what `check` tries a user's rules on. Entries
	// stored without their texts come with empty texts.
	RecentEntries(ctx context.Context, feedURLs []string, since time.Time) ([]domain.Entry, error)
	// DigestIntact says whether every entry of a digest is still stored
	// with its texts: whether its page, written again, shows what it
	// showed. Old entries lose their texts (DropTexts) and then themselves
	// (Prune). False for a digest that does not exist.
	DigestIntact(ctx context.Context, user, date string) (bool, error)

	// UnfinishedAttempts returns the polls started (BeginAttempt) by a run
	// that died before saving them, by feed URL.
	UnfinishedAttempts(ctx context.Context) ([]Attempt, error)

	// Damaged names the state in an error raised because the state is
	// corrupt (ErrDamaged), saying what to do; other errors pass unchanged.
	Damaged(err error) error
	Close() error
}

// FeedAt is Reader.Feed over Reader.FeedsAt, for a back end: the record
// of the feed at url, ErrNoFeed when there is none.
func FeedAt(ctx context.Context, r Reader, url string) (domain.Feed, error) {
	feeds, err := r.FeedsAt(ctx, []string{url})
	if err != nil {
		return domain.Feed{}, err
	}
	if len(feeds) == 0 {
		return domain.Feed{}, fmt.Errorf("%w: %s", ErrNoFeed, url)
	}
	return feeds[0], nil
}

// Store reads and writes the state, for one run at a time.
type Store interface {
	Reader

	// KeepInstallation returns the installation's id: the one kept, else
	// candidate, kept from now on (the first of concurrent callers wins).
	KeepInstallation(ctx context.Context, candidate string) (string, error)

	// SyncSubscriptions makes the subscriptions (user -> feed URLs) match
	// the configuration: feed records are created for new URLs, a new
	// subscription is stamped with now (so its first digest takes only
	// the newest entries), and subscriptions no longer configured are
	// dropped. Feed records and their entries stay, for other subscribers
	// and for a later re-subscription.
	SyncSubscriptions(ctx context.Context, subs map[string][]string, now time.Time) error

	// BeginAttempt records, durable at once, that a poll of the feed is
	// about to read its body. A feed whose body kills the process while it
	// is read (a parser bomb, an out-of-memory kill) would otherwise be
	// polled again by the next run and kill it again, for ever; a mark
	// found by the next run (UnfinishedAttempts) is a poll that never
	// finished. Beginning a read of a feed whose mark is still there
	// counts one more read cut short in a row (Attempt.Reads). The poll's
	// save (PollTx.UpdateFeed) clears it.
	BeginAttempt(ctx context.Context, feedID int64, now time.Time) error
	// ClaimArticles records, durable at once and before any request, that
	// the pages of entries of a full_text feed are to be fetched for their
	// articles: of candidates, in order, the first limit with a link that
	// are not stored for the feed (by key, or by link: see PlanSave),
	// that some digest of the feed's subscribers may show (MayBeShown),
	// and that were not given up (AskArticle). It returns their keys. A
	// page claimed before whose entry is still not stored was claimed by
	// a poll that never saved: a feed is polled by one run at a time (the
	// run lock; a shared pass's host claim, whose lease lapses with its
	// run), so that run died. Its claim is taken over, and the page asked
	// for by this poll.
	ClaimArticles(ctx context.Context, feedID int64, candidates []domain.Entry, limit int, now time.Time) ([]string, error)
	// AskArticle records, durable at once, that the page of a claimed
	// entry is about to be asked for, and ArticleAnswered that its answer
	// came (whatever it was). The poll's save makes the entry stored, and
	// so the page never asked for again; a page whose asking was cut short
	// ArticleTries times in a row (asked, never answered, by runs that
	// died) is given up. A page answered is no suspect: its poll is taken
	// over, and it is asked again, if its run dies later.
	AskArticle(ctx context.Context, feedID int64, key string) error
	ArticleAnswered(ctx context.Context, feedID int64, key string) error
	// DropAttempts forgets every mark: for a pass that stopped polling on
	// purpose (interrupted), whose unfinished polls did not fail.
	DropAttempts(ctx context.Context) error
	// BeginPoll starts the transaction that saves one poll of the feed.
	BeginPoll(ctx context.Context, feedID int64) (PollTx, error)
	// UpdateFeeds writes the records of polls that stored no entries (a
	// 304, an unchanged body, a failure), in one transaction: all or
	// none. Each clears its feed's attempt mark, as PollTx.UpdateFeed
	// does. A pass saves thousands of 304s, and a transaction each cost
	// more than the rest of their work.
	UpdateFeeds(ctx context.Context, feeds []domain.Feed) error

	// BuildDigest records the digest of user for date, built at now, in
	// one transaction: the entries of the user's feeds first seen since
	// the previous digest was built (at most FirstDigestLimit of each
	// feed's newest for a first digest or a newly added feed, the others
	// withheld from the user for good), never an entry the user was
	// already given, notices of feeds that went away or moved since then,
	// and the user's feeds that could not be read since then (failing
	// now, failed and read again since, gone or dead since), each with
	// its problem and since when. sieve (nil: none) is the user's rules:
	// the entries it leaves out are withheld for good and counted
	// (domain.Digest.LeftOut). ErrDigestExists when the user has a
	// digest for date.
	BuildDigest(ctx context.Context, user, date string, now time.Time, sendWanted bool, sieve Sieve) (domain.Digest, error)
	// MarkRendered records that a digest's pages (and outbox file) are written.
	MarkRendered(ctx context.Context, user, date string, now time.Time) error
	// BeginSend claims the send of a digest for this run, before the
	// SMTP conversation. ErrSendTaken when a live run holds the claim,
	// when the message's data ended already (EndSendData) or when it was
	// sent: a digest is mailed at most once, whichever run asks. A claim
	// whose run died before the end of the data is free: nothing can
	// have reached the server.
	BeginSend(ctx context.Context, user, date string, now time.Time) error
	// EndSendData records, just before the end of the message's data
	// goes to the server, that from now on the server may have taken
	// it: a send cut off after this is not repeated (InterruptedSends).
	// ErrSendTaken when this run does not hold the claim (BeginSend):
	// the caller must not end the data then.
	EndSendData(ctx context.Context, user, date string, now time.Time) error
	// MarkSent records a digest sent at now.
	MarkSent(ctx context.Context, user, date string, now time.Time) error
	// MarkSendFailed records a failed attempt to send a digest at now: one
	// more attempt, its error, and whether the failure was permanent.
	MarkSendFailed(ctx context.Context, user, date string, now time.Time, why string, permanent bool) error
	// SkipSend records that a digest built to be mailed is not to be
	// after all ([email] skip_empty: it has nothing to say). It no longer
	// wants sending, so it is neither sent nor listed as unsent (Unsent,
	// NotSent); a send already started or done is left as it is.
	SkipSend(ctx context.Context, user, date string) error
	// GiveUpSend stops all further attempts to send a digest; why says so
	// to the people reading status. Its page stays.
	GiveUpSend(ctx context.Context, user, date string, now time.Time, why string) error

	// StaleFragments lists, by ID, at most limit entries after afterID
	// that have texts but no fragments made by rules (domain.Fragments):
	// stored before fragments were, or when the rules were other. Each
	// comes with its texts and FeedURL, for making them (SaveFragments).
	StaleFragments(ctx context.Context, rules int, afterID int64, limit int) ([]domain.Entry, error)
	// SaveFragments stores the Fragments of entries, by ID, given as
	// StaleFragments listed them: with their texts, which are stored
	// again with the fragments.
	SaveFragments(ctx context.Context, entries []domain.Entry) error
	// Prune deletes entries first seen before cutoff whose feed's body
	// stopped listing them before cutoff (see PollTx.SaveEntries), or whose
	// feed nobody is subscribed to any more, and with them their digests'
	// links and the article claims (ClaimArticles) made before it, except
	// those a digest still waits to render or send. An entry its feed
	// still lists is kept, however old: forgotten, it would come back as
	// new at the feed's next change (a blog keeping its last ten posts for
	// a year), shown twice, or shown after a first digest left it out.
	Prune(ctx context.Context, cutoff time.Time) (int64, error)
	// DropTexts forgets the full texts of entries first seen before
	// cutoff, keeping what identifies them (so they are never shown again)
	// and their titles, except those a digest still waits to render or
	// send. The texts are most of the state's size.
	DropTexts(ctx context.Context, cutoff time.Time) (int64, error)
	// Compact gives the space freed back where the state lives, when
	// enough of it is free.
	Compact(ctx context.Context) error
}

// PollTx saves one poll of one feed in one transaction: its entries
// (SaveEntries), then the feed record made of what they were
// (UpdateFeed), which also clears the poll's attempt mark. The record is
// written last so that a crash before Commit leaves the feed due again,
// never marked done without its entries. Rollback undoes what was not
// committed; deferred, it is harmless after Commit.
type PollTx interface {
	// SaveEntries stores the feed's entries, those not known first seen
	// at now, with their Fragments, and says what it found. An entry is
	// known by its key, or by its link when its key is new (see
	// PlanSave). Entries already known keep their first-seen time; their
	// text is refreshed but they are not shown again. Of the new entries,
	// the withTexts newest keep their texts, the others are stored
	// without (<= 0: all keep them); those are forgotten once every
	// subscriber was given them, no digest waits for them, the feed no
	// longer lists them and BareKept has passed. entries is the feed's
	// whole body: the stored entries it lists (by key, or by link) are
	// listed by the feed again, those it no longer lists left the feed at
	// now, which starts their retention (Prune). A body without entries
	// changes nothing (a broken page more often than a feed emptied).
	SaveEntries(ctx context.Context, entries []domain.Entry, now time.Time, withTexts int) (SaveStats, error)
	// SavePartial is SaveEntries for a body that lists only what changed
	// since the last (226 IM Used): an entry it does not list has not left
	// the feed.
	SavePartial(ctx context.Context, entries []domain.Entry, now time.Time, withTexts int) (SaveStats, error)
	// UpdateFeed writes the feed record (of the feed the poll began with)
	// and clears the poll's attempt mark.
	UpdateFeed(ctx context.Context, f domain.Feed) error
	Commit() error
	Rollback() error
}

// SaveStats says what a save found.
type SaveStats struct {
	New   int // entries stored for the first time
	Known int // entries of the body that were stored already
}

// Attempt is a poll that started and never saved its result.
type Attempt struct {
	Feed    domain.Feed
	Started time.Time
	// Reads is how many reads of the feed in a row were begun and never
	// saved: 1 after one run died reading it, 2 when the read again of
	// the next run was cut short too. A completed save clears the mark.
	Reads int
}

// Named errors of shared passes (see Coordinator), checked with errors.Is.
var (
	// ErrClaimLost means this run's claim on a piece of work lapsed (the
	// run was taken for dead) and another run took the work over: what
	// was done under it is not saved.
	ErrClaimLost = errors.New("another run took this work over")
	// ErrSendTaken means another run has begun sending the digest.
	ErrSendTaken = errors.New("another run has begun sending this digest")
	// ErrNoWorkYet means nothing of the pass is free now, but work remains
	// under other runs' claims, or digests wait for their feeds: ask again
	// shortly.
	ErrNoWorkYet = errors.New("no work free yet")
	// ErrPassEnding is ErrNoWorkYet when all that is left is the pass's
	// end, which another run is doing: it is short, ask again soon.
	ErrPassEnding = fmt.Errorf("%w: another run is ending the pass", ErrNoWorkYet)
	// ErrPassDone means the pass has nothing left to do.
	ErrPassDone = errors.New("the pass is done")
)

// Coordinator is a state that several runs share at once, on one machine
// or many (PostgreSQL): instead of excluding each other, they share each
// pass. The first run of an hour plans the pass (which hosts' feeds to
// poll, which digests to build); then every run of the pass claims work
// until none is left: a host with its feeds (so that per-host limits hold
// across runs), then a digest whose user's feeds of the pass are all
// polled or failed, then the pass's end (leftover pages and mail, the
// status page, pruning). Claims are leases: a run renews them while it
// lives, and the work of a run that dies is taken over once its lease
// lapses. SQLite, held by one run at a time, does not implement it.
type Coordinator interface {
	Store
	// JoinPass enters the pass of hour (the scheduled hour of the run's
	// clock): the newest one of that hour not finished. The run becomes
	// one of the pass's workers, its claims leases of the given length.
	// When the hour has no unfinished pass, planning it is this run's
	// job: planning is true, and the other runs wait in JoinPass until
	// PlanPass (or AbandonPlan, or the death of this run).
	JoinPass(ctx context.Context, hour, now time.Time, lease time.Duration) (p Pass, planning bool, err error)
	// FeedsToPlan returns the records, by URL, of the feeds at urls (the
	// due users' feeds) and of every feed whose retry or extra poll has
	// come at now: all the feeds schedule.FeedsToPoll may choose, without
	// reading the records of every other feed of the database.
	FeedsToPlan(ctx context.Context, urls []string, now time.Time) ([]domain.Feed, error)
	// PlanPass records the plan of the pass JoinPass asked this run to
	// plan, and lets the waiting runs in.
	PlanPass(ctx context.Context, plan PassPlan) (Pass, error)
	// AbandonPlan gives planning up (after an error): another run plans.
	// Harmless after PlanPass.
	AbandonPlan()
	// NextWork claims the next piece of work of the pass: a host with
	// feeds to poll, else a digest that is ready, else the pass's end.
	// ErrNoWorkYet: nothing is free now (ErrPassEnding: only the end is
	// left, and another run has it); ErrPassDone: nothing is left.
	NextWork(ctx context.Context, p Pass) (Work, error)
	// BeginPassPoll starts the transaction that saves a poll of a feed of
	// a claimed host: its Commit also marks the feed done in the pass,
	// and UpdateFeed fails with ErrClaimLost if the claim was lost.
	BeginPassPoll(ctx context.Context, w Work, feedID int64) (PollTx, error)
	// FinishWork marks claimed work done (ErrClaimLost: another run took
	// it over). A host is done once all its feeds are.
	FinishWork(ctx context.Context, w Work) error
	// ReleaseWork gives claimed work back undone, for another run (an
	// interrupted run).
	ReleaseWork(ctx context.Context, w Work) error
}

// Pass is one shared pass: an hour's work, planned once.
type Pass struct {
	ID   int64
	Hour time.Time // the scheduled hour it serves
	Now  time.Time // the clock of the pass, its planner's: every run of the pass decides with it
	// Feeds and Digests are how many feeds it polls and digests it builds.
	Feeds, Digests int
	// Hosts is how many hosts its feeds are on, less those done when a
	// run joins it: how many host claims a run may hold at once.
	Hosts int
}

// PassPlan is what a pass does: the feeds to poll, with their hosts
// (claimed whole, in this order) and why, and the digests to build.
type PassPlan struct {
	Hour, Now time.Time
	Feeds     []PlannedPoll
	Digests   []DigestKey
}

// PlannedPoll is a feed a pass polls.
type PlannedPoll struct {
	FeedID int64
	Host   string // the host the poll goes to: the unit of claims
	Why    string // why it is polled (schedule.Why)
}

// DigestKey names a digest: a user's, for a local date.
type DigestKey struct{ User, Date string }

// WorkKind says what a claim is for.
type WorkKind string

const (
	WorkHost   WorkKind = "host"   // poll the feeds of a host
	WorkDigest WorkKind = "digest" // build, write and send a digest
	WorkEnd    WorkKind = "end"    // the pass's end: leftover pages and mail, status, pruning
)

// Work is a piece of a pass claimed by this run.
type Work struct {
	Kind WorkKind
	Pass Pass
	// For WorkHost: the host and its feeds not yet done, with why each
	// is polled; Unfinished are those whose poll a run that died had
	// begun reading (see Store.BeginAttempt): read again after the
	// others, one at a time, or, cut short twice in a row, recorded as
	// failed.
	Host       string
	Feeds      []ClaimedFeed
	Unfinished []Attempt
	// For WorkDigest.
	Digest DigestKey
}

// ClaimedFeed is a feed of a claimed host, and why the pass polls it.
type ClaimedFeed struct {
	Feed domain.Feed
	Why  string
}

// Dumper reads a whole state, table by table, so that it can be copied
// into another (feeddigest migrate: SQLite into PostgreSQL). Records keep
// their IDs. An iterator holds the state busy until it is done: use one
// at a time.
type Dumper interface {
	Reader
	// DumpSubscriptions lists every subscription with its times.
	DumpSubscriptions(ctx context.Context) ([]Subscription, error)
	// DumpDigests lists every digest, by user and date.
	DumpDigests(ctx context.Context) ([]domain.Digest, error)
	// DumpEntries yields every entry with its texts (those kept),
	// first-seen time and when its feed stopped listing it, by ID.
	DumpEntries(ctx context.Context) iter.Seq2[domain.Entry, error]
	// DumpGiven yields what each user was given: the entries of their
	// digests, and those a first look passed over (withheld).
	DumpGiven(ctx context.Context) iter.Seq2[Given, error]
}

// Loader fills an empty state with a copy of another.
type Loader interface {
	// Load copies everything src holds, in one transaction: all or
	// nothing. ErrNotEmpty when the state holds anything already.
	Load(ctx context.Context, src Dumper) (Loaded, error)
}

// ErrNotEmpty means a state that should be empty (the target of a copy)
// is not.
var ErrNotEmpty = errors.New("the state is not empty")

// Subscription is a user's subscription to a feed, as stored.
type Subscription struct {
	User         string
	FeedID       int64
	AddedAt      time.Time
	IntroducedAt time.Time // zero: no digest has introduced the feed to the user yet
}

// Given is an entry given to a user: shown in the digest of Date, or,
// when Date is "", passed over by a first look (withheld for good).
type Given struct {
	User    string
	Date    string
	EntryID int64
}

// Loaded counts what a Load copied.
type Loaded struct {
	Feeds, Subscriptions, Entries, Digests, Given, Attempts int
}
