package storetest

import (
	"slices"
	"testing"
	"time"

	"feeddigest/domain"
)

// An entry's page is claimed for its article unless the entry is stored
// (by key, or by link), at most limit a claim, and never without a link.
// A claim a dead run left (its entry still not stored) is taken over by
// the next claim, however the run died: before asking for the page,
// while asking, or after the answer; a page whose asking was cut short
// ArticleTries times in a row is given up, and the next entry comes in
// its place. Prune forgets old claims.
func testArticlesClaimedOnce(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed", "https://b.example/feed"}}, t0)
	a, b := feeds["https://a.example/feed"], feeds["https://b.example/feed"]
	save(t, s, a, t0, "id:1")
	candidates := []domain.Entry{
		{Key: "id:1", Link: "https://x.example/id:1"},  // stored
		{Key: "id:1b", Link: "https://x.example/id:1"}, // stored by its link (a rebuilt guid)
		{Key: "id:nolink"}, // no page to fetch
		{Key: "id:2", Link: "https://x.example/2"},
		{Key: "id:3", Link: "https://x.example/3"},
		{Key: "id:4", Link: "https://x.example/4"},
	}
	claim := func(f domain.Feed, limit int) []string {
		t.Helper()
		keys, err := s.ClaimArticles(ctx, f.ID, candidates, limit, t0)
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	ask := func(f domain.Feed, key string, answered bool) {
		t.Helper()
		err := s.AskArticle(ctx, f.ID, key)
		if err == nil && answered {
			err = s.ArticleAnswered(ctx, f.ID, key)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := claim(a, 3); !slices.Equal(got, []string{"id:2", "id:3", "id:4"}) {
		t.Errorf("first claim %q, want the three new entries with links", got)
	}
	// The run dies asking for id:3, id:2 answered, id:4 never asked: the
	// next run's poll takes the three claims over.
	ask(a, "id:2", true)
	ask(a, "id:3", false)
	s.Close()
	s = reopen(t)
	if got := claim(a, 2); !slices.Equal(got, []string{"id:2", "id:3"}) {
		t.Errorf("claim after a death %q, want the dead run's first two claims again", got)
	}
	// It dies asking for id:3 again, id:2 answered again: id:3 is given
	// up, id:4 comes; id:2, answered each time, is no suspect.
	ask(a, "id:2", true)
	ask(a, "id:3", false)
	s.Close()
	s = reopen(t)
	if got := claim(a, 2); !slices.Equal(got, []string{"id:2", "id:4"}) {
		t.Errorf("claim after a second death on id:3 %q, want id:2 and id:4 (id:3 given up)", got)
	}
	// Its save stores the entries: nothing is claimed again.
	save(t, s, a, t0, "id:2", "id:3", "id:4")
	if got := claim(a, 10); len(got) != 0 {
		t.Errorf("claim after the save %q, want none", got)
	}
	if got := claim(b, 1); !slices.Equal(got, []string{"id:1"}) {
		t.Errorf("another feed's claim %q, want its own first new entry", got)
	}
	ask(b, "id:1", false)
	ask(b, "id:1", false)
	if _, err := s.Prune(ctx, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := claim(b, 1); !slices.Equal(got, []string{"id:1"}) {
		t.Errorf("claim after a prune %q: the pruned claims are forgotten, the page is claimed afresh", got)
	}
}
