package store

import (
	"fmt"
	"testing"
	"time"
)

func TestDigestListingCapsEachFeed(t *testing.T) {
	s, _ := openTemp(t)
	feeds := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed", "https://b.example/feed"}}, t0)
	a, b := feeds["https://a.example/feed"], feeds["https://b.example/feed"]
	// Both feeds were read before the first digest, which introduces
	// them: the next digest is an ordinary one, not a first look.
	save(t, s, a, t0, "id:a-old")
	save(t, s, b, t0, "id:b-old")
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-20", t0, false); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range 12 {
		keys = append(keys, fmt.Sprintf("id:a%d", i))
	}
	save(t, s, a, t0.Add(time.Hour), keys...)
	save(t, s, b, t0.Add(time.Hour), "id:b0", "id:b1")
	d, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0.Add(2*time.Hour), false)
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
	all, err := s.DigestEntries(ctx, "ada", "2026-11-21")
	if err != nil || len(all) != 14 {
		t.Errorf("DigestEntries: %d entries (%v), want all 14", len(all), err)
	}
	// The entries not listed were delivered: the next digest has none of them.
	next, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(3*time.Hour), false)
	if err != nil || next.EntryCount != 0 {
		t.Errorf("next digest has %d entries (%v), want 0", next.EntryCount, err)
	}
}
