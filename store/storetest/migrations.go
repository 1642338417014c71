package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// OldStates is how a back end makes states of older schemas for the
// migration tests (RunMigrations).
type OldStates struct {
	// Migrations are the back end's, in order.
	Migrations []string
	// Empty makes a new state, empty but for the record that its schema
	// is of version: exec runs a statement in it, and open, once the
	// statements are run, opens it as the next run would, migrating it.
	Empty func(t *testing.T, version int) (exec func(stmt string) error, open func() store.Store)
	// Time writes a time as an SQL literal of the back end's time columns.
	Time func(time.Time) string
}

// old makes a state of the schema the migrations up to (not including)
// the first whose statement holds marker made, holding the rows that
// stmts (SQL that every back end reads alike) write, and opens it.
func (o OldStates) old(t *testing.T, marker string, stmts ...string) store.Store {
	t.Helper()
	i := slices.IndexFunc(o.Migrations, func(m string) bool { return strings.Contains(m, marker) })
	if i < 0 {
		t.Fatalf("no migration holds %q", marker)
	}
	exec, open := o.Empty(t, i)
	for _, q := range append(slices.Clone(o.Migrations[:i]), stmts...) {
		if err := exec(q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	return open()
}

// RunMigrations runs the behaviour tests of migrations against states of
// older schemas made as old says.
func RunMigrations(t *testing.T, old OldStates) {
	t.Run("MigrationForgetsHugeValidatorsAndFalseLessons", func(t *testing.T) {
		testMigrationForgetsHugeValidatorsAndFalseLessons(t, old)
	})
	t.Run("MigrationCountsNoArticlePagesYet", func(t *testing.T) {
		testMigrationCountsNoArticlePagesYet(t, old)
	})
	t.Run("MigrationTakesEntriesAsListed", func(t *testing.T) {
		testMigrationTakesEntriesAsListed(t, old)
	})
}

// A state from before pruning knew which entries a feed lists: its
// entries are taken as listed, however old, since it never kept which
// ones the feed's latest body held (one taken as gone that was not
// would be forgotten and shown again at the feed's next change). The
// feed's next body sets them right: those it no longer lists are kept
// a retention period from then.
func testMigrationTakesEntriesAsListed(t *testing.T, old OldStates) {
	const url = "https://blog.example/feed"
	entry := func(key string) string {
		return fmt.Sprintf(`INSERT INTO entries (feed_id, key, title, link, first_seen)
			VALUES ((SELECT id FROM feeds WHERE url = '%s'), '%s', 'T %[2]s', 'https://blog.example/%[2]s', %s)`,
			url, key, old.Time(t0))
	}
	s := old.old(t, "left_at", fmt.Sprintf(`INSERT INTO feeds (url, title) VALUES ('%s', 'Blog')`, url),
		entry("id:1"), entry("id:2"))
	f := subscribe(t, s, map[string][]string{"ada": {url}}, t0.AddDate(0, 0, 1))[url]
	day := func(n int) time.Time { return t0.AddDate(0, 0, n) }
	if n, err := s.Prune(ctx, day(100).Add(-retention)); n != 0 || err != nil {
		t.Fatalf("pruned %d entries of a migrated state 100 days after they were first seen (%v)", n, err)
	}
	if st := save(t, s, f, day(100), "id:1"); st.New != 0 { // id:2 leaves
		t.Fatalf("the feed's body after the upgrade: %+v, nothing new", st)
	}
	if n, err := s.Prune(ctx, day(159).Add(-retention)); n != 0 || err != nil {
		t.Fatalf("pruned %d entries within the retention after they left (%v)", n, err)
	}
	if n, err := s.Prune(ctx, day(161).Add(-retention)); n != 1 || err != nil {
		t.Fatalf("pruned %d entries a retention after one left (%v), want 1", n, err)
	}
	wantStored(t, s, url, "id:1")
}

// A state from before article pages were counted: migrated, its feeds
// read as they were, no page asked for yet, and a poll's counts are kept.
func testMigrationCountsNoArticlePagesYet(t *testing.T, old OldStates) {
	s := old.old(t, "articles_asked", `INSERT INTO feeds (url, title, polls) VALUES ('https://a.example/feed', 'A', 3)`)
	f, err := s.Feed(ctx, "https://a.example/feed")
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "A" || f.Polls != 3 || f.ArticlesAsked != 0 || f.ArticlesRead != 0 {
		t.Fatalf("migrated: title %q, polls %d, article pages %d asked, %d read", f.Title, f.Polls, f.ArticlesAsked, f.ArticlesRead)
	}
	f.ArticlesAsked, f.ArticlesRead = 4, 3
	if _, err := savePoll(s, f, nil, t0); err != nil {
		t.Fatal(err)
	}
	if f, err = s.Feed(ctx, f.URL); err != nil || f.ArticlesAsked != 4 || f.ArticlesRead != 3 {
		t.Errorf("after a poll: article pages %d asked, %d read (%v), want 4 and 3", f.ArticlesAsked, f.ArticlesRead, err)
	}
}

// A state from before validators were judged: migrated, a validator over
// 1 KB (sent back, it exceeds servers' header limits) is forgotten, and
// ignoring conditional GETs, learned then from a false sign, is learned
// again; nothing is distrusted yet, and no GET is on record (so the next
// poll is one).
func testMigrationForgetsHugeValidatorsAndFalseLessons(t *testing.T, old OldStates) {
	huge := `"` + strings.Repeat("x", 12<<10) + `"`
	s := old.old(t, "etag_untrusted",
		fmt.Sprintf(`INSERT INTO feeds (url, etag, last_modified, ignores_conditional)
			VALUES ('https://a.example/feed', '%s', 'Sun, 01 Nov 2026 08:00:00 GMT', true)`, huge),
		fmt.Sprintf(`INSERT INTO feeds (url, etag, last_modified)
			VALUES ('https://b.example/feed', '"short"', '%s')`, strings.Repeat("M", 1025)))
	a, err := s.Feed(ctx, "https://a.example/feed")
	if err != nil {
		t.Fatal(err)
	}
	if a.ETag != "" || a.LastModified != "Sun, 01 Nov 2026 08:00:00 GMT" || a.IgnoresConditional ||
		a.Distrust != (domain.Distrust{}) || !a.LastGet.IsZero() {
		t.Errorf("migrated: ETag of %d bytes, Last-Modified %q, ignores %v, distrust %+v, last GET %v",
			len(a.ETag), a.LastModified, a.IgnoresConditional, a.Distrust, a.LastGet)
	}
	b, err := s.Feed(ctx, "https://b.example/feed")
	if err != nil {
		t.Fatal(err)
	}
	if b.ETag != `"short"` || b.LastModified != "" {
		t.Errorf("migrated: ETag %q, Last-Modified of %d bytes", b.ETag, len(b.LastModified))
	}
}
