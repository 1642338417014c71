package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"feeddigest/domain"
)

// The rules of what a user's digest holds live here, once, over rows: a
// back end reads and writes the rows (DigestTx), BuildDigest decides.
// Every back end so builds the same digest, and the rules are tested
// without a database (digest_test.go).

// DigestTx is what building one digest reads and writes, inside one
// transaction of a back end: rows in, rows out, no rules.
type DigestTx interface {
	// DigestExists says whether user has a digest for date already.
	DigestExists(ctx context.Context, user, date string) (bool, error)
	// LastBuilt is when user's newest digest was built; zero: none yet.
	LastBuilt(ctx context.Context, user string) (time.Time, error)
	// Subscribed lists user's subscriptions with their feeds' records,
	// by feed URL.
	Subscribed(ctx context.Context, user string) ([]Subscribed, error)
	// Window lists, by feed ID, the entries of user's introduced feeds
	// first seen from since to now, both included, that user was not
	// given yet (in a digest, or withheld): newest first, by their date,
	// else first-seen time, then ID. One question for all the feeds,
	// not one a feed: a user follows hundreds.
	Window(ctx context.Context, user string, since, now time.Time) (map[int64][]int64, error)
	// Offered lists the entries of the feed first seen at or before now
	// that user was not given yet, newest first as Window orders them,
	// and when the feed's first entry stored was first seen (the feed
	// first read).
	Offered(ctx context.Context, user string, feedID int64, now time.Time) (offered []Offered, firstRead time.Time, err error)
	// Introduced records that the feed was introduced to user at now,
	// and withholds the entries withheld from user for good.
	Introduced(ctx context.Context, user string, feedID int64, now time.Time, withheld []int64) error
	// InsertDigest writes the digest built and which entries it has
	// (and d.LeftOut, how many the user's rules left out).
	InsertDigest(ctx context.Context, d domain.Digest, entries []int64) error
	// Judged reads the entries of ids as rules look at them: FeedURL,
	// title, link, author, categories, and the texts (content and
	// summary; empty for an entry stored without them), in any order.
	Judged(ctx context.Context, ids []int64) ([]domain.Entry, error)
	// Withhold withholds entries from user for good (rules left them
	// out): no later digest offers them.
	Withhold(ctx context.Context, user string, ids []int64) error
	// NamedProblems lists the problems recorded in user's digests built
	// after after, in any order (see Problems: a feed that goes on
	// failing is named again only once a week).
	NamedProblems(ctx context.Context, user string, after time.Time) ([]domain.Problem, error)
}

// Sieve says whether a user's rules leave an entry out of their digest
// (see package rules); it sees the entry as DigestTx.Judged reads it.
// nil: the user has no rules.
type Sieve func(e domain.Entry) bool

// Subscribed is a user's subscription as a digest reads it: the feed's
// record, when the user subscribed and when a digest introduced the
// feed to the user (zero: not yet), and whether the feed has entries
// stored.
type Subscribed struct {
	Feed         domain.Feed
	AddedAt      time.Time
	IntroducedAt time.Time
	HasEntries   bool
}

// Offered is an entry a feed's introduction offers the user: one the
// user's digests have not had yet.
type Offered struct {
	ID                   int64
	Published, FirstSeen time.Time // Published zero: undated
}

// BuildDigest builds the digest of user for date at now over the rows
// of tx, and writes it (see Store.BuildDigest): the entries of the
// user's feeds since the previous digest (Arrival), the notices of feeds
// that changed for good (Notices) and the feeds that could not be read
// (Problems) since then. ErrDigestExists when the user has a digest for
// date.
//
// sieve, when not nil, leaves entries out by the user's rules as they
// stand at now: those are withheld for good and counted (LeftOut), so a
// changed rule changes the next digest, never one built.
func BuildDigest(ctx context.Context, tx DigestTx, user, date string, now time.Time, sendWanted bool, sieve Sieve) (domain.Digest, error) {
	exists, err := tx.DigestExists(ctx, user, date)
	if err != nil {
		return domain.Digest{}, err
	}
	if exists {
		return domain.Digest{}, fmt.Errorf("%w: %s %s", ErrDigestExists, user, date)
	}
	since, err := tx.LastBuilt(ctx, user)
	if err != nil {
		return domain.Digest{}, err
	}
	subs, err := tx.Subscribed(ctx, user)
	if err != nil {
		return domain.Digest{}, err
	}
	if since.IsZero() && len(subs) > 0 && !slices.ContainsFunc(subs, read) {
		return domain.Digest{}, fmt.Errorf("%w: %s's first digest waits for one of their feeds", ErrNoFeedReadYet, user)
	}
	ids, backlogs, err := digestEntries(ctx, tx, user, subs, since, now)
	if err != nil {
		return domain.Digest{}, err
	}
	ids, leftOut, leftOutTitles, err := sift(ctx, tx, user, ids, sieve)
	if err != nil {
		return domain.Digest{}, err
	}
	named, err := tx.NamedProblems(ctx, user, now.Add(-RemindEvery))
	if err != nil {
		return domain.Digest{}, err
	}
	d := domain.Digest{User: user, Date: date, Since: since, BuiltAt: now, SendWanted: sendWanted,
		Notices: Notices(subs, since, now), Problems: Problems(subs, since, now, named), EntryCount: len(ids), LeftOut: len(leftOut), LeftOutTitles: leftOutTitles,
		Backlogs: backlogs}
	if err := tx.InsertDigest(ctx, d, ids); err != nil {
		return domain.Digest{}, err
	}
	return d, nil
}

// read says a subscription's feed has been read at least once: a body
// that was a feed, or a 304 to the validators of one.
func read(s Subscribed) bool { return !s.Feed.LastSuccess.IsZero() || s.HasEntries }

// sift splits a digest's entries into those kept, in their order, and
// those sieve leaves out, which are withheld from user.
func sift(ctx context.Context, tx DigestTx, user string, ids []int64, sieve Sieve) (kept, leftOut []int64, titles []domain.LeftOutTitle, err error) {
	if sieve == nil || len(ids) == 0 {
		return ids, nil, nil, nil
	}
	entries, err := tx.Judged(ctx, ids)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read entries for rules: %w", err)
	}
	out := map[int64]domain.Entry{}
	for _, e := range entries {
		if sieve(e) {
			out[e.ID] = e
		}
	}
	for _, id := range ids {
		e, left := out[id]
		if !left {
			kept = append(kept, id)
			continue
		}
		leftOut = append(leftOut, id)
		if len(titles) < domain.MaxLeftOutListed {
			titles = append(titles, domain.LeftOutTitle{Title: e.Title, Link: e.Link, Feed: e.FeedURL})
		}
	}
	if len(leftOut) > 0 {
		if err := tx.Withhold(ctx, user, leftOut); err != nil {
			return nil, nil, nil, fmt.Errorf("withhold entries rules left out: %w", err)
		}
	}
	return kept, leftOut, titles, nil
}

// digestEntries chooses the entries of user's digest built at now, whose
// previous digest was built at since (zero: none), feed by feed in the
// order of their IDs, as each feed's Arrival says; it introduces the
// feeds due to be, and says of each that left older entries out how
// many (the digest's Backlogs).
func digestEntries(ctx context.Context, tx DigestTx, user string, subs []Subscribed, since, now time.Time) ([]int64, []domain.Backlog, error) {
	window, err := tx.Window(ctx, user, since, now)
	if err != nil {
		return nil, nil, err
	}
	var backlogs []domain.Backlog
	byFeed := slices.Clone(subs)
	slices.SortFunc(byFeed, func(a, b Subscribed) int { return cmp.Compare(a.Feed.ID, b.Feed.ID) })
	repeats := Repeats(subs)
	var ids, repeated []int64
	for _, s := range byFeed {
		if repeats[s.Feed.ID] {
			more, err := repeatedEntries(ctx, tx, user, s, window, now)
			if err != nil {
				return nil, nil, err
			}
			repeated = append(repeated, more...)
			continue
		}
		switch s.Arrival() {
		case ByWindow:
			ids = append(ids, window[s.Feed.ID]...)
		case ByIntroduction:
			offered, firstRead, err := tx.Offered(ctx, user, s.Feed.ID, now)
			if err != nil {
				return nil, nil, err
			}
			shown, withheld := Introduce(Newcomers(offered, s.AddedAt, firstRead))
			if err := tx.Introduced(ctx, user, s.Feed.ID, now, withheld); err != nil {
				return nil, nil, err
			}
			ids = append(ids, shown...)
			if len(withheld) > 0 {
				backlogs = append(backlogs, domain.Backlog{FeedURL: s.Feed.URL, Older: len(withheld)})
			}
		}
	}
	if len(repeated) > 0 {
		if err := tx.Withhold(ctx, user, repeated); err != nil {
			return nil, nil, fmt.Errorf("withhold the entries of a feed listed twice: %w", err)
		}
	}
	return ids, backlogs, nil
}

// repeatedEntries are the entries of a subscription that repeats another
// (see Repeats) that the digest would have shown: withheld, since the
// feed's entries come through the subscription read. One not introduced
// yet is introduced with all it offers withheld, so that it is not
// introduced again.
func repeatedEntries(ctx context.Context, tx DigestTx, user string, s Subscribed, window map[int64][]int64, now time.Time) ([]int64, error) {
	switch s.Arrival() {
	case ByWindow:
		return window[s.Feed.ID], nil
	case ByIntroduction:
		offered, _, err := tx.Offered(ctx, user, s.Feed.ID, now)
		if err != nil {
			return nil, err
		}
		withheld := make([]int64, len(offered))
		for i, o := range offered {
			withheld[i] = o.ID
		}
		return nil, tx.Introduced(ctx, user, s.Feed.ID, now, withheld)
	}
	return nil, nil
}

// Repeats says which of a user's subscriptions repeat another: those
// whose feed lands where another's does (domain.Feed.Lands), one feed
// the user lists under two addresses (an old one that answers 301 onto
// the other, a web page and the feed it names). Polled once, the feed is
// stored under both; a digest shows it once, from one of them: the one
// introduced first (then the lowest ID), else one read, so that the
// choice stays the same from digest to digest. The others' entries are
// withheld from the user as they come, their problems never named. The
// pages show the feed under the line the user wrote first.
func Repeats(subs []Subscribed) map[int64]bool {
	read := make(map[string]Subscribed, len(subs)) // by where the feed lands
	out := map[int64]bool{}
	for _, s := range subs {
		lands := s.Feed.Lands()
		kept, seen := read[lands]
		switch {
		case !seen:
			read[lands] = s
			continue
		case readFirst(s, kept):
			read[lands] = s
			s = kept
		}
		out[s.Feed.ID] = true
	}
	return out
}

// readFirst says whether a is the subscription read rather than b, of
// two of one feed: introduced earlier (one introduced before one not),
// else read when b is not, else the lower feed ID.
func readFirst(a, b Subscribed) bool {
	switch ai, bi := a.IntroducedAt, b.IntroducedAt; {
	case !ai.IsZero() && bi.IsZero():
		return true
	case ai.IsZero() && !bi.IsZero():
		return false
	case !ai.Equal(bi):
		return ai.Before(bi)
	}
	if ar, br := a.Arrival() != Unread, b.Arrival() != Unread; ar != br {
		return ar
	}
	return a.Feed.ID < b.Feed.ID
}

// Arrival is how a feed's entries come into a user's next digest.
type Arrival int

const (
	// Unread: the feed was never read. It stays unintroduced, so that its
	// backlog, when it comes, is cut as any other's.
	Unread Arrival = iota
	// ByWindow: the feed was introduced by an earlier digest; it brings
	// its entries first seen since the previous digest was built. Those
	// at exactly that time count again: a poll in the same second as the
	// last build, after it, must not fall between two digests (the last
	// digest's own are not given twice).
	ByWindow
	// ByIntroduction: the feed was read and not introduced yet (the
	// user's first digest, a feed newly added, or one that could not be
	// read until now). It brings what Introduce picks of what it offers,
	// and the rest of its backlog is withheld for good: it was first
	// seen before this digest, so a window on first-seen time would
	// offer it again next time.
	ByIntroduction
)

// Arrival says how the subscription's entries come into the next digest.
func (s Subscribed) Arrival() Arrival {
	switch {
	case !s.IntroducedAt.IsZero():
		return ByWindow
	case !s.Feed.LastSuccess.IsZero() || s.HasEntries:
		return ByIntroduction
	default:
		return Unread
	}
}

// Newcomers marks, of the entries a feed's introduction offers, the news
// (see Newcomer): first seen after the user subscribed (at added), and
// either first seen after the feed was first read, or dated between the
// subscription and when it was first seen.
func Newcomers(offered []Offered, added, firstRead time.Time) []Newcomer {
	out := make([]Newcomer, len(offered))
	for i, o := range offered {
		datedSince := !o.Published.IsZero() && !o.Published.Before(added) && !o.Published.After(o.FirstSeen)
		out[i] = Newcomer{ID: o.ID, News: o.FirstSeen.After(added) && (o.FirstSeen.After(firstRead) || datedSince)}
	}
	return out
}

// FirstDigestLimit is how many of a feed's newest entries a user's first
// digest, or a feed newly added to a user, shows of the feed's backlog.
const FirstDigestLimit = 5

// Newcomer is an entry of a feed that a user's digests have not had yet,
// offered by the digest that introduces the feed. News marks an entry
// that appeared after the user subscribed: first seen after that, and
// either after the feed was first read (so not in the window the feed
// held when the state first read it) or dated after it. The rest is the
// backlog, which nobody can tell old from new by.
type Newcomer struct {
	ID   int64
	News bool
}

// Introduce splits the entries offered by a feed's introduction, newest
// first, into those shown and those withheld for good: all the news, and
// of the backlog the newest, up to FirstDigestLimit in all. A feed that
// could not be read for a while after the user subscribed so loses
// nothing it published since, and a feed added with a long window still
// shows its five newest.
func Introduce(offered []Newcomer) (shown, withheld []int64) {
	news := 0
	for _, n := range offered {
		if n.News {
			news++
		}
	}
	room := max(0, FirstDigestLimit-news)
	for _, n := range offered {
		switch {
		case n.News:
			shown = append(shown, n.ID)
		case room > 0:
			shown = append(shown, n.ID)
			room--
		default:
			withheld = append(withheld, n.ID)
		}
	}
	return shown, withheld
}

// Notices are the notices of a digest built at now whose previous one
// was built at since (zero: none): the feeds gone or dead, moved, or
// flagged for a move to another site in (since, now], in the order of
// subs. A feed gone is not told dead too, nor one that repeats another
// (Repeats): the feed read says it.
func Notices(subs []Subscribed, since, now time.Time) []domain.Notice {
	in := between(since, now)
	out := []domain.Notice{}
	repeats := Repeats(subs)
	for _, s := range subs {
		f := s.Feed
		switch {
		case repeats[f.ID]:
			// Gone or dead with the feed read: said of that one.
		case in(f.GoneAt):
			out = append(out, domain.Notice{FeedURL: f.URL, Kind: domain.NoticeGone})
		case in(f.DeadAt):
			out = append(out, domain.Notice{FeedURL: f.URL, Kind: domain.NoticeDead, LastError: f.LastError})
		}
		if in(f.MovedAt) {
			out = append(out, domain.Notice{FeedURL: f.URL, Kind: domain.NoticeMoved, NewURL: f.EffectiveURL})
		}
		if in(f.OriginFlagAt) && f.PendingURL != "" {
			out = append(out, domain.Notice{FeedURL: f.URL, Kind: domain.NoticeOrigin, NewURL: f.PendingURL})
		}
	}
	return out
}

// RemindEvery is how often a digest names again a feed that goes on
// failing: a reader who cannot fix a feed is not told the same thing
// every morning.
const RemindEvery = 7 * 24 * time.Hour

// Problems are the feeds of subs that could not be read, as the digest
// built at now after the previous one (built at since; zero: none) names
// them, in the order of subs. A feed gone or dead in (since, now] is
// named once; one gone or dead before is not polled, and not named again
// (status shows it for as long as it is subscribed). A feed failing now
// (in the penalty box or waiting for a retry) is named in full in the
// first digest after its problem began, then, while the same problem
// goes on, again at most once every RemindEvery, as a reminder (Again),
// and in between kept Quiet: named lists the problems of the user's
// digests built in the last RemindEvery. A feed that failed and was read again since says
// nothing: its entries came. One that repeats another (Repeats) is
// named by that one.
func Problems(subs []Subscribed, since, now time.Time, named []domain.Problem) []domain.Problem {
	in := between(since, now)
	out := []domain.Problem{}
	repeats := Repeats(subs)
	for _, s := range subs {
		f := s.Feed
		if repeats[f.ID] {
			continue // the feed read is named, once
		}
		p := domain.Problem{FeedURL: f.URL, Code: f.ProblemCode, Reason: f.Problem, Since: problemSince(f)}
		switch {
		case !f.GoneAt.IsZero() || !f.DeadAt.IsZero():
			if !in(f.GoneAt) && !in(f.DeadAt) {
				continue
			}
			p.State = domain.ProblemDead
			if !f.GoneAt.IsZero() {
				p.State = domain.ProblemGone
			}
		case f.ErrorCount > 0:
			p.State = domain.ProblemFailing
			if namedLately(named, p) {
				p.Quiet = true
				break
			}
			// Begun before the previous digest, which named it (or, for
			// a state older than this rule, would have): a reminder.
			p.Again = !since.IsZero() && !p.Since.IsZero() && !in(p.Since)
		default:
			continue
		}
		out = append(out, p)
	}
	return out
}

// namedLately says whether one of the recent digests' problems named
// p's problem: the same feed, failing since the same time (a problem
// that ended and began again is a new one).
func namedLately(named []domain.Problem, p domain.Problem) bool {
	return slices.ContainsFunc(named, func(n domain.Problem) bool {
		return n.FeedURL == p.FeedURL && n.State == domain.ProblemFailing && !n.Quiet && n.Since.Equal(p.Since)
	})
}

// problemSince is since when a feed could not be read: the start of its
// problem, else the first error of the run, else (a 410 at once) when it
// went, else when the problem was seen.
func problemSince(f domain.Feed) time.Time {
	for _, t := range []time.Time{f.ProblemSince, f.FirstError, f.GoneAt, f.DeadAt, f.ProblemAt} {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// DigestHeld is what a back end counts of a digest's entries for
// Reader.DigestIntact: how many it had when built (-1: there is no such
// digest), how many of them are still stored, and how many of those are
// stored without their texts (not counting those stored so from the
// start, which no digest shows the texts of).
type DigestHeld struct{ Built, Stored, Bare int }

// Intact says whether the digest's page, written again, would show what
// it showed: every entry still stored, each with its texts.
func (h DigestHeld) Intact() bool { return h.Built >= 0 && h.Stored == h.Built && h.Bare == 0 }

// between says whether a time is in (since, now]; the zero time never is.
func between(since, now time.Time) func(time.Time) bool {
	return func(t time.Time) bool { return !t.IsZero() && t.After(since) && !t.After(now) }
}

// EncodeNotes is the stored form of a digest's notices, problems,
// backlogs and the titles its rules left out, as both back ends keep them
// (and migrate copies them): JSON arrays.
func EncodeNotes(d domain.Digest) (notices, problems, backlogs, leftOut string) {
	n, _ := json.Marshal(d.Notices)
	p, _ := json.Marshal(d.Problems)
	backlogs, leftOut = "[]", "[]"
	if len(d.Backlogs) > 0 {
		b, _ := json.Marshal(d.Backlogs)
		backlogs = string(b)
	}
	if len(d.LeftOutTitles) > 0 {
		b, _ := json.Marshal(d.LeftOutTitles)
		leftOut = string(b)
	}
	return string(n), string(p), backlogs, leftOut
}

// DecodeLeftOut reads into d the titles its rules left out, as
// EncodeNotes wrote them; none reads as nil, as BuildDigest gives it.
func DecodeLeftOut(d *domain.Digest, leftOut []byte) error {
	if err := json.Unmarshal(leftOut, &d.LeftOutTitles); err != nil {
		return fmt.Errorf("digest %s/%s left out: %w", d.User, d.Date, err)
	}
	if len(d.LeftOutTitles) == 0 {
		d.LeftOutTitles = nil
	}
	return nil
}

// DecodeNotes reads into d the notices, problems and backlogs
// EncodeNotes wrote; no backlog reads as nil, as BuildDigest gives it.
func DecodeNotes(d *domain.Digest, notices, problems, backlogs []byte) error {
	if err := json.Unmarshal(notices, &d.Notices); err != nil {
		return fmt.Errorf("digest %s/%s notices: %w", d.User, d.Date, err)
	}
	if err := json.Unmarshal(problems, &d.Problems); err != nil {
		return fmt.Errorf("digest %s/%s problems: %w", d.User, d.Date, err)
	}
	if err := json.Unmarshal(backlogs, &d.Backlogs); err != nil {
		return fmt.Errorf("digest %s/%s backlogs: %w", d.User, d.Date, err)
	}
	if len(d.Backlogs) == 0 {
		d.Backlogs = nil
	}
	return nil
}

// EncodeCategories is the stored form of an entry's categories, as both
// back ends keep them: one a line ("" for none; parse leaves no line
// breaks in a category).
func EncodeCategories(cats []string) string { return strings.Join(cats, "\n") }

// DecodeCategories reads what EncodeCategories wrote.
func DecodeCategories(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// DecodeProblems appends to out the problems of one digest's row, as
// EncodeNotes wrote them.
func DecodeProblems(out []domain.Problem, problems []byte) ([]domain.Problem, error) {
	var ps []domain.Problem
	if err := json.Unmarshal(problems, &ps); err != nil {
		return out, fmt.Errorf("digest problems: %w", err)
	}
	return append(out, ps...), nil
}
