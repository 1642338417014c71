package config

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestAddSubscriptionsWritesTablesForTitlesAndFolders(t *testing.T) {
	in := feedsUser + "feeds = [\n  \"https://a.example/f\", # mine\n]\n"
	path := writeTemp(t, in, 0o644)
	added, present, err := AddSubscriptions(path, "ada", []Subscription{
		{URL: "HTTPS://A.example:443/f", Title: "A again"}, // the user has it
		{URL: "feed://b.example/f", Title: "Bee \"quoted\"", Folder: "News"},
		{URL: "https://c.example/f", Folder: "Science / Space"},
		{URL: "https://d.example/f"},
		{URL: "https://D.example/f", Title: "D twice"}, // a repeat: the first counts
		{URL: "https://e.example/f", Title: "Line\nbreak\tand\x7fcontrol "},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(present, []Subscription{{URL: "https://a.example/f"}}) {
		t.Errorf("present %+v", present)
	}
	wantAdded := []Subscription{
		{URL: "http://b.example/f", Title: `Bee "quoted"`, Folder: "News"},
		{URL: "https://c.example/f", Folder: "Science / Space"},
		{URL: "https://d.example/f"},
		{URL: "https://e.example/f", Title: "Line break and control"},
	}
	if !slices.Equal(added, wantAdded) {
		t.Errorf("added %+v\nwant  %+v", added, wantAdded)
	}
	got, _ := os.ReadFile(path)
	want := feedsUser + `feeds = [
  "https://a.example/f", # mine
  { url = "http://b.example/f", title = "Bee \"quoted\"", folder = "News" },
  { url = "https://c.example/f", folder = "Science / Space" },
  "https://d.example/f",
  { url = "https://e.example/f", title = "Line break and control" },
]
`
	if string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if have := c.Users[0].Feeds; !slices.Equal(have, append([]Subscription{{URL: "https://a.example/f"}}, wantAdded...)) {
		t.Errorf("loads as %+v", have)
	}

	// A user without a feeds key gets one line of tables when it fits.
	path = writeTemp(t, feedsUser, 0o644)
	if _, _, err := AddSubscriptions(path, "ada", []Subscription{{URL: "https://a.example/f", Folder: "X"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !strings.Contains(string(got), `feeds = [{ url = "https://a.example/f", folder = "X" }]`) {
		t.Errorf("file:\n%s", got)
	}
}
