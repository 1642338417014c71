package store

import (
	"fmt"
	"testing"
	"time"

	"feeddigest/domain"
)

func entry(key, link, title string) domain.Entry {
	return domain.Entry{Key: key, Link: link, Title: title, Content: title + " text"}
}

func keysOf(entries []domain.Entry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Key)
	}
	return fmt.Sprint(out)
}

func TestPlanSaveKnowsRebuiltEntriesByLink(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	stored := []StoredEntry{
		{Key: "id:b1/a", Link: "https://s/a", Title: "A"},
		{Key: "id:h1", Link: "https://s/", Title: "H1"},
		{Key: "id:h2", Link: "https://s/", Title: "H2"},
		{Key: "id:b1/k", Link: "https://s/k", Title: "K"},
	}
	tests := []struct {
		name string
		body []domain.Entry
		want string
	}{
		{"a new guid with a known link", []domain.Entry{entry("id:b2/a", "https://s/a", "A")}, "[id:b1/a]"},
		{"a link shared by stored entries", []domain.Entry{entry("id:h3", "https://s/", "H3")}, "[id:h3]"},
		{"a link shared in the body", []domain.Entry{entry("id:x", "https://s/a", "X"), entry("id:y", "https://s/a", "Y")}, "[id:x id:y]"},
		{"the stored key still in the body, linked elsewhere", []domain.Entry{entry("id:b2/k", "https://s/k", "K"), entry("id:b1/k", "https://s/k2", "K2")}, "[id:b2/k id:b1/k]"},
		{"the same post twice under two builds' guids", []domain.Entry{entry("id:b2/a", "https://s/a", "A"), entry("id:b3/a", "https://s/a", "A")}, "[id:b1/a]"},
		{"the same key twice", []domain.Entry{entry("id:z", "https://s/z", "Z"), entry("id:z", "https://s/z", "Z again")}, "[id:z]"},
		{"no link", []domain.Entry{{Key: "hash:1", Title: "A"}}, "[hash:1]"},
	}
	for _, tt := range tests {
		got, bare := PlanSave(tt.body, stored, now, 0)
		if keysOf(got) != tt.want || len(bare) != len(got) {
			t.Errorf("%s: keys %s, want %s", tt.name, keysOf(got), tt.want)
		}
	}
}

func TestPlanSaveKeepsTheTextsOfTheNewestNewEntries(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	body := []domain.Entry{
		entry("id:old", "https://s/old", "Old"), // known
		entry("id:1", "https://s/1", "One"),     // undated: now
		entry("id:2", "https://s/2", "Two"),
		entry("id:3", "https://s/3", "Three"),
	}
	body[2].Published = now.Add(-time.Hour)
	body[3].Published = now.Add(time.Hour)
	got, bare := PlanSave(body, []StoredEntry{{Key: "id:old", Link: "https://s/old"}}, now, 2)
	if fmt.Sprint(bare) != "[false false true false]" {
		t.Errorf("bare %v, want the oldest new one (id:2) alone", bare)
	}
	if got[2].Content != "" || got[3].Content == "" || body[2].Content == "" {
		t.Errorf("texts: %+v", got)
	}
}

func TestTextsUnneeded(t *testing.T) {
	pending := []Pending{
		{ID: 1, Date: 100, FirstSeen: 10}, {ID: 2, Date: 90, FirstSeen: 10},
		{ID: 3, Date: 300, FirstSeen: 20}, {ID: 4, Date: 80, FirstSeen: 20},
		{ID: 5, Date: 95, FirstSeen: 30},
	}
	// One subscriber since 10: the two newest (3, 1); another since 25: 5.
	if got := TextsUnneeded(pending, []int64{10, 25}, 2); fmt.Sprint(got) != "[2 4]" {
		t.Errorf("TextsUnneeded = %v, want [2 4]", got)
	}
	if got := TextsUnneeded(pending, nil, 2); got != nil {
		t.Errorf("without subscribers: %v", got)
	}
}
