package store

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"feeddigest/domain"
)

// Candidates are offered in order, those without a link passed over, until
// limit are claimed; one not claimed (stored, or claimed before) does not
// count.
func TestClaimInOrder(t *testing.T) {
	candidates := []domain.Entry{
		{Key: "a", Link: "https://x.example/a"},
		{Key: "no-link"},
		{Key: "taken", Link: "https://x.example/taken"},
		{Key: "b", Link: "https://x.example/b"},
		{Key: "c", Link: "https://x.example/c"},
	}
	var offered []string
	keys, err := ClaimInOrder(candidates, 2, func(e domain.Entry) (bool, error) {
		offered = append(offered, e.Key)
		return e.Key != "taken", nil
	})
	if err != nil || !slices.Equal(keys, []string{"a", "b"}) {
		t.Errorf("claimed %v (%v), want [a b]", keys, err)
	}
	if !slices.Equal(offered, []string{"a", "taken", "b"}) {
		t.Errorf("offered %v, want [a taken b]: in order, none without a link, none past the limit", offered)
	}
	failed := errors.New("disk full")
	if keys, err := ClaimInOrder(candidates, 2, func(domain.Entry) (bool, error) { return false, failed }); !errors.Is(err, failed) || keys != nil {
		t.Errorf("a failed claim: %v, %v", keys, err)
	}
}

// MayBeShown keeps every entry some digest may show: all for a reader
// the feed was introduced to, the news and the 5 newest otherwise.
func TestMayBeShown(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)
	dated := func(n int) []domain.Entry { // n entries, e00 the oldest, an hour apart, the last an hour ago
		var out []domain.Entry
		for i := range n {
			out = append(out, domain.Entry{Key: fmt.Sprintf("e%02d", i), Published: now.Add(time.Duration(i-n) * time.Hour)})
		}
		return out
	}
	keys := func(entries []domain.Entry) (k []string) {
		for _, e := range entries {
			k = append(k, e.Key)
		}
		return k
	}
	newcomer := ArticleReader{AddedAt: now}
	tied := dated(7)
	for i := range tied {
		tied[i].Published = now.Add(-time.Hour)
	}
	undated := dated(7)
	undated[0].Published = time.Time{}
	for _, c := range []struct {
		name      string
		fresh     []domain.Entry
		readers   []ArticleReader
		firstRead time.Time
		want      []string
	}{
		{"first read, new reader: the 5 newest", dated(8), []ArticleReader{newcomer}, time.Time{}, []string{"e03", "e04", "e05", "e06", "e07"}},
		{"a reader introduced: all", dated(8), []ArticleReader{newcomer, {AddedAt: now.Add(-48 * time.Hour), IntroducedAt: now.Add(-24 * time.Hour)}}, time.Time{}, keys(dated(8))},
		{"read before, reader added before: all news", dated(8), []ArticleReader{{AddedAt: now.Add(-48 * time.Hour)}}, now.Add(-24 * time.Hour), keys(dated(8))},
		{"first read, reader added 3 hours ago: dated since are news", dated(8), []ArticleReader{{AddedAt: now.Add(-3 * time.Hour)}}, time.Time{}, []string{"e03", "e04", "e05", "e06", "e07"}},
		{"first read, reader added 6 hours ago: 6 news", dated(8), []ArticleReader{{AddedAt: now.Add(-6*time.Hour - time.Minute)}}, time.Time{}, []string{"e02", "e03", "e04", "e05", "e06", "e07"}},
		{"ties kept", tied, []ArticleReader{newcomer}, time.Time{}, keys(tied)},
		{"undated kept", undated, []ArticleReader{newcomer}, time.Time{}, []string{"e00", "e02", "e03", "e04", "e05", "e06"}},
		{"no reader: none", dated(8), nil, time.Time{}, []string{"e03", "e04", "e05", "e06", "e07"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := keys(MayBeShown(c.fresh, c.readers, c.firstRead, now)); !slices.Equal(got, c.want) {
				t.Errorf("kept %v, want %v", got, c.want)
			}
		})
	}
}
