package config

import (
	"strings"
	"testing"
)

func TestFullTextAndFullEntries(t *testing.T) {
	src := feedsUser + `full_entries = 4
feeds = [
  "https://a.example/feed",
  { url = "https://b.example/feed", full_text = true },
  { url = "https://c.example/feed", full_text = true, full_entries = 2 },
  { url = "https://d.example/feed", full_entries = 7 },
]
[[users]]
name = "bob"
timezone = "UTC"
feeds = [{ url = "https://b.example/feed", full_text = true }]
`
	c, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	ada, bob := c.Users[0], c.Users[1]
	if ada.FullEntries != 4 || bob.FullEntries != DefaultFullEntries {
		t.Errorf("full_entries: ada %d, bob %d; want 4 and the default %d", ada.FullEntries, bob.FullEntries, DefaultFullEntries)
	}
	for i, want := range []int{0, 4, 2, 0} {
		if got := ada.Feeds[i].ArticlesAPoll(ada); got != want {
			t.Errorf("ada's feeds[%d] (%+v): %d articles a poll, want %d", i, ada.Feeds[i], got, want)
		}
	}
	if got := bob.Feeds[0].ArticlesAPoll(bob); got != DefaultFullEntries {
		t.Errorf("bob: %d articles a poll, want %d", got, DefaultFullEntries)
	}
	// The key's other meaning, for every feed, full_text or not: how many
	// of its entries a digest shows in full.
	for i, want := range []int{4, 4, 2, 7} {
		if got := ada.Feeds[i].ShownInFull(ada); got != want {
			t.Errorf("ada's feeds[%d]: %d entries shown in full, want %d", i, got, want)
		}
	}
	if got := bob.Feeds[0].ShownInFull(bob); got != DefaultFullEntries {
		t.Errorf("bob: %d entries shown in full, want the default %d", got, DefaultFullEntries)
	}
}

func TestFullTextErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name, keys string
		want       []string
	}{
		{"full_text not a bool", "feeds = [{ url = \"https://a.example/f\", full_text = \"yes\" }]",
			[]string{`feeds[0]: full_text: want true or false, got string`, "(line 4)"}},
		{"feed full_entries zero", "feeds = [{ url = \"https://a.example/f\", full_entries = 0 }]",
			[]string{`feeds[0]: full_entries: want a whole number from 1 to 1000, got 0`, "(line 4)"}},
		{"feed full_entries a string", "feeds = [\n  \"https://b.example/f\",\n  { url = \"https://a.example/f\", full_entries = \"5\" },\n]",
			[]string{`feeds[1]: full_entries: want a whole number`, "(line 6)"}},
		{"user full_entries too many", "full_entries = 5000\nfeeds = [\"https://a.example/f\"]",
			[]string{`full_entries: must be 1 to 1000, got 5000`, "(line 4)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(feedsUser+tt.keys+"\n"), "c.toml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}
