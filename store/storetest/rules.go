package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
)

// A digest's rules (a sieve) see each entry with its feed, fields,
// categories and texts (from fragments too); what they leave out is
// counted on the digest, stored, and never offered again, even to a
// digest built in the same second; categories read back as saved.
func testRulesLeaveEntriesOut(t *testing.T, newStore NewStore) {
	s, reopen := newStore(t)
	url := "https://a.example/feed"
	f := subscribe(t, s, map[string][]string{"ada": {url}}, t0)[url]
	entries := []domain.Entry{
		{Key: "id:ad", Title: "Buy now", Link: "https://a.example/ad", Categories: []string{"Ads", "Deals"}},
		{Key: "id:casino", Title: "Win big", Link: "https://a.example/c", Author: "Press Office",
			Content: "<p>Visit our casino</p>", Fragments: domain.Fragments{Rules: 1, Title: "Win big", HTML: "<p>Visit our casino</p>", Excerpt: "Visit our casino"}},
		{Key: "id:news", Title: "News", Link: "https://a.example/n", Summary: "<p>Plain news</p>", Categories: []string{"World"}},
	}
	if _, err := savePoll(s, f, entries, t0); err != nil {
		t.Fatal(err)
	}
	seen := map[string]domain.Entry{}
	sieve := func(e domain.Entry) bool {
		seen[e.Key] = e
		return slices.Contains(e.Categories, "Ads") || strings.Contains(e.Content+e.Summary, "casino")
	}
	d, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, sieve)
	if err != nil {
		t.Fatal(err)
	}
	if d.EntryCount != 1 || d.LeftOut != 2 {
		t.Fatalf("digest has %d entries, %d left out; want 1 and 2", d.EntryCount, d.LeftOut)
	}
	if e := seen["id:casino"]; e.FeedURL != url || e.Author != "Press Office" || e.Link != "https://a.example/c" || !strings.Contains(e.Content, "casino") {
		t.Errorf("the sieve saw %+v", e)
	}
	if e := seen["id:news"]; e.Summary != "<p>Plain news</p>" || !slices.Equal(e.Categories, []string{"World"}) {
		t.Errorf("the sieve saw %+v", e)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = reopen(t)
	digests, err := s.Digests(ctx, "ada")
	if err != nil || len(digests) != 1 || digests[0].LeftOut != 2 || digests[0].EntryCount != 1 {
		t.Fatalf("digests read back %+v, %v: want one with 2 left out", digests, err)
	}
	// What they left out is kept with the digest, for its page to list.
	var titles []string
	for _, lt := range digests[0].LeftOutTitles {
		titles = append(titles, lt.Title+" "+lt.Link+" "+lt.Feed)
	}
	slices.Sort(titles)
	if want := []string{"Buy now https://a.example/ad " + url, "Win big https://a.example/c " + url}; !slices.Equal(titles, want) {
		t.Errorf("left-out titles read back %q, want %q", titles, want)
	}
	got := digestKeys(t, s, "ada", "2026-11-21")
	if !got["id:news"] || len(got) != 1 {
		t.Errorf("digest entries %v, want id:news alone", got)
	}
	// Built in the same second, the next digest's window holds the
	// entries first seen then: those left out are withheld all the same.
	next, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(time.Hour), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if next.EntryCount != 0 || next.LeftOut != 0 {
		t.Errorf("next digest %d entries, %d left out: want none (left out is for good)", next.EntryCount, next.LeftOut)
	}
	// Categories read back as saved, through the rules' own read.
	var cats []string
	sieve = func(e domain.Entry) bool { cats = append(cats, e.Categories...); return false }
	if _, err := savePoll(s, f, append(entries, domain.Entry{Key: "id:later", Title: "Later", Categories: []string{"A b", "c"}}), t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if d, err := s.BuildDigest(ctx, "ada", "2026-11-23", t0.Add(3*time.Hour), false, sieve); err != nil || d.EntryCount != 1 {
		t.Fatalf("third digest %+v, %v", d, err)
	}
	if !slices.Equal(cats, []string{"A b", "c"}) {
		t.Errorf("categories read back %q", cats)
	}
}

// RecentEntries lists the entries of the feeds asked first seen since,
// newest first, with categories and texts, and none of other feeds.
func testRecentEntriesForRules(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	a, b, c := "https://a.example/feed", "https://b.example/feed", "https://c.example/feed"
	feeds := subscribe(t, s, map[string][]string{"ada": {a, b}, "grace": {c}}, t0)
	old := domain.Entry{Key: "id:old", Title: "Old", Content: "<p>old</p>"}
	if _, err := savePoll(s, feeds[a], []domain.Entry{old}, t0); err != nil {
		t.Fatal(err)
	}
	newer := domain.Entry{Key: "id:new", Title: "New", Author: "Kim", Content: "<p>fresh text</p>", Categories: []string{"Go"},
		Published: t0.Add(40 * time.Hour)}
	if _, err := savePoll(s, feeds[a], []domain.Entry{old, newer}, t0.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	saveAt := func(url, key string, at time.Time) {
		if _, err := savePoll(s, feeds[url], []domain.Entry{{Key: key, Title: key, Summary: "s " + key}}, at); err != nil {
			t.Fatal(err)
		}
	}
	saveAt(b, "id:b", t0.Add(30*time.Hour))
	saveAt(c, "id:c", t0.Add(48*time.Hour))
	got, err := s.RecentEntries(ctx, []string{a, b}, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range got {
		keys = append(keys, e.Key)
	}
	if !slices.Equal(keys, []string{"id:new", "id:b"}) {
		t.Fatalf("recent entries %q, want id:new then id:b (newest first, of the feeds asked, since)", keys)
	}
	if e := got[0]; e.FeedURL != a || e.Author != "Kim" || e.Content != "<p>fresh text</p>" || !slices.Equal(e.Categories, []string{"Go"}) {
		t.Errorf("recent entry read as %+v", e)
	}
	if got[1].Summary != "s id:b" {
		t.Errorf("summary read as %q", got[1].Summary)
	}
}

// A digest keeps at most domain.MaxLeftOutListed of the entries its rules
// left out, however many there were; the count is all of them.
func testLeftOutTitlesAreBounded(t *testing.T, newStore NewStore) {
	s := fresh(t, newStore)
	url := "https://a.example/feed"
	f := subscribe(t, s, map[string][]string{"ada": {url}}, t0)[url]
	var entries []domain.Entry
	for i := range 100 {
		entries = append(entries, domain.Entry{Key: fmt.Sprintf("id:%d", i), Title: fmt.Sprintf("Sponsored %d", i), Link: fmt.Sprintf("https://a.example/%d", i)})
	}
	if _, err := savePoll(s, f, entries, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false, func(domain.Entry) bool { return true }); err != nil {
		t.Fatal(err)
	}
	digests, err := s.Digests(ctx, "ada")
	if err != nil || len(digests) != 1 {
		t.Fatalf("digests %+v, %v", digests, err)
	}
	// A first digest offers the five newest; all five left out.
	if d := digests[0]; d.LeftOut != 5 || len(d.LeftOutTitles) != 5 {
		t.Fatalf("first digest: %d left out, %d titles; want 5 and 5", d.LeftOut, len(d.LeftOutTitles))
	}
	var more []domain.Entry
	for i := 100; i < 200; i++ {
		more = append(more, domain.Entry{Key: fmt.Sprintf("id:%d", i), Title: fmt.Sprintf("Sponsored %d", i), Link: fmt.Sprintf("https://a.example/%d", i)})
	}
	if _, err := savePoll(s, f, more, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	d, err := s.BuildDigest(ctx, "ada", "2026-11-22", t0.Add(24*time.Hour), false, func(domain.Entry) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if d.LeftOut != 100 || len(d.LeftOutTitles) != domain.MaxLeftOutListed {
		t.Errorf("%d left out, %d titles kept; want 100 and %d", d.LeftOut, len(d.LeftOutTitles), domain.MaxLeftOutListed)
	}
}
