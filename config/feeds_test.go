package config

import (
	"os"
	"slices"
	"strings"
	"testing"
)

const feedsUser = "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n"

func TestFeedTables(t *testing.T) {
	src := feedsUser + `feeds = [
  "https://a.example/feed",
  { url = " https://b.example/feed ", title = " Bee ", folder = "News" },
  { url = "https://c.example/feed", folder = "Fun" },
  "https://b.example/feed",
  { url = "https://a.example/feed" },
]
`
	c, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Subscription{
		{URL: "https://a.example/feed"},
		{URL: "https://b.example/feed", Title: "Bee", Folder: "News"},
		{URL: "https://c.example/feed", Folder: "Fun"},
	}
	if got := c.Users[0].Feeds; !slices.Equal(got, want) {
		t.Errorf("Feeds = %+v\nwant %+v", got, want)
	}
	if got := c.Users[0].FeedURLs(); !slices.Equal(got, []string{"https://a.example/feed", "https://b.example/feed", "https://c.example/feed"}) {
		t.Errorf("FeedURLs = %q", got)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("plain repeats warned: %q", c.Warnings)
	}
}

func TestFeedTablesAsArrayOfTables(t *testing.T) {
	src := feedsUser + "[[users.feeds]]\nurl = \"https://a.example/feed\"\ntitle = \"A\"\n[[users.feeds]]\nurl = \"https://b.example/feed\"\n"
	c, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Subscription{{URL: "https://a.example/feed", Title: "A"}, {URL: "https://b.example/feed"}}
	if !slices.Equal(c.Users[0].Feeds, want) {
		t.Errorf("Feeds = %+v", c.Users[0].Feeds)
	}
}

func TestFeedTableErrors(t *testing.T) {
	tests := []struct {
		name, feeds string
		want        []string // all within one line of the error
	}{
		{"unknown key", `[{ url = "https://a.example/f", titel = "A" }]`, []string{`unknown key "users[0].feeds[0].titel"`, `did you mean "title"`, "(line 4)"}},
		{"unknown key, second item", "[\n  \"https://a.example/f\",\n  { url = \"https://b.example/f\", colour = \"red\" },\n]", []string{`unknown key "users[0].feeds[1].colour"`, "(line 6)"}},
		{"no url", `[{ title = "A" }]`, []string{`users[0] "ada": feeds[0]: url is required`, "(line 4)"}},
		{"url not a string", `[{ url = 1 }]`, []string{`users[0] "ada": feeds[0]: url: want a string, got integer 1`, "(line 4)"}},
		{"bad url", "[\n  { url = \"ftp://a.example/f\" },\n]", []string{`users[0] "ada": feeds[0]`, `"ftp://a.example/f"`, "(line 5)"}},
		{"title not a string", `[{ url = "https://a.example/f", title = true }]`, []string{"feeds[0]: title: want a string, got boolean true"}},
		{"folder with a line break", `[{ url = "https://a.example/f", folder = "a\nb" }]`, []string{"feeds[0]: folder", "control characters"}},
		{"nested array", `[["https://a.example/f"]]`, []string{`users[0] "ada": feeds[0]: want a URL string or { url`, "got an array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(feedsUser+"feeds = "+tt.feeds+"\n"), "c.toml")
			if err == nil {
				t.Fatal("accepted")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 1 || !containsAll(lines[0], tt.want) {
				t.Errorf("error %q, want one line with all of %q", err, tt.want)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // one string set per warning, in order
	}{
		{"no feeds key", feedsUser, []string{`c.toml: users[0] "ada" has no feeds`, "(line 1)"}},
		{"empty feeds", feedsUser + "feeds = []\n", []string{`c.toml: users[0] "ada" has no feeds`, "(line 4)"}},
		{"a repeat with another title", feedsUser + "feeds = [\n  \"https://a.example/f\",\n  { url = \"https://a.example/f\", title = \"A\" },\n]\n",
			[]string{`users[0] "ada": feeds[1] repeats https://a.example/f`, "ignored", "(line 6)"}},
		{"a user with feeds", feedsUser + "feeds = [\"https://a.example/f\"]\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.src), "c.toml")
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == nil && len(c.Warnings) != 0:
				t.Errorf("warnings %q, want none", c.Warnings)
			case tt.want != nil && (len(c.Warnings) != 1 || !containsAll(c.Warnings[0], tt.want)):
				t.Errorf("warnings %q, want one with all of %q", c.Warnings, tt.want)
			}
		})
	}
}

func TestAddFeedsBesideFeedTables(t *testing.T) {
	in := feedsUser + "feeds = [\n  { url = \"https://a.example/f\", title = \"A\", folder = \"News\" }, # mine\n]\n"
	path := writeTemp(t, in, 0o644)
	added, _, err := AddFeeds(path, "ada", []string{"https://a.example/f", "https://b.example/f"})
	if err != nil || !slices.Equal(added, []string{"https://b.example/f"}) {
		t.Fatalf("added %q, %v", added, err)
	}
	got, _ := os.ReadFile(path)
	want := feedsUser + "feeds = [\n  { url = \"https://a.example/f\", title = \"A\", folder = \"News\" }, # mine\n  \"https://b.example/f\",\n]\n"
	if string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}

	// An array of tables is not a layout the editor rewrites.
	in = feedsUser + "[[users.feeds]]\nurl = \"https://a.example/f\"\n"
	path = writeTemp(t, in, 0o644)
	if _, _, err := AddFeeds(path, "ada", []string{"https://b.example/f"}); err == nil || !strings.Contains(err.Error(), "add them by hand") {
		t.Errorf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != in {
		t.Errorf("file changed:\n%s", b)
	}
}

// One feed written several ways, in one user's list or several, is one
// feed: its URL normalised (domain.NormalizeFeedURL), the first item
// kept, and a warning for each other way it was written.
func TestFeedURLsNormalisedOnLoad(t *testing.T) {
	src := `[[users]]
name = "ada"
timezone = "UTC"
feeds = [
  "HTTP://Host.example/x",
  { url = "http://host.example/./x", title = "Ignored" },
  "http://host.example/x#top",
  "http://host.example:80/x",
  "http://host.example/x",
  "http://host.example/x",
]
[[users]]
name = "bob"
timezone = "UTC"
feeds = [{ url = "http://HOST.example:80/a/../x#t", title = "Mine" }]
`
	c, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Users[0].Feeds, []Subscription{{URL: "http://host.example/x"}}; !slices.Equal(got, want) {
		t.Errorf("ada's feeds = %+v, want %+v", got, want)
	}
	if got, want := c.Users[1].Feeds, []Subscription{{URL: "http://host.example/x", Title: "Mine"}}; !slices.Equal(got, want) {
		t.Errorf("bob's feeds = %+v, want %+v", got, want)
	}
	if got := c.AllFeeds(); !slices.Equal(got, []string{"http://host.example/x"}) {
		t.Errorf("AllFeeds = %q", got)
	}
	want := [][]string{
		{`feeds[1] repeats http://host.example/x`, "title and folder are ignored"},
		{`feeds[2] (http://host.example/x#top) is the same feed as feeds[0] (HTTP://Host.example/x)`, "it is read once; you may remove one (line 7)"},
		{`feeds[3] (http://host.example:80/x) is the same feed as feeds[0]`},
		{`feeds[4] (http://host.example/x) is the same feed as feeds[0]`},
		{`feeds[5] (http://host.example/x) is the same feed as feeds[0]`},
	}
	if len(c.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", c.Warnings, len(want))
	}
	for i, w := range want {
		if !containsAll(c.Warnings[i], w) {
			t.Errorf("warning %q, want all of %q", c.Warnings[i], w)
		}
	}
}

// A feed that leads, when polled, to the same feed as an earlier one of
// the user's (a 301, a chain of them, a page naming its feed) is named
// with its line, in the words of the warning for a feed written twice;
// feeds that land apart, or whose landing is not known, are not.
func TestSameFeedsNamesTheLineThatRepeats(t *testing.T) {
	src := `
[[users]]
name = "ada"
timezone = "UTC"
feeds = [
  "https://news.example/feed",
  { url = "https://coast.example/feed", title = "Coastal Voices" },
  "https://blog.example/",
  { url = "https://old.example/rss", title = "Coast Radio" },
  "https://never.example/feed",
]
[[users]]
name = "bob"
timezone = "UTC"
feeds = ["https://old.example/rss"]
`
	c, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	lands := map[string]string{
		"https://old.example/rss":    "https://coast.example/feed",
		"https://coast.example/feed": "https://coast.example/feed",
		"https://blog.example/":      "https://blog.example/feed.xml",
	}
	got := c.SameFeeds(func(url string) string { return lands[url] })
	want := []string{`c.toml: users[0] "ada": feeds[3] (https://old.example/rss) now leads to the same feed as feeds[1] (https://coast.example/feed): it is read once; you may remove one (line 9)`}
	if !slices.Equal(got, want) {
		t.Errorf("SameFeeds:\n%q\nwant\n%q", got, want)
	}
	if got := c.SameFeeds(func(string) string { return "" }); got != nil {
		t.Errorf("nothing known: %q", got)
	}
	// A Config made in code has no lines, and names its user plainly.
	made := &Config{Users: []User{{Name: "cy", Feeds: []Subscription{{URL: "https://a.example/"}, {URL: "https://b.example/"}}}}}
	got = made.SameFeeds(func(string) string { return "https://a.example/" })
	if want := []string{`user "cy": feeds[1] (https://b.example/) now leads to the same feed as feeds[0] (https://a.example/): it is read once; you may remove one`}; !slices.Equal(got, want) {
		t.Errorf("made in code: %q", got)
	}
}
