package store

import (
	"errors"
	"slices"
	"testing"

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
