package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// savePollKeeping is savePoll keeping the texts of withTexts new entries.
func savePollKeeping(t *testing.T, s store.Store, f domain.Feed, entries []domain.Entry, now time.Time, withTexts int) store.SaveStats {
	t.Helper()
	tx, err := s.BeginPoll(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	st, err := tx.SaveEntries(ctx, entries, now, withTexts)
	if err != nil {
		t.Fatal(err)
	}
	f.LastPoll = now
	if err := tx.UpdateFeed(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

func post(key, link, title string) domain.Entry {
	return domain.Entry{Key: key, Link: link, Title: title, Content: "<p>" + title + "</p>"}
}

// A site rebuilt with a new guid for every post brings its posts again
// under new keys: an entry with a new key whose link is that of one
// stored entry of the feed is that entry again (not new, not shown
// again), unless the link is shared, in the body or among the stored
// entries (a feed linking every entry to its home page); copies of one
// post stored before the rule (same link and title) count as one.
func testRebuiltGuidsAreTheKnownEntry(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	home := "https://a.example/"
	first := []domain.Entry{
		post("id:build1/a", "https://a.example/a", "A"),
		post("id:build1/b", "https://a.example/b", "B"),
		post("id:h1", home, "H1"), post("id:h2", home, "H2"),
		// Copies of C, as rebuilds left them before the rule (two
		// entries with one link in one body are two entries).
		post("id:build0/c", "https://a.example/c", "C"),
		post("id:build1/c", "https://a.example/c", "C"),
	}
	first[5].Content = "<p>C, built again</p>" // else one post listed twice
	if st := savePollKeeping(t, s, f, first, t0, 0); st.New != 6 {
		t.Fatalf("first save %+v", st)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(time.Minute), false, nil); err != nil {
		t.Fatal(err)
	}
	rebuilt := []domain.Entry{
		post("id:build2/a", "https://a.example/a", "A, edited"),
		post("id:build2/b", "https://a.example/b", "B"),
		post("id:build2/c", "https://a.example/c", "C"),
		post("id:h3", home, "H3"), // one entry with the home page link now, but two stored
		post("id:build2/d", "https://a.example/d", "D"),
	}
	if st := savePollKeeping(t, s, f, rebuilt, t0.Add(time.Hour), 0); st.New != 2 || st.Known != 3 {
		t.Errorf("rebuilt save %+v, want 2 new (H3, D) and 3 known (A, B, C)", st)
	}
	// Two rebuilds before the next digest: still the same entries.
	rebuilt3 := []domain.Entry{
		post("id:build3/a", "https://a.example/a", "A, edited"),
		post("id:build3/b", "https://a.example/b", "B"),
		post("id:build3/d", "https://a.example/d", "D"),
		// Two entries with one link in a body: not taken for one.
		post("id:build3/e1", "https://a.example/e", "E1"),
		post("id:build3/e2", "https://a.example/e", "E2"),
	}
	if st := savePollKeeping(t, s, f, rebuilt3, t0.Add(2*time.Hour), 0); st.New != 2 || st.Known != 3 {
		t.Errorf("second rebuild %+v, want 2 new (E1, E2) and 3 known", st)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(3*time.Hour), false, nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range digestEntries(t, s, "ada", "2026-11-22") {
		got = append(got, e.Title)
	}
	if fmt.Sprint(got) != "[E1 E2 H3 D]" {
		t.Errorf("second digest %q, want H3, D, E1, E2 once each", got)
	}
	counts, err := s.EntryCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := counts["https://a.example/feed"]; n != 10 {
		t.Errorf("%d entries stored, want 10", n)
	}
}

// Of a poll's new entries, those past what a digest shows are stored
// without their texts, and never gain them; once every subscriber was
// given them, no digest waits for them, the feed no longer lists them
// and store.BareKept has passed, they are forgotten.
func testOverflowStoredWithoutTexts(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	var body []domain.Entry
	for i := range 6 {
		e := post(fmt.Sprintf("id:%d", i), fmt.Sprintf("https://a.example/%d", i), fmt.Sprintf("P%d", i))
		e.Published = t0.Add(-time.Duration(i) * time.Hour) // newest first
		body = append(body, e)
	}
	if st := savePollKeeping(t, s, f, body, t0, 2); st.New != 6 {
		t.Fatalf("first save %+v", st)
	}
	// Saved again with their texts: those stored without stay so.
	if st := savePollKeeping(t, s, f, body, t0.Add(time.Hour), 2); st.Known != 6 {
		t.Fatalf("second save %+v", st)
	}
	d, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.EntryCount != 5 { // a first digest: the five newest
		t.Fatalf("digest of %d entries", d.EntryCount)
	}
	listed, more, err := s.DigestListing(ctx, "ada", "2026-11-21", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range listed {
		hasTexts := e.Content != "" || e.Fragments.Rules != 0
		if hasTexts != (i < 2) {
			t.Errorf("entry %d (%s): texts %v, want %v", i, e.Title, hasTexts, i < 2)
		}
	}
	if len(listed) != 5 || len(more) != 0 {
		t.Errorf("listing %d entries, more %v", len(listed), more)
	}
	if err := s.MarkRendered(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.DigestIntact(ctx, "ada", "2026-11-21"); !ok || err != nil {
		t.Errorf("DigestIntact = %v, %v: entries stored without texts were never shown with them", ok, err)
	}
	count := func() int {
		t.Helper()
		counts, err := s.EntryCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return counts["https://a.example/feed"]
	}
	later := []domain.Entry{post("id:new", "https://a.example/new", "New")}
	// Still within BareKept: kept.
	savePollKeeping(t, s, f, append(later, body[5]), t0.Add(store.BareKept-time.Hour), 2)
	if n := count(); n != 7 {
		t.Errorf("%d entries within BareKept, want 7", n)
	}
	// Past it: the four stored without texts go, but the one the body
	// still lists (P5, withheld by the first digest) and those with texts.
	savePollKeeping(t, s, f, append(later, body[5]), t0.Add(store.BareKept+time.Hour), 2)
	if n := count(); n != 4 {
		t.Errorf("%d entries past BareKept, want 4 (two with texts, P5 still listed, New)", n)
	}
}

// Polled several times between two digests, a busy feed keeps the texts
// of the entries the next digest can show (the withTexts newest since
// it), not those of every poll's newest.
func testTextsKeptForWhatTheNextDigestShows(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	savePollKeeping(t, s, f, []domain.Entry{post("id:first", "https://a.example/first", "First")}, t0, 2)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(time.Minute), false, nil); err != nil {
		t.Fatal(err)
	}
	poll := func(at time.Time, names ...string) {
		var body []domain.Entry
		for i, n := range names {
			e := post("id:"+n, "https://a.example/"+n, n)
			e.Published = at.Add(-time.Duration(i) * time.Minute)
			body = append(body, e)
		}
		if st := savePollKeeping(t, s, f, body, at, 2); st.New != len(names) {
			t.Fatalf("poll at %v: %+v", at, st)
		}
	}
	poll(t0.Add(time.Hour), "a1", "a2", "a3")
	poll(t0.Add(2*time.Hour), "b1", "b2", "b3")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(3*time.Hour), false, nil); err != nil {
		t.Fatal(err)
	}
	listed, _, err := s.DigestListing(ctx, "ada", "2026-11-22", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range listed {
		if e.Content != "" || e.Fragments.Rules != 0 {
			got = append(got, e.Title+"+texts")
		} else {
			got = append(got, e.Title)
		}
	}
	if want := "[b1+texts b2+texts b3 a1 a2 a3]"; fmt.Sprint(got) != want {
		t.Errorf("digest %v, want %s", got, want)
	}
}

// A state whose subscriptions are under feed URLs written before they
// were normalised follows the configuration that now writes them
// normalised: the feed record is renamed (keeping its entries, so nothing
// comes again as new), or, when the normalised URL has a record already,
// the subscription moves to it; a user who dropped the feed is dropped.
func testSubscriptionsFollowNormalisedURLs(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	oldA, oldB, a, b := "HTTP://A.example/./x", "http://b.example/y#top", "http://a.example/x", "http://b.example/y"
	feeds := subscribe(t, s, map[string][]string{"ada": {oldA}, "bob": {oldA}, "cy": {oldB}, "dan": {b}}, t0)
	savePollKeeping(t, s, feeds[oldA], []domain.Entry{post("id:1", "https://a.example/1", "One")}, t0, 0)
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(time.Minute), false, nil); err != nil {
		t.Fatal(err)
	}
	now := subscribe(t, s, map[string][]string{"ada": {a}, "cy": {b}, "dan": {b}}, t0.Add(time.Hour))
	if now[a].ID != feeds[oldA].ID {
		t.Errorf("the record of %s is %d, want %d (%s renamed)", a, now[a].ID, feeds[oldA].ID, oldA)
	}
	if _, err := s.Feed(ctx, oldA); !errors.Is(err, store.ErrNoFeed) {
		t.Errorf("Feed(%s) = %v, want ErrNoFeed", oldA, err)
	}
	subs, err := s.Subscribers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(subs[a], subs[b], len(subs[oldB])); got != "[ada] [cy dan] 0" {
		t.Errorf("subscribers of a, b, old b: %s", got)
	}
	savePollKeeping(t, s, now[a], []domain.Entry{post("id:1", "https://a.example/1", "One"), post("id:2", "https://a.example/2", "Two")},
		t0.Add(2*time.Hour), 0)
	d, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(3*time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.EntryCount != 1 {
		t.Errorf("ada's next digest has %d entries, want the one new", d.EntryCount)
	}
}
