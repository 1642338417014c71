package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

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
