// Package storetest is the behaviour every implementation of the store
// contract keeps, as tests: an implementation's own tests call Run with a
// way to make fresh stores, so that SQLite and any other state run the
// same suite.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// NewStore makes a fresh, empty store for one test, closed when the test
// ends, and with it a function that opens the same state again as the
// next run would, once the first is closed.
type NewStore func(t *testing.T) (s store.Store, reopen func(t *testing.T) store.Store)

// Run runs every behaviour test of the contract against stores made by
// newStore, in parallel: each test has a store of its own.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		run  func(*testing.T, NewStore)
	}{
		{"FeedRecordsReadBackAsWritten", testFeedRecordsReadBackAsWritten},
		{"EntriesStoredOnceWithFirstSeen", testEntriesStoredOnceWithFirstSeen},
		{"KnownEntriesTakeTheirNewestVersion", testKnownEntriesTakeTheirNewestVersion},
		{"FeedsAtReadsTheFeedsAsked", testFeedsAtReadsTheFeedsAsked},
		{"UncommittedPollLeavesNothing", testUncommittedPollLeavesNothing},
		{"EntryTextsReadBack", testEntryTextsReadBack},
		{"FragmentsStoredAndMadeAgain", testFragmentsStoredAndMadeAgain},
		{"EnclosuresReadBack", testEnclosuresReadBack},
		{"SubscriptionsFollowTheConfig", testSubscriptionsFollowTheConfig},
		{"DigestWindowsNeverRepeat", testDigestWindowsNeverRepeat},
		{"FirstDigestWithholdsTheOlderEntries", testFirstDigestWithholdsTheOlderEntries},
		{"IntroductionKeepsWhatCameSinceSubscribing", testIntroductionKeepsWhatCameSinceSubscribing},
		{"DigestListingCapsEachFeed", testDigestListingCapsEachFeed},
		{"NoticesOfFeedsThatChanged", testNoticesOfFeedsThatChanged},
		{"ProblemCodesReadBack", testProblemCodesReadBack},
		{"DigestsRenderedAndSent", testDigestsRenderedAndSent},
		{"SendFailuresAreRecorded", testSendFailuresAreRecorded},
		{"SkippedSendIsNotUnsent", testSkippedSendIsNotUnsent},
		{"SendOfADeadRunIsFreeUntilItsDataEnded", testSendOfADeadRunIsFreeUntilItsDataEnded},
		{"AttemptMarkLastsUntilThePollIsSaved", testAttemptMarkLastsUntilThePollIsSaved},
		{"AttemptMarkCountsReadsCutShortInARow", testAttemptMarkCountsReadsCutShortInARow},
		{"FeedRecordsSavedTogether", testFeedRecordsSavedTogether},
		{"PruneKeepsWhatDigestsStillNeed", testPruneKeepsWhatDigestsStillNeed},
		{"PruneKeepsWhatTheFeedStillLists", testPruneKeepsWhatTheFeedStillLists},
		{"DropTextsKeepsIdentityAndPendingDigests", testDropTextsKeepsIdentityAndPendingDigests},
		{"DigestIntactUntilTextsOrEntriesGo", testDigestIntactUntilTextsOrEntriesGo},
		{"DigestRecordsFeedsThatCouldNotBeRead", testDigestRecordsFeedsThatCouldNotBeRead},
		{"FailingFeedNamedOnceThenWeekly", testFailingFeedNamedOnceThenWeekly},
		{"FirstDigestWaitsForAFeedRead", testFirstDigestWaitsForAFeedRead},
		{"RebuiltGuidsAreTheKnownEntry", testRebuiltGuidsAreTheKnownEntry},
		{"OverflowStoredWithoutTexts", testOverflowStoredWithoutTexts},
		{"TextsKeptForWhatTheNextDigestShows", testTextsKeptForWhatTheNextDigestShows},
		{"SubscriptionsFollowNormalisedURLs", testSubscriptionsFollowNormalisedURLs},
		{"RulesLeaveEntriesOut", testRulesLeaveEntriesOut},
		{"LeftOutTitlesAreBounded", testLeftOutTitlesAreBounded},
		{"RecentEntriesForRules", testRecentEntriesForRules},
		{"ArticlesClaimedOnce", testArticlesClaimedOnce},
		{"InstallationKeptOnce", testInstallationKeptOnce},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, newStore)
		})
	}
}

var ctx = context.Background()

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func fresh(t *testing.T, newStore NewStore) store.Store {
	s, _ := newStore(t)
	return s
}

// Subscribe is subscribe for a back end's own tests.
func Subscribe(t *testing.T, s store.Store, subs map[string][]string, now time.Time) map[string]domain.Feed {
	t.Helper()
	return subscribe(t, s, subs, now)
}

func subscribe(t *testing.T, s store.Store, subs map[string][]string, now time.Time) map[string]domain.Feed {
	t.Helper()
	if err := s.SyncSubscriptions(ctx, subs, now); err != nil {
		t.Fatal(err)
	}
	feeds, err := s.Feeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]domain.Feed{}
	for _, f := range feeds {
		out[f.URL] = f
	}
	return out
}

// subscribeRead subscribes as subscribe does, then records a first poll
// of each feed at now that read it (and found nothing), as a first
// digest waits for one (see store.ErrNoFeedReadYet).
func subscribeRead(t *testing.T, s store.Store, subs map[string][]string, now time.Time) map[string]domain.Feed {
	t.Helper()
	feeds := subscribe(t, s, subs, now)
	for url, f := range feeds {
		f.LastPoll, f.LastSuccess = now, now
		if _, err := savePoll(s, f, nil, now); err != nil {
			t.Fatal(err)
		}
		feeds[url] = f
	}
	return feeds
}

// save saves a poll of f at now that found entries with keys.
func save(t *testing.T, s store.Store, f domain.Feed, now time.Time, keys ...string) store.SaveStats {
	t.Helper()
	var entries []domain.Entry
	for _, k := range keys {
		entries = append(entries, domain.Entry{Key: k, Title: "T " + k, Link: "https://x.example/" + k})
	}
	f.LastPoll = now
	st, err := savePoll(s, f, entries, now)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// savePoll saves a poll as the pipeline does: the entries, then the
// record, in one transaction.
func savePoll(s store.Store, f domain.Feed, entries []domain.Entry, now time.Time) (store.SaveStats, error) {
	tx, err := s.BeginPoll(ctx, f.ID)
	if err != nil {
		return store.SaveStats{}, err
	}
	defer tx.Rollback()
	st, err := tx.SaveEntries(ctx, entries, now, 0)
	if err != nil {
		return store.SaveStats{}, err
	}
	if err := tx.UpdateFeed(ctx, f); err != nil {
		return store.SaveStats{}, err
	}
	return st, tx.Commit()
}

// inUTC is f with its times in UTC, to compare with ==.
func inUTC(f domain.Feed) domain.Feed {
	for _, t := range []*time.Time{&f.LastSuccess, &f.LastPoll, &f.NextPoll, &f.FirstError, &f.GoneAt, &f.DeadAt,
		&f.NextExtraPoll, &f.MovedAt, &f.OriginFlagAt, &f.ProblemAt, &f.ProblemSince, &f.LastGet, &f.ProblemCode.Expired} {
		*t = t.UTC()
	}
	return f
}

func digestEntries(t *testing.T, s store.Store, user, date string) []domain.Entry {
	t.Helper()
	entries, _, err := s.DigestListing(ctx, user, date, 0)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func digestKeys(t *testing.T, s store.Store, user, date string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, e := range digestEntries(t, s, user, date) {
		out[e.Key] = true
	}
	return out
}

func tenKeys() []string {
	var keys []string
	for i := 1; i <= 10; i++ {
		keys = append(keys, fmt.Sprintf("id:%d", i))
	}
	return keys
}

// Every field of a feed record comes back as it was written, times to
// the second.
func testFeedRecordsReadBackAsWritten(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	if f.ID == 0 || f.URL != "https://a.example/feed" || f.State() != domain.FeedNew {
		t.Fatalf("new feed record %+v", f)
	}
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	want := domain.Feed{
		ID: f.ID, URL: f.URL, EffectiveURL: "https://b.example/feed", PendingURL: "https://c.example/feed",
		Title: "A feed", SiteURL: "https://a.example/", Language: "ar", ETag: `W/"1"`, LastModified: "Sat, 21 Nov 2026 11:00:00 GMT",
		BodyHash: "abc", BodyError: "not a feed", Repaired: "bare ampersands",
		LastSuccess: at(1), LastStatus: 200, LastError: "HTTP 503",
		Problem: "server error (503)", ProblemAt: at(10), ProblemSince: at(11),
		Schedule: domain.Schedule{LastPoll: at(2), NextPoll: at(3), Reason: "penalty (404)", ErrorCount: 2, FirstError: at(4),
			RetryPending: true, GoneAt: at(5), DeadAt: at(6), OverflowGap: 2 * time.Hour, NextExtraPoll: at(7)},
		MovedAt: at(8), MovedFrom: "https://a.example/old", OriginFlagAt: at(9),
		Answers304: true, RefusesHEAD: true, IgnoresConditional: true, TTL: 90 * time.Minute, Polls: 7,
		Distrust: domain.Distrust{ETag: true, Conditional: true}, LastGet: at(12),
		ArticlesAsked: 4, ArticlesRead: 3,
	}
	if _, err := savePoll(s, want, nil, at(2)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Feed(ctx, f.URL)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Feeds(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("Feeds: %v %v", all, err)
	}
	for _, g := range []domain.Feed{got, all[0]} {
		if inUTC(g) != want {
			t.Errorf("read back\n%+v\nwant\n%+v", g, want)
		}
	}
	if _, err := s.Feed(ctx, "https://none.example/feed"); !errors.Is(err, store.ErrNoFeed) {
		t.Errorf("unknown feed: %v, want ErrNoFeed", err)
	}
	other := want
	other.ID = f.ID + 1000
	tx, err := s.BeginPoll(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := tx.UpdateFeed(ctx, other); err == nil {
		t.Error("the poll of one feed wrote the record of another")
	}
}

func testEntriesStoredOnceWithFirstSeen(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	if st := save(t, s, f, t0, "id:1", "id:2"); st.New != 2 || st.Known != 0 {
		t.Fatalf("first save %+v", st)
	}
	if st := save(t, s, f, t0.Add(time.Hour), "id:2", "id:3"); st.New != 1 || st.Known != 1 {
		t.Fatalf("second save %+v", st)
	}
	d, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]time.Time{}
	for _, e := range digestEntries(t, s, "ada", "2026-11-21") {
		seen[e.Key] = e.FirstSeen
	}
	if d.EntryCount != 3 || !seen["id:2"].Equal(t0) || !seen["id:3"].Equal(t0.Add(time.Hour)) {
		t.Fatalf("digest %+v first seen %v", d, seen)
	}
}

// FeedsAt reads the records of the URLs asked, those that have one, and
// no other.
func testFeedsAtReadsTheFeedsAsked(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	a, b, c := "https://a.example/feed", "https://b.example/feed", "https://c.example/feed"
	subscribed := subscribe(t, s, map[string][]string{"ada": {a, b}, "grace": {c}}, t0)
	got, err := s.FeedsAt(ctx, []string{c, "https://none.example/feed", a})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].URL != a || got[0].ID != subscribed[a].ID || got[1].URL != c || got[1].ID != subscribed[c].ID {
		t.Errorf("FeedsAt(c, none, a) = %+v, want the records of a and c", got)
	}
	if none, err := s.FeedsAt(ctx, nil); err != nil || len(none) != 0 {
		t.Errorf("FeedsAt(nothing) = %v, %v", none, err)
	}
}

// A known entry saved again is refreshed with what changed, whether its
// title, its texts or its fragments, and saved unchanged it stays as it
// was; either way it is known, first seen when it was first saved.
func testKnownEntriesTakeTheirNewestVersion(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	plain := domain.Entry{Key: "id:plain", Title: "Plain", Link: "https://a.example/plain", Content: "<p>first</p>"}
	shown := domain.Entry{Key: "id:shown", Title: "Shown", Link: "https://a.example/shown", Content: "<p>raw</p>",
		Fragments: domain.Fragments{Rules: 1, Title: "Shown", HTML: "<p>made</p>", Excerpt: "made", Links: []string{}, Words: 230}}
	if st, err := savePoll(s, f, []domain.Entry{plain, shown}, t0); err != nil || st.New != 2 {
		t.Fatalf("first save %+v, %v", st, err)
	}
	if st, err := savePoll(s, f, []domain.Entry{plain, shown}, t0.Add(time.Hour)); err != nil || st.Known != 2 || st.New != 0 {
		t.Fatalf("unchanged save %+v, %v", st, err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false, nil); err != nil {
		t.Fatal(err)
	}
	check := func(step string, want ...domain.Entry) {
		t.Helper()
		got := digestEntries(t, s, "ada", "2026-11-21")
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries, want %d", step, len(got), len(want))
		}
		byKey := map[string]domain.Entry{}
		for _, e := range got {
			byKey[e.Key] = e
		}
		for _, w := range want {
			g := byKey[w.Key]
			if w.Fragments.Rules != 0 {
				w.Content = "" // a listing gives the raw texts only of an entry without fragments
			}
			if g.Title != w.Title || g.Content != w.Content || g.Fragments.HTML != w.Fragments.HTML ||
				g.Fragments.Excerpt != w.Fragments.Excerpt || g.Fragments.Words != w.Fragments.Words || !g.FirstSeen.Equal(t0) {
				t.Errorf("%s: %s read back %+v, want %+v first seen %v", step, w.Key, g, w, t0)
			}
		}
	}
	check("unchanged", plain, shown)
	plain.Title = "Plain, retitled"
	shown.Fragments.HTML, shown.Fragments.Excerpt, shown.Fragments.Words = "<p>made again</p>", "made again", 460
	if st, err := savePoll(s, f, []domain.Entry{plain, shown}, t0.Add(3*time.Hour)); err != nil || st.Known != 2 {
		t.Fatalf("changed save %+v, %v", st, err)
	}
	check("title and fragments changed", plain, shown)
	plain.Content = "<p>second</p>" // the texts alone
	if st, err := savePoll(s, f, []domain.Entry{plain}, t0.Add(4*time.Hour)); err != nil || st.Known != 1 {
		t.Fatalf("texts changed save %+v, %v", st, err)
	}
	check("texts changed", plain, shown)
}

// A poll's save that is not committed leaves neither its entries nor its
// record: a run that dies before the commit polls the feed again.
func testUncommittedPollLeavesNothing(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	tx, err := s.BeginPoll(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.SaveEntries(ctx, []domain.Entry{{Key: "id:1"}}, t0, 0); err != nil {
		t.Fatal(err)
	}
	changed := f
	changed.ETag, changed.LastPoll = `"new"`, t0
	if err := tx.UpdateFeed(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Feed(ctx, f.URL)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := s.EntryCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if inUTC(got) != f || counts[f.URL] != 0 {
		t.Errorf("after a rollback: record %+v, %d entries", got, counts[f.URL])
	}
	// Committed, it stays; a Rollback deferred after the Commit undoes nothing.
	if _, err := savePoll(s, changed, []domain.Entry{{Key: "id:1"}}, t0); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Feed(ctx, f.URL)
	counts, _ = s.EntryCounts(ctx)
	if got.ETag != `"new"` || counts[f.URL] != 1 {
		t.Errorf("after a commit: etag %q, %d entries", got.ETag, counts[f.URL])
	}
}

func testEntryTextsReadBack(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	long := ""
	for range 200 {
		long += "<p>Some paragraph of a post.</p>"
	}
	published := t0.Add(-time.Hour)
	in := domain.Entry{Key: "id:new", Title: "Title", Link: "https://a.example/new", Content: long, Summary: "sum",
		Author: "Ada", Published: published}
	if _, err := savePoll(s, f, []domain.Entry{in}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	entries := digestEntries(t, s, "ada", "2026-11-21")
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	want := in
	want.ID, want.FeedID, want.FeedURL, want.FirstSeen = entries[0].ID, f.ID, f.URL, t0
	got := entries[0]
	got.Published, got.FirstSeen = got.Published.UTC(), got.FirstSeen.UTC()
	if !reflect.DeepEqual(got, want) || got.ID == 0 {
		t.Errorf("entry read back\n%+v\nwant\n%+v", got, want)
	}
}

// An entry's enclosures come back as saved, in order, in the state
// opened again; a later poll's enclosures replace them, and an entry
// without any has none.
func testEnclosuresReadBack(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	episode := domain.Entry{Key: "id:ep-12", Title: "Episode 12", Link: "https://a.example/12", Enclosures: []domain.Enclosure{
		{URL: "https://cdn.a.example/12.mp3", Type: "audio/mpeg", Length: 28311552, Duration: 29*time.Minute + 29*time.Second},
		{URL: "https://cdn.a.example/12.pdf", Type: "application/pdf"},
	}}
	plain := domain.Entry{Key: "id:note", Title: "A note", Link: "https://a.example/note"}
	if _, err := savePoll(s, f, []domain.Entry{episode, plain}, t0); err != nil {
		t.Fatal(err)
	}
	// Polled again before the digest: the feed corrected the file's size.
	episode.Enclosures = slices.Clone(episode.Enclosures)
	episode.Enclosures[0].Length = 28311553
	if _, err := savePoll(s, f, []domain.Entry{episode, plain}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = reopen(t)
	got := map[string][]domain.Enclosure{}
	for _, e := range digestEntries(t, s, "ada", "2026-11-21") {
		got[e.Key] = e.Enclosures
	}
	want := map[string][]domain.Enclosure{"id:ep-12": episode.Enclosures, "id:note": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("enclosures read back\n%+v\nwant\n%+v", got, want)
	}
}

func testSubscriptionsFollowTheConfig(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	subscribe(t, s, map[string][]string{"ada": {"https://a.example/1", "https://a.example/2"}, "bob": {"https://a.example/2"}}, t0)
	subscribe(t, s, map[string][]string{"ada": {"https://a.example/2"}}, t0.Add(time.Hour))
	subs, err := s.Subscribers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs["https://a.example/1"]) != 0 || len(subs["https://a.example/2"]) != 1 || subs["https://a.example/2"][0] != "ada" {
		t.Errorf("subscribers %v", subs)
	}
}

func testDigestWindowsNeverRepeat(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	save(t, s, f, t0, "id:1")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	// An entry seen in the same second as the build, after it (a later pass
	// with the same clock), must come in the next digest, and only there.
	save(t, s, f, t0, "id:2")
	save(t, s, f, t0.Add(time.Hour), "id:3")
	d2, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(12*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d2.EntryCount != 2 {
		t.Errorf("second digest has %d entries, want 2 (id:2, id:3)", d2.EntryCount)
	}
	d3, _ := s.BuildDigest(ctx, "ada", "2026-11-23", t0.Add(36*time.Hour), false, nil)
	if d3.EntryCount != 0 {
		t.Errorf("third digest repeats %d entries", d3.EntryCount)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-23", t0.Add(37*time.Hour), false, nil); !errors.Is(err, store.ErrDigestExists) {
		t.Errorf("rebuilding a digest: %v", err)
	}
	if has, err := s.HasDigest(ctx, "ada", "2026-11-23"); !has || err != nil {
		t.Errorf("HasDigest of a built digest: %v %v", has, err)
	}
	if has, err := s.HasDigest(ctx, "ada", "2026-11-24"); has || err != nil {
		t.Errorf("HasDigest of a digest not built: %v %v", has, err)
	}
	recent, err := s.DigestsSince(ctx, "2026-11-22")
	var keys []store.DigestKey
	for _, d := range recent {
		keys = append(keys, store.DigestKey{User: d.User, Date: d.Date})
	}
	want := []store.DigestKey{{User: "ada", Date: "2026-11-22"}, {User: "ada", Date: "2026-11-23"}}
	if err != nil || !slices.Equal(keys, want) {
		t.Errorf("DigestsSince: %v (%v), want %v", keys, err, want)
	}
}

// Entries first seen by a first digest and not shown by it never come
// later, though they were first seen in the very second it was built.
func testFirstDigestWithholdsTheOlderEntries(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed", "https://b.example/feed"}}, t0)
	a, b := feeds["https://a.example/feed"], feeds["https://b.example/feed"]
	save(t, s, a, t0, tenKeys()...)
	d1, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d1.EntryCount != store.FirstDigestLimit {
		t.Fatalf("first digest has %d entries, want %d", d1.EntryCount, store.FirstDigestLimit)
	}
	// Feed b is read only after the first digest: its first digest is the
	// next one, cut the same way.
	save(t, s, b, t0.Add(time.Hour), tenKeys()...)
	save(t, s, a, t0.Add(time.Hour), "id:11")
	d2, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(12*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d2.EntryCount != 1+store.FirstDigestLimit {
		t.Errorf("second digest has %d entries, want id:11 and 5 of feed b", d2.EntryCount)
	}
	d3, _ := s.BuildDigest(ctx, "ada", "2026-11-23", t0.Add(36*time.Hour), false, nil)
	if d3.EntryCount != 0 {
		t.Errorf("third digest has %d entries of the backlog: %v", d3.EntryCount, digestKeys(t, s, "ada", "2026-11-23"))
	}
	// Each digest says which feed it cut, and by how many older entries;
	// so do the digests read back by the next run, for its pages.
	want := map[string][]domain.Backlog{
		"2026-11-21": {{FeedURL: a.URL, Older: 5}},
		"2026-11-22": {{FeedURL: b.URL, Older: 5}},
		"2026-11-23": nil,
	}
	for _, d := range []domain.Digest{d1, d2, d3} {
		if !slices.Equal(d.Backlogs, want[d.Date]) {
			t.Errorf("digest %s built with backlogs %+v, want %+v", d.Date, d.Backlogs, want[d.Date])
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	digests, err := reopen(t).Digests(ctx, "ada")
	if err != nil || len(digests) != 3 {
		t.Fatalf("digests read back: %d, %v", len(digests), err)
	}
	for _, d := range digests {
		if !slices.Equal(d.Backlogs, want[d.Date]) {
			t.Errorf("digest %s read back with backlogs %+v, want %+v", d.Date, d.Backlogs, want[d.Date])
		}
	}
}

// A feed that could not be read when the user subscribed (down, or its
// poll cut short by a killed run) is introduced later, when it is read:
// what it published after the user subscribed is all shown, whether the
// state first saw it after the feed's first read or it is dated after the
// subscription; only the rest, the backlog, is cut to the newest few.
func testIntroductionKeepsWhatCameSinceSubscribing(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	a, b, c := "https://a.example/feed", "https://b.example/feed", "https://c.example/feed"
	feeds := subscribe(t, s, map[string][]string{"ada": {a, b, c}}, t0)
	save(t, s, feeds[a], t0, "id:a0")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-20", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	// b, undated: a first read of 3 (the backlog: nobody can tell), then 7
	// more first seen after it.
	save(t, s, feeds[b], t0.Add(5*time.Hour), "id:b1", "id:b2", "id:b3")
	save(t, s, feeds[b], t0.Add(19*time.Hour), "id:b4", "id:b5", "id:b6", "id:b7", "id:b8", "id:b9", "id:b10")
	// c, dated: a first read holding 6 entries dated after the
	// subscription, 2 before it, and one dated after it was seen (a
	// publisher's clock: no proof of anything).
	var entries []domain.Entry
	var want []string
	for i := range 6 {
		k := fmt.Sprintf("id:c-new%d", i)
		want = append(want, k)
		entries = append(entries, domain.Entry{Key: k, Title: "T " + k, Link: "https://x.example/" + k,
			Published: t0.Add(time.Duration(i+1) * 30 * time.Minute)})
	}
	for k, when := range map[string]time.Time{"id:c-old1": t0.Add(-24 * time.Hour), "id:c-old2": t0.Add(-48 * time.Hour),
		"id:c-future": t0.Add(100 * time.Hour)} {
		entries = append(entries, domain.Entry{Key: k, Title: "T " + k, Link: "https://x.example/" + k, Published: when})
	}
	if _, err := savePoll(s, feeds[c], entries, t0.Add(5*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(24*time.Hour), false, nil); err != nil {
		t.Fatal(err)
	}
	// The news, more than the five a backlog may show, and so none of the
	// backlog.
	got := digestKeys(t, s, "ada", "2026-11-21")
	want = append(want, "id:b4", "id:b5", "id:b6", "id:b7", "id:b8", "id:b9", "id:b10")
	for _, k := range want {
		if !got[k] {
			t.Errorf("%s is not in the digest that introduces its feed", k)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the digest has %d entries, want %d: %v", len(got), len(want), got)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(48*time.Hour), false, nil); err != nil {
		t.Fatal(err)
	}
	if later := digestKeys(t, s, "ada", "2026-11-22"); len(later) != 0 {
		t.Errorf("the backlog held back came later: %v", later)
	}
}

func testDigestListingCapsEachFeed(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed", "https://b.example/feed"}}, t0)
	a, b := feeds["https://a.example/feed"], feeds["https://b.example/feed"]
	// Both feeds were read before the first digest, which introduces
	// them: the next digest is an ordinary one, not a first look.
	save(t, s, a, t0, "id:a-old")
	save(t, s, b, t0, "id:b-old")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-20", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range 12 {
		keys = append(keys, fmt.Sprintf("id:a%d", i))
	}
	save(t, s, a, t0.Add(time.Hour), keys...)
	save(t, s, b, t0.Add(time.Hour), "id:b0", "id:b1")
	d, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	entries, more, err := s.DigestListing(ctx, "ada", "2026-11-21", 5)
	if err != nil {
		t.Fatal(err)
	}
	perFeed := map[string]int{}
	for _, e := range entries {
		perFeed[e.FeedURL]++
	}
	if d.EntryCount != 14 || perFeed[a.URL] != 5 || perFeed[b.URL] != 2 || more[a.URL] != 7 || more[b.URL] != 0 {
		t.Errorf("digest of %d entries lists %v, more %v; want 5 and 2 listed, 7 more", d.EntryCount, perFeed, more)
	}
	// A feed's listing alone is that feed's part of the whole, in order.
	for _, f := range []string{a.URL, b.URL, "https://unknown.example/feed"} {
		one, err := s.DigestFeedListing(ctx, "ada", "2026-11-21", f, 5)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, e := range entries {
			if e.FeedURL == f {
				want = append(want, e.Key+" "+e.Fragments.HTML)
			}
		}
		for _, e := range one {
			got = append(got, e.Key+" "+e.Fragments.HTML)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("listing of %s alone: %q, want %q", f, got, want)
		}
	}
	if all := digestEntries(t, s, "ada", "2026-11-21"); len(all) != 14 {
		t.Errorf("the whole listing: %d entries, want all 14", len(all))
	}
	// The entries not listed were delivered: the next digest has none of them.
	next, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(3*time.Hour), false, nil)
	if err != nil || next.EntryCount != 0 {
		t.Errorf("next digest has %d entries (%v), want 0", next.EntryCount, err)
	}
}

// A digest tells once of each feed of the user that went away or moved
// since the previous digest.
func testNoticesOfFeedsThatChanged(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	urls := []string{"https://gone.example/feed", "https://dead.example/feed", "https://moved.example/feed", "https://origin.example/feed"}
	feeds := subscribeRead(t, s, map[string][]string{"ada": urls}, t0)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-20", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	then := t0.Add(time.Hour)
	gone, dead, moved, origin := feeds[urls[0]], feeds[urls[1]], feeds[urls[2]], feeds[urls[3]]
	gone.GoneAt = then
	dead.DeadAt, dead.LastError = then, "HTTP 500"
	moved.MovedAt, moved.EffectiveURL = then, "https://moved.example/new"
	origin.OriginFlagAt, origin.PendingURL = then, "https://elsewhere.example/feed"
	for _, f := range []domain.Feed{gone, dead, moved, origin} {
		if _, err := savePoll(s, f, nil, then); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.Notice{
		{FeedURL: urls[1], Kind: domain.NoticeDead, LastError: "HTTP 500"},
		{FeedURL: urls[0], Kind: domain.NoticeGone},
		{FeedURL: urls[2], Kind: domain.NoticeMoved, NewURL: "https://moved.example/new"},
		{FeedURL: urls[3], Kind: domain.NoticeOrigin, NewURL: "https://elsewhere.example/feed"},
	}
	if !slices.Equal(d.Notices, want) {
		t.Errorf("notices %+v\nwant %+v", d.Notices, want)
	}
	stored, err := s.Digests(ctx, "ada")
	if err != nil || len(stored) != 2 || stored[0].Date != "2026-11-21" || !slices.Equal(stored[0].Notices, want) {
		t.Errorf("digests as stored, newest first: %+v (%v)", stored, err)
	}
	next, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(26*time.Hour), false, nil)
	if err != nil || len(next.Notices) != 0 {
		t.Errorf("the next digest tells again: %+v (%v)", next.Notices, err)
	}
}

// A digest is listed as unrendered until its pages are written, and as
// unsent until it is sent; a send whose data ended and that never got
// its answer is interrupted, and not tried again.
func testDigestsRenderedAndSent(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	subscribeRead(t, s, map[string][]string{"ada": {"https://a.example/feed"}, "bob": {"https://a.example/feed"}}, t0)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "bob", "2026-11-21", t0.Add(time.Minute), false, nil); err != nil {
		t.Fatal(err)
	}
	dates := func(ds []domain.Digest, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, d.User+"/"+d.Date)
		}
		return out
	}
	if got := dates(s.Unrendered(ctx)); !slices.Equal(got, []string{"ada/2026-11-21", "bob/2026-11-21"}) {
		t.Errorf("unrendered %v", got)
	}
	if err := s.MarkRendered(ctx, "ada", "2026-11-21", t0); err != nil {
		t.Fatal(err)
	}
	if got := dates(s.Unrendered(ctx)); !slices.Equal(got, []string{"bob/2026-11-21"}) {
		t.Errorf("unrendered after ada's pages %v", got)
	}
	if got := dates(s.Unsent(ctx)); !slices.Equal(got, []string{"ada/2026-11-21"}) {
		t.Errorf("unsent %v, want only the digest that wants sending", got)
	}
	if err := s.BeginSend(ctx, "ada", "2026-11-21", t0); err != nil {
		t.Fatal(err)
	}
	// A send is begun once: a second run asking is told it is taken.
	if err := s.BeginSend(ctx, "ada", "2026-11-21", t0); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("a second BeginSend: %v, want ErrSendTaken", err)
	}
	if got := dates(s.Unsent(ctx)); len(got) != 0 {
		t.Errorf("a send in progress is to be sent again: %v", got)
	}
	if got := dates(s.InterruptedSends(ctx)); len(got) != 0 {
		t.Errorf("a send claimed whose data did not end is interrupted: %v", got)
	}
	if err := s.EndSendData(ctx, "ada", "2026-11-21", t0); err != nil {
		t.Fatal(err)
	}
	if got := dates(s.InterruptedSends(ctx)); !slices.Equal(got, []string{"ada/2026-11-21"}) {
		t.Errorf("interrupted %v", got)
	}
	if got := dates(s.NotSent(ctx, t0)); !slices.Equal(got, []string{"ada/2026-11-21"}) {
		t.Errorf("not sent %v", got)
	}
	if err := s.MarkSent(ctx, "ada", "2026-11-21", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginSend(ctx, "ada", "2026-11-21", t0.Add(time.Hour)); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("BeginSend of a sent digest: %v, want ErrSendTaken", err)
	}
	for name, list := range map[string][]string{"unsent": dates(s.Unsent(ctx)), "interrupted": dates(s.InterruptedSends(ctx)),
		"not sent": dates(s.NotSent(ctx, t0))} {
		if len(list) != 0 {
			t.Errorf("%s after the send: %v", name, list)
		}
	}
	ds, err := s.Digests(ctx, "ada")
	if err != nil || len(ds) != 1 || !ds[0].SentAt.Equal(t0.Add(time.Minute)) || !ds[0].RenderedAt.Equal(t0) || !ds[0].SendWanted {
		t.Errorf("digest record %+v (%v)", ds, err)
	}
}

// A run that dies holding the claims of two sends, one before the end of
// its message's data and one after, leaves the first to the next run
// (the server cannot have taken it) and the second in doubt, for good.
// A run ends a message's data only under its own claim.
func testSendOfADeadRunIsFreeUntilItsDataEnded(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	subscribeRead(t, s, map[string][]string{"ada": {"https://a.example/feed"}, "bob": {"https://a.example/feed"}}, t0)
	for _, user := range []string{"ada", "bob"} {
		if _, err := s.BuildDigest(ctx, user, "2026-11-21", t0, true, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.BeginSend(ctx, user, "2026-11-21", t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EndSendData(ctx, "bob", "2026-11-21", t0); err != nil {
		t.Fatal(err)
	}
	if err := s.EndSendData(ctx, "bob", "2026-11-21", t0); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("the data of a send ended twice: %v, want ErrSendTaken", err)
	}
	// The run dies here.
	s.Close()
	s = reopen(t)
	keys := func(ds []domain.Digest, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, d.User)
		}
		return out
	}
	if got := keys(s.Unsent(ctx)); !slices.Equal(got, []string{"ada"}) {
		t.Errorf("unsent after the run died %v, want ada's (its data never ended)", got)
	}
	if got := keys(s.InterruptedSends(ctx)); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("interrupted after the run died %v, want bob's", got)
	}
	if err := s.EndSendData(ctx, "ada", "2026-11-21", t0); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("the data of a send ended without a claim: %v, want ErrSendTaken", err)
	}
	if err := s.BeginSend(ctx, "bob", "2026-11-21", t0.Add(time.Hour)); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("a send in doubt begun again: %v, want ErrSendTaken", err)
	}
	if err := s.BeginSend(ctx, "ada", "2026-11-21", t0.Add(time.Hour)); err != nil {
		t.Fatalf("the send of a dead run begun again: %v", err)
	}
	if got := keys(s.Unsent(ctx)); len(got) != 0 {
		t.Errorf("a send claimed again is still unsent: %v", got)
	}
	if err := s.EndSendData(ctx, "ada", "2026-11-21", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSent(ctx, "ada", "2026-11-21", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := keys(s.InterruptedSends(ctx)); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("interrupted after ada's send %v, want bob's alone", got)
	}
}

// A digest whose send is skipped is no longer to be sent, nor shown as
// unsent; a digest already sent, or whose send started, stays so.
func testSkippedSendIsNotUnsent(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	subscribeRead(t, s, map[string][]string{"ada": {"https://a.example/feed"}, "bob": {"https://a.example/feed"}}, t0)
	for _, user := range []string{"ada", "bob"} {
		if _, err := s.BuildDigest(ctx, user, "2026-11-21", t0, true, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.BeginSend(ctx, "bob", "2026-11-21", t0); err != nil {
		t.Fatal(err)
	}
	for _, user := range []string{"ada", "bob"} {
		if err := s.SkipSend(ctx, user, "2026-11-21"); err != nil {
			t.Fatal(err)
		}
	}
	unsent, err := s.Unsent(ctx)
	if err != nil || len(unsent) != 0 {
		t.Errorf("unsent after the skip: %+v (%v)", unsent, err)
	}
	notSent, err := s.NotSent(ctx, t0.Add(-time.Hour))
	if err != nil || len(notSent) != 1 || notSent[0].User != "bob" {
		t.Errorf("not sent %+v (%v), want only bob's, whose send had started", notSent, err)
	}
	ds, err := s.Digests(ctx, "ada")
	if err != nil || len(ds) != 1 || ds[0].SendWanted || !ds[0].SentAt.IsZero() {
		t.Errorf("ada's digest after the skip: %+v (%v)", ds, err)
	}
}

func testSendFailuresAreRecorded(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	subscribeRead(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)
	for i, date := range []string{"2026-11-21", "2026-11-22"} {
		if _, err := s.BuildDigest(ctx, "ada", date, t0.Add(time.Duration(i)*24*time.Hour), true, nil); err != nil {
			t.Fatal(err)
		}
	}
	later := t0.Add(25 * time.Hour)
	if err := s.MarkSendFailed(ctx, "ada", "2026-11-21", t0, "451 later", false); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSendFailed(ctx, "ada", "2026-11-21", later, "535 refused", true); err != nil {
		t.Fatal(err)
	}
	unsent, err := s.Unsent(ctx)
	if err != nil || len(unsent) != 2 {
		t.Fatalf("unsent %v (%v), want both digests", unsent, err)
	}
	d := unsent[0]
	if d.SendAttempts != 2 || !d.SendFailedAt.Equal(later) || !d.SendPermanent || d.SendError != "535 refused" {
		t.Errorf("send record %+v", d)
	}
	if err := s.GiveUpSend(ctx, "ada", "2026-11-21", later, "superseded"); err != nil {
		t.Fatal(err)
	}
	if unsent, _ := s.Unsent(ctx); len(unsent) != 1 || unsent[0].Date != "2026-11-22" {
		t.Errorf("a digest given up is still to be sent: %v", unsent)
	}
	notSent, _ := s.NotSent(ctx, later)
	if len(notSent) != 2 || notSent[0].SendGivenUpWhy != "superseded" || !notSent[0].SendGivenUp.Equal(later) {
		t.Errorf("not sent: %+v", notSent)
	}
	if notSent, _ := s.NotSent(ctx, later.Add(time.Hour)); len(notSent) != 1 {
		t.Errorf("a digest given up before since is still listed: %+v", notSent)
	}
	// A send that failed may begin again.
	for i := range 2 {
		if err := s.BeginSend(ctx, "ada", "2026-11-22", later); err != nil {
			t.Fatalf("send %d of a digest whose send failed: %v", i+1, err)
		}
		if err := s.MarkSendFailed(ctx, "ada", "2026-11-22", later, "451 later", false); err != nil {
			t.Fatal(err)
		}
	}
}

func testAttemptMarkLastsUntilThePollIsSaved(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed", "https://b.example/feed"}}, t0)
	a, b := feeds["https://a.example/feed"], feeds["https://b.example/feed"]
	for _, f := range []domain.Feed{a, b} {
		if err := s.BeginAttempt(ctx, f.ID, t0); err != nil {
			t.Fatal(err)
		}
	}
	save(t, s, a, t0, "id:1")
	// The process dies here: the mark of b is committed, a's is gone.
	s.Close()
	s = reopen(t)
	left, err := s.UnfinishedAttempts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Feed.URL != b.URL || !left[0].Started.Equal(t0) {
		t.Fatalf("unfinished: %+v, want only %s since %v", left, b.URL, t0)
	}
	if err := s.DropAttempts(ctx); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.UnfinishedAttempts(ctx); len(left) != 0 {
		t.Errorf("after DropAttempts: %+v", left)
	}
}

// A mark counts the reads of its feed begun in a row and never saved
// (store.Attempt.Reads), across runs; a save clears the count with the
// mark.
func testAttemptMarkCountsReadsCutShortInARow(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)
	a := feeds["https://a.example/feed"]
	readsAfterDeath := func(started time.Time) int {
		t.Helper()
		if err := s.BeginAttempt(ctx, a.ID, started); err != nil {
			t.Fatal(err)
		}
		s.Close() // the run dies reading it
		s = reopen(t)
		left, err := s.UnfinishedAttempts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) != 1 || left[0].Feed.URL != a.URL || !left[0].Started.Equal(started) {
			t.Fatalf("unfinished: %+v, want %s since %v", left, a.URL, started)
		}
		return left[0].Reads
	}
	if n := readsAfterDeath(t0); n != 1 {
		t.Errorf("after one read cut short: %d reads, want 1", n)
	}
	if n := readsAfterDeath(t0.Add(time.Minute)); n != 2 {
		t.Errorf("after two reads cut short in a row: %d reads, want 2", n)
	}
	save(t, s, a, t0.Add(2*time.Minute), "id:1")
	if left, _ := s.UnfinishedAttempts(ctx); len(left) != 0 {
		t.Errorf("after the save: %+v", left)
	}
	if n := readsAfterDeath(t0.Add(time.Hour)); n != 1 {
		t.Errorf("a read cut short after a save: %d reads, want 1 (the save clears the count)", n)
	}
}

// UpdateFeeds writes every record given, and clears their marks, all or
// nothing.
func testFeedRecordsSavedTogether(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	urls := []string{"https://a.example/feed", "https://b.example/feed", "https://c.example/feed"}
	feeds := subscribe(t, s, map[string][]string{"ada": urls}, t0)
	a, b, c := feeds[urls[0]], feeds[urls[1]], feeds[urls[2]]
	for _, f := range []domain.Feed{a, c} {
		if err := s.BeginAttempt(ctx, f.ID, t0); err != nil {
			t.Fatal(err)
		}
	}
	a.LastStatus, a.LastPoll, a.NextPoll, a.Polls = 304, t0, t0.Add(time.Hour), 1
	b.LastStatus, b.LastPoll, b.LastError, b.ErrorCount = 503, t0, "HTTP 503", 1
	if err := s.UpdateFeeds(ctx, []domain.Feed{a, b}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = reopen(t)
	for _, want := range []domain.Feed{a, b} {
		got, err := s.Feed(ctx, want.URL)
		if err != nil {
			t.Fatal(err)
		}
		if inUTC(got) != want {
			t.Errorf("read back\n%+v\nwant\n%+v", got, want)
		}
	}
	left, err := s.UnfinishedAttempts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Feed.URL != c.URL {
		t.Errorf("unfinished after UpdateFeeds: %+v, want only %s", left, c.URL)
	}
	// One record of a feed that does not exist: none is written.
	a2, gone := a, c
	a2.LastStatus = 200
	gone.ID += 1000
	if err := s.UpdateFeeds(ctx, []domain.Feed{a2, gone}); !errors.Is(err, store.ErrNoFeed) {
		t.Errorf("a record of no feed: %v, want ErrNoFeed", err)
	}
	if got, _ := s.Feed(ctx, a.URL); got.LastStatus != 304 {
		t.Errorf("a failed UpdateFeeds wrote %+v", got)
	}
	if err := s.UpdateFeeds(ctx, nil); err != nil {
		t.Errorf("no records: %v", err)
	}
}

func testPruneKeepsWhatDigestsStillNeed(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	save(t, s, f, t0, "id:old")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	save(t, s, f, t0.Add(time.Hour), "id:new") // id:old leaves the feed
	later := t0.AddDate(0, 0, 61)
	if n, _ := s.Prune(ctx, later.AddDate(0, 0, -60)); n != 0 {
		t.Fatalf("pruned %d entries of an unrendered digest", n)
	}
	s.MarkRendered(ctx, "ada", "2026-11-21", t0)
	if n, _ := s.Prune(ctx, later.AddDate(0, 0, -60)); n != 1 {
		t.Fatalf("pruned %d, want 1", n)
	}
	if entries := digestEntries(t, s, "ada", "2026-11-21"); len(entries) != 0 {
		t.Errorf("a digest still lists %d pruned entries", len(entries))
	}
}

func testDropTextsKeepsIdentityAndPendingDigests(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	if _, err := savePoll(s, f, []domain.Entry{{Key: "id:1", Title: "One", Content: "<p>long text</p>"}}, t0); err != nil {
		t.Fatal(err)
	}
	s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil)
	later := t0.AddDate(0, 0, 20)
	if n, _ := s.DropTexts(ctx, later.AddDate(0, 0, -14)); n != 0 {
		t.Fatalf("dropped the text of an entry an unrendered digest needs")
	}
	s.MarkRendered(ctx, "ada", "2026-11-21", t0)
	if n, _ := s.DropTexts(ctx, later.AddDate(0, 0, -14)); n != 1 {
		t.Fatalf("dropped %d texts, want 1", n)
	}
	entries := digestEntries(t, s, "ada", "2026-11-21")
	if len(entries) != 1 || entries[0].Title != "One" || entries[0].Content != "" {
		t.Fatalf("after dropping texts: %+v", entries)
	}
	// Its identity stays: seen again, it is not new.
	if st := save(t, s, f, later, "id:1"); st.New != 0 {
		t.Errorf("an entry whose text was dropped came back as new")
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
}

// A digest's page is written again (to link the next digest) only while
// the state still holds what the page showed.
func testDigestIntactUntilTextsOrEntriesGo(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	if _, err := savePoll(s, f, []domain.Entry{{Key: "id:1", Title: "One", Content: "<p>text</p>"}, {Key: "id:2", Title: "Two"}}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	intact := func() bool {
		t.Helper()
		ok, err := s.DigestIntact(ctx, "ada", "2026-11-21")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !intact() {
		t.Fatal("a digest just built is not intact (an entry without text counts as whole)")
	}
	if ok, err := s.DigestIntact(ctx, "ada", "2020-01-01"); ok || err != nil {
		t.Errorf("a digest that does not exist: %v %v", ok, err)
	}
	s.MarkRendered(ctx, "ada", "2026-11-21", t0)
	later := t0.AddDate(0, 0, 20)
	if _, err := s.DropTexts(ctx, later.AddDate(0, 0, -14)); err != nil {
		t.Fatal(err)
	}
	if intact() {
		t.Error("a digest whose entries lost their texts is intact")
	}
	if _, err := s.Prune(ctx, later); err != nil {
		t.Fatal(err)
	}
	if intact() {
		t.Error("a digest whose entries were pruned is intact")
	}
}

// A feed's problem is kept as a code with its facts (its kind, an HTTP
// status, a host, a date), and so is the problem a digest records, to be
// worded when a page is written: each comes back as it was kept, in the
// feed's record and in the digest. A feed whose words an older version
// kept (no code) keeps them; a dead feed's notice keeps its last error.
func testProblemCodesReadBack(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	urls := []string{"https://cert.example/feed", "https://http.example/feed", "https://old.example/feed", "https://dead.example/feed"}
	feeds := subscribeRead(t, s, map[string][]string{"ada": urls}, t0)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	now, since := t0.Add(24*time.Hour), t0.Add(2*time.Hour)
	codes := map[string]domain.ProblemCode{
		urls[0]: {Kind: domain.ProblemCertExpired, Host: "cert.example:8443", Expired: t0.Add(-72 * time.Hour),
			Names: "cert.example, www.cert.example", Detail: "x509: certificate has expired"},
		urls[1]: domain.HTTPProblem(503),
	}
	for _, url := range urls {
		f := feeds[url]
		f.ErrorCount, f.FirstError, f.ProblemCode, f.ProblemAt, f.ProblemSince = 2, since, codes[url], now, since
		switch url {
		case "https://old.example/feed":
			f.Problem = "not found (404)"
		case "https://dead.example/feed":
			f.DeadAt, f.LastError, f.ProblemCode = now, "HTTP 500", domain.HTTPProblem(500)
			codes[url] = f.ProblemCode
		}
		if _, err := savePoll(s, f, nil, now); err != nil {
			t.Fatal(err)
		}
		got, err := s.Feed(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if got = inUTC(got); got.ProblemCode != f.ProblemCode || got.Problem != f.Problem {
			t.Errorf("%s: read back code %+v, words %q; want %+v, %q", url, got.ProblemCode, got.Problem, f.ProblemCode, f.Problem)
		}
	}
	built, err := s.BuildDigest(ctx, "ada", "2026-11-22", now, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Digests(ctx, "ada")
	if err != nil || len(stored) != 2 {
		t.Fatalf("digests %+v, %v", stored, err)
	}
	for what, d := range map[string]domain.Digest{"built": built, "stored": stored[0]} {
		if len(d.Problems) != len(urls) {
			t.Fatalf("%s: problems %+v", what, d.Problems)
		}
		for _, p := range d.Problems {
			code := p.Code
			code.Expired = code.Expired.UTC()
			if code != codes[p.FeedURL] {
				t.Errorf("%s: %s: code %+v, want %+v", what, p.FeedURL, code, codes[p.FeedURL])
			}
			if wantWords := map[bool]string{true: "not found (404)"}[p.FeedURL == "https://old.example/feed"]; p.Reason != wantWords {
				t.Errorf("%s: %s: words %q, want %q", what, p.FeedURL, p.Reason, wantWords)
			}
		}
		if len(d.Notices) != 1 || d.Notices[0].LastError != "HTTP 500" || d.Notices[0].Detail != "" {
			t.Errorf("%s: notices %+v, want the dead feed's with its last error", what, d.Notices)
		}
	}
}

// A digest records the user's feeds that could not be read since the
// previous digest: failing now, gone or dead since, or failed in between
// and read again since; not a feed that failed (or went) before the
// previous digest, nor another user's.
func testDigestRecordsFeedsThatCouldNotBeRead(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	urls := []string{"https://ok.example/feed", "https://failing.example/feed", "https://recovered.example/feed",
		"https://long-ago.example/feed", "https://gone.example/feed", "https://dead.example/feed", "https://gone-before.example/feed"}
	feeds := subscribeRead(t, s, map[string][]string{"ada": urls, "bob": {"https://bob.example/feed"}}, t0)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(24 * time.Hour)
	set := func(url string, change func(*domain.Feed)) {
		t.Helper()
		f := feeds[url]
		change(&f)
		if _, err := savePoll(s, f, nil, now); err != nil {
			t.Fatal(err)
		}
	}
	since := t0.Add(-48 * time.Hour)
	went := t0.Add(2 * time.Hour) // since the previous digest
	set("https://failing.example/feed", func(f *domain.Feed) {
		f.ErrorCount, f.FirstError, f.Problem, f.ProblemAt, f.ProblemSince = 3, since, "not found (404)", now, since
	})
	set("https://recovered.example/feed", func(f *domain.Feed) {
		f.Problem, f.ProblemAt, f.ProblemSince, f.LastSuccess = "timed out", t0.Add(time.Hour), t0.Add(time.Hour), t0.Add(5*time.Hour)
	})
	set("https://long-ago.example/feed", func(f *domain.Feed) {
		f.Problem, f.ProblemAt, f.ProblemSince, f.LastSuccess = "timed out", t0, t0, t0.Add(time.Hour)
	})
	set("https://gone.example/feed", func(f *domain.Feed) {
		f.GoneAt, f.Problem, f.ProblemAt, f.ProblemSince = went, "gone (410)", went, since
	})
	set("https://dead.example/feed", func(f *domain.Feed) { f.DeadAt, f.FirstError, f.ErrorCount = went, since.AddDate(0, 0, -90), 400 })
	set("https://gone-before.example/feed", func(f *domain.Feed) { f.GoneAt, f.ErrorCount = t0.Add(-time.Hour), 1 })
	set("https://bob.example/feed", func(f *domain.Feed) { f.ErrorCount, f.Problem, f.ProblemAt = 1, "timed out", now })

	d, err := s.BuildDigest(ctx, "ada", "2026-11-22", now, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.Problem{
		{FeedURL: "https://dead.example/feed", State: domain.ProblemDead, Since: since.AddDate(0, 0, -90)},
		// Failing since before the previous digest, which did not name
		// it: a reminder.
		{FeedURL: "https://failing.example/feed", State: domain.ProblemFailing, Reason: "not found (404)", Since: since, Again: true},
		{FeedURL: "https://gone.example/feed", State: domain.ProblemGone, Reason: "gone (410)", Since: since},
		// recovered.example failed and was read again: nothing to say.
	}
	check := func(what string, got []domain.Problem) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %+v, want %+v", what, got, want)
		}
		for i := range want {
			if got[i].FeedURL != want[i].FeedURL || got[i].State != want[i].State || got[i].Reason != want[i].Reason ||
				!got[i].Since.Equal(want[i].Since) || !got[i].Until.Equal(want[i].Until) || got[i].Again != want[i].Again {
				t.Errorf("%s %d: %+v, want %+v", what, i, got[i], want[i])
			}
		}
	}
	check("built", d.Problems)
	// The record stays as built, whatever the feeds do next.
	set("https://failing.example/feed", func(f *domain.Feed) { f.ErrorCount, f.FirstError = 0, time.Time{} })
	stored, err := s.Digests(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	check("stored", stored[0].Problems)
	if len(stored[1].Problems) != 0 {
		t.Errorf("the first digest records %+v", stored[1].Problems)
	}
	// The feeds that went for good are told of once.
	next, err := s.BuildDigest(ctx, "ada", "2026-11-23", now.Add(24*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Problems) != 0 {
		t.Errorf("the next digest records %+v", next.Problems)
	}
}

// A user's first digest waits until one of their feeds has been read:
// built before, it would be empty and used up. Nothing is recorded.
func testFirstDigestWaitsForAFeedRead(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://typo.example/fed", "https://a.example/feed"}}, t0)
	f := feeds["https://typo.example/fed"]
	f.ErrorCount, f.FirstError, f.Problem, f.ProblemAt = 1, t0, "not found (404)", t0
	if _, err := savePoll(s, f, nil, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-20", t0, false, nil); !errors.Is(err, store.ErrNoFeedReadYet) {
		t.Fatalf("first digest with no feed read: %v, want ErrNoFeedReadYet", err)
	}
	if ds, err := s.Digests(ctx, "ada"); err != nil || len(ds) != 0 {
		t.Fatalf("a waiting first digest recorded %+v (%v)", ds, err)
	}
	later := t0.Add(time.Hour)
	save(t, s, withSuccess(feeds["https://a.example/feed"], later), later, "a-1")
	d, err := s.BuildDigest(ctx, "ada", "2026-11-20", later, false, nil)
	if err != nil || d.EntryCount != 1 || len(d.Problems) != 1 {
		t.Fatalf("first digest once a feed is read: %+v, %v", d, err)
	}
}

func withSuccess(f domain.Feed, at time.Time) domain.Feed {
	f.LastSuccess = at
	return f
}

// A feed that goes on failing is named in full in the first digest after
// its problem began, then at most once a week as a reminder, read back
// from the digests the state keeps; a new problem after a recovery is
// named in full again.
func testFailingFeedNamedOnceThenWeekly(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	url := "https://failing.example/feed"
	feeds := subscribeRead(t, s, map[string][]string{"ada": {url}}, t0)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-20", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	fail := func(began, at time.Time) {
		t.Helper()
		f := feeds[url]
		f.ErrorCount, f.FirstError, f.Problem, f.ProblemAt, f.ProblemSince = 1, began, "not found (404)", at, began
		if _, err := savePoll(s, f, nil, at); err != nil {
			t.Fatal(err)
		}
	}
	began := t0.Add(2 * time.Hour)
	fail(began, began)
	var named []string // the day of each digest naming the feed, "+" for a reminder
	for day := 1; day <= 16; day++ {
		now := t0.AddDate(0, 0, day)
		if day == 15 { // read again, then failing anew
			fail(now.Add(-time.Hour), now.Add(-time.Hour))
		}
		d, err := s.BuildDigest(ctx, "ada", now.Format(time.DateOnly), now, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.Problems {
			mark := ""
			switch {
			case p.Quiet:
				continue
			case p.Again:
				mark = "+"
			}
			named = append(named, fmt.Sprint(day, mark))
		}
		if len(d.Problems) != 1 {
			t.Errorf("day %d: problems %+v, want the failing feed, named or quiet", day, d.Problems)
		}
	}
	if got, want := strings.Join(named, " "), "1 8+ 15"; got != want {
		t.Errorf("digests naming the failing feed, by day (+: a reminder): %s, want %s", got, want)
	}
}

// An entry's fragments are stored with it and read back in its digest's
// listing (without the raw texts); entries saved without fragments, or
// with fragments of other rules, are listed as stale with their texts
// until fragments of the current rules are saved.
func testFragmentsStoredAndMadeAgain(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0.Add(-time.Hour))["https://a.example/feed"]
	shown := domain.Fragments{Rules: 3, Title: "Shown", Excerpt: "An excerpt", HTML: "<p>An <a href=\"https://b.example/\">excerpt</a></p>",
		Whole: true, Links: []string{"https://b.example/", "mailto:x@b.example"}}
	with := domain.Entry{Key: "id:with", Title: "With", Content: "<p>raw</p>", Fragments: shown}
	without := domain.Entry{Key: "id:without", Title: "Without", Content: "<p>raw too</p>", Summary: "sum"}
	if _, err := savePoll(s, f, []domain.Entry{with, without}, t0); err != nil {
		t.Fatal(err)
	}
	stale := func(rules int) []domain.Entry {
		t.Helper()
		out, err := s.StaleFragments(ctx, rules, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := stale(3)
	if len(got) != 1 || got[0].Key != "id:without" || got[0].Content != "<p>raw too</p>" || got[0].Summary != "sum" || got[0].FeedURL != f.URL {
		t.Fatalf("stale under rules 3: %+v, want the entry saved without fragments, with its texts", got)
	}
	if n := len(stale(4)); n != 2 {
		t.Errorf("%d entries stale under rules 4, want both", n)
	}
	if after := got[0].ID; len(mustStale(t, s, 3, after)) != 0 {
		t.Error("entries after the last one listed")
	}
	got[0].Fragments = domain.Fragments{Rules: 3, Title: "Made again", HTML: "<p>raw too</p>"}
	if err := s.SaveFragments(ctx, got); err != nil {
		t.Fatal(err)
	}
	if n := len(stale(3)); n != 0 {
		t.Errorf("%d entries stale after saving their fragments", n)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, nil); err != nil {
		t.Fatal(err)
	}
	listed := map[string]domain.Entry{}
	for _, e := range digestEntries(t, s, "ada", "2026-11-21") {
		listed[e.Key] = e
	}
	if e := listed["id:with"]; !reflect.DeepEqual(e.Fragments, shown) || e.Content != "" {
		t.Errorf("listed %+v, want fragments %+v and no raw text", e, shown)
	}
	if e := listed["id:without"]; e.Fragments.Title != "Made again" || e.Fragments.Rules != 3 || e.Title != "Without" {
		t.Errorf("listed %+v, want the fragments saved later", e)
	}
	titles, _, err := s.DigestTitles(ctx, "ada", "2026-11-21", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range titles {
		want := domain.Fragments{Rules: 3, Title: listed[e.Key].Fragments.Title}
		if !reflect.DeepEqual(e.Fragments, want) || e.Content != "" || e.Title != listed[e.Key].Title {
			t.Errorf("titles listed %+v, want the display title alone: %+v", e, want)
		}
	}
	if len(titles) != 2 {
		t.Errorf("%d titles listed, want 2", len(titles))
	}
}

func mustStale(t *testing.T, s store.Store, rules int, after int64) []domain.Entry {
	t.Helper()
	out, err := s.StaleFragments(ctx, rules, after, 10)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Open opens the state named so with a back end's open (Open,
// OpenReader), failing t if it cannot, and closes it when t ends.
func Open[S io.Closer](t *testing.T, open func(context.Context, string) (S, error), state string) S {
	t.Helper()
	s, err := open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The installation's id is none until kept, then the first kept for
// good, through a reopen: Atom ids are built from it.
func testInstallationKeptOnce(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	if id, err := s.Installation(ctx); err != nil || id != "" {
		t.Fatalf("Installation of a new state = %q, %v; want none", id, err)
	}
	if id, err := s.KeepInstallation(ctx, "first"); err != nil || id != "first" {
		t.Fatalf("KeepInstallation(first) = %q, %v", id, err)
	}
	if id, err := s.KeepInstallation(ctx, "second"); err != nil || id != "first" {
		t.Fatalf("KeepInstallation(second) = %q, %v; want the first kept", id, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = reopen(t)
	if id, err := s.Installation(ctx); err != nil || id != "first" {
		t.Errorf("Installation after a reopen = %q, %v; want first", id, err)
	}
}
