package storetest

import (
	"slices"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// retention is the default retention period, as a run prunes with it.
const retention = 60 * 24 * time.Hour

// Pruning forgets an entry only a retention period after its feed's body
// stopped listing it, however long ago it was first seen: a blog's feed
// keeps its last posts for months, and an entry forgotten while listed
// would come back as new at the feed's next change. A rebuilt guid
// matched by link is the entry listed; a partial body (226) leaves out
// entries that are still the feed's; a body without entries changes
// nothing; an entry that leaves and comes back is listed again; entries
// stored without texts are kept alike. A feed nobody subscribes to any
// more is pruned by first-seen time alone.
func testPruneKeepsWhatTheFeedStillLists(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	blogURL, oldURL, busyURL := "https://blog.example/feed", "https://old.example/feed", "https://busy.example/feed"
	feeds := subscribe(t, s, map[string][]string{"ada": {blogURL, busyURL}, "bob": {oldURL}}, t0)
	blog, old, busy := feeds[blogURL], feeds[oldURL], feeds[busyURL]
	day := func(n int) time.Time { return t0.AddDate(0, 0, n) }
	post := func(key string) domain.Entry {
		return domain.Entry{Key: key, Title: "T " + key, Link: "https://blog.example/" + key}
	}
	body := func(f domain.Feed, now time.Time, partial bool, withTexts int, entries ...domain.Entry) store.SaveStats {
		t.Helper()
		st, err := saveBody(s, f, entries, now, partial, withTexts)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	prune := func(now time.Time, want int64) {
		t.Helper()
		n, err := s.Prune(ctx, now.Add(-retention))
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("pruning at day %d forgot %d entries, want %d", int(now.Sub(t0)/(24*time.Hour)), n, want)
		}
	}

	body(blog, day(0), false, 0, post("id:1"), post("id:2"), post("id:3"))
	body(old, day(0), false, 0, domain.Entry{Key: "id:old"})
	body(busy, day(0), false, 1, domain.Entry{Key: "id:b1", Title: "One", Content: "x"},
		domain.Entry{Key: "id:b2", Title: "Two", Content: "y"}) // id:b2 or id:b1 stored without texts
	subscribe(t, s, map[string][]string{"ada": {blogURL, busyURL}}, day(1)) // bob leaves
	body(blog, day(10), false, 0, post("id:4"), post("id:1"), post("id:2")) // id:3 leaves
	rebuilt := post("id:1-rebuilt")
	rebuilt.Title, rebuilt.Link = "T id:1", "https://blog.example/id:1"
	if st := body(blog, day(20), false, 0, post("id:5"), post("id:4"), rebuilt, post("id:2")); st.New != 1 {
		t.Fatalf("a rebuilt guid: %+v, want only id:5 new", st)
	}
	body(blog, day(30), true, 0, post("id:6")) // a delta: 5, 4, 1 and 2 stay
	body(blog, day(35), false, 0)              // no entries: a broken page, nothing leaves
	body(busy, day(40), false, 1, domain.Entry{Key: "id:b1", Title: "One", Content: "x"},
		domain.Entry{Key: "id:b2", Title: "Two", Content: "y"})

	prune(day(71), 2) // id:3, left on day 10, and the unsubscribed feed's id:old
	wantStored(t, s, blogURL, "id:1", "id:2", "id:4", "id:5", "id:6")
	wantStored(t, s, oldURL)
	wantStored(t, s, busyURL, "id:b1", "id:b2")
	prune(day(200), 0)
	wantStored(t, s, blogURL, "id:1", "id:2", "id:4", "id:5", "id:6")
	wantStored(t, s, busyURL, "id:b1", "id:b2")
	if st := body(blog, day(200), false, 0, post("id:7"), post("id:6"), post("id:5"), post("id:4"), rebuilt, post("id:2")); st.New != 1 {
		t.Errorf("the feed's body again after 200 days: %+v, want only id:7 new", st)
	}

	body(blog, day(201), false, 0, post("id:7"))               // 6, 5, 4, 1 and 2 leave
	body(blog, day(202), false, 0, post("id:7"), post("id:2")) // id:2 comes back
	prune(day(261), 0)
	prune(day(262), 4) // 6, 5, 4 and 1, left on day 201
	wantStored(t, s, blogURL, "id:2", "id:7")
}

// saveBody saves a poll of f at now that found entries, a whole body or
// a partial one, keeping the texts of withTexts new entries (<= 0: all).
func saveBody(s store.Store, f domain.Feed, entries []domain.Entry, now time.Time, partial bool, withTexts int) (store.SaveStats, error) {
	tx, err := s.BeginPoll(ctx, f.ID)
	if err != nil {
		return store.SaveStats{}, err
	}
	defer tx.Rollback()
	save := tx.SaveEntries
	if partial {
		save = tx.SavePartial
	}
	st, err := save(ctx, entries, now, withTexts)
	if err != nil {
		return store.SaveStats{}, err
	}
	f.LastPoll = now
	if err := tx.UpdateFeed(ctx, f); err != nil {
		return store.SaveStats{}, err
	}
	return st, tx.Commit()
}

// wantStored checks the keys of the feed's stored entries.
func wantStored(t *testing.T, s store.Store, feedURL string, want ...string) {
	t.Helper()
	entries, err := s.RecentEntries(ctx, []string{feedURL}, t0.AddDate(-1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Key)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s stores %q, want %q", feedURL, got, want)
	}
}
