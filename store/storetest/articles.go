package storetest

import (
	"slices"
	"testing"

	"feeddigest/domain"
)

// An entry's page is claimed for its article once: not when the entry is
// stored (by key, or by link), not again after a run that claimed it
// died, at most limit a claim, and never without a link. Prune forgets
// old claims.
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
	if got := claim(a, 2); !slices.Equal(got, []string{"id:2", "id:3"}) {
		t.Errorf("first claim %q, want the two new entries with links", got)
	}
	// The run dies fetching them: the next asks for none of them again.
	s.Close()
	s = reopen(t)
	if got := claim(a, 10); !slices.Equal(got, []string{"id:4"}) {
		t.Errorf("claim after a death %q, want only the one never claimed", got)
	}
	if got := claim(a, 10); len(got) != 0 {
		t.Errorf("third claim %q, want none", got)
	}
	if got := claim(b, 1); !slices.Equal(got, []string{"id:1"}) {
		t.Errorf("another feed's claim %q, want its own first new entry", got)
	}
	if _, err := s.Prune(ctx, t0.Add(1)); err != nil {
		t.Fatal(err)
	}
	if got := claim(b, 1); !slices.Equal(got, []string{"id:1b"}) {
		t.Errorf("claim after a prune %q: the pruned claims are forgotten, the next entry comes", got)
	}
}
