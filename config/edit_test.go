package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, text string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
	return path
}

const editHead = "# My digest.\nstate = \"state.db\" # next to this file\n\n"

func TestAddFeedsKeepsLayout(t *testing.T) {
	long := "https://a-rather-long-host-name.example.org/a/very/long/path/to/the/feed.xml"
	tests := []struct {
		name, user, in, want string
		urls                 []string
	}{
		{
			name: "block without trailing comma, comments kept",
			user: "ada",
			in:   editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n    # news\n    \"https://a.example/f\", # the best\n    \"https://b.example/f\" # also good\n] # end\n",
			urls: []string{"https://c.example/f", "https://d.example/f"},
			want: editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n    # news\n    \"https://a.example/f\", # the best\n    \"https://b.example/f\", # also good\n    \"https://c.example/f\",\n    \"https://d.example/f\",\n] # end\n",
		},
		{
			name: "block with trailing comma",
			user: "ada",
			in:   editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n  'https://a.example/f',\n]\n",
			urls: []string{"https://c.example/f"},
			want: editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n  'https://a.example/f',\n  \"https://c.example/f\",\n]\n",
		},
		{
			name: "closing bracket after the last element",
			user: "ada",
			in:   editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n  \"https://a.example/f\"]\n",
			urls: []string{"https://c.example/f"},
			want: editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n  \"https://a.example/f\",\n  \"https://c.example/f\",\n]\n",
		},
		{
			name: "inline that still fits",
			user: "ada",
			in:   editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\"] # mine\n",
			urls: []string{"https://c.example/f"},
			want: editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\", \"https://c.example/f\"] # mine\n",
		},
		{
			name: "inline that grows into a block",
			user: "ada",
			in:   editHead + "[[users]]\n  name = \"ada\"\n  timezone = \"UTC\"\n  feeds = [ \"https://a.example/f\" ]\n",
			urls: []string{long},
			want: editHead + "[[users]]\n  name = \"ada\"\n  timezone = \"UTC\"\n  feeds = [\n    \"https://a.example/f\",\n    \"" + long + "\",\n  ]\n",
		},
		{
			name: "empty array",
			user: "ada",
			in:   editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = []\n",
			urls: []string{"https://c.example/f"},
			want: editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://c.example/f\"]\n",
		},
		{
			name: "empty block with a comment",
			user: "ada",
			in:   editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n  # none yet\n]\n",
			urls: []string{"https://c.example/f"},
			want: editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\n  # none yet\n  \"https://c.example/f\",\n]\n",
		},
		{
			name: "no feeds key: inserted after the name",
			user: "grace",
			in:   editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\"]\n\n[[users]]\n\tname = \"grace\" # the admiral\n\ttimezone = \"America/New_York\"\n",
			urls: []string{"https://a.example/f", "https://c.example/f"},
			want: editHead + "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\"]\n\n[[users]]\n\tname = \"grace\" # the admiral\n\tfeeds = [\"https://a.example/f\", \"https://c.example/f\"]\n\ttimezone = \"America/New_York\"\n",
		},
		{
			name: "no feeds key, name on the last line without newline",
			user: "ada",
			in:   "[[users]]\ntimezone = \"UTC\"\nname = \"ada\"",
			urls: []string{"https://c.example/f"},
			want: "[[users]]\ntimezone = \"UTC\"\nname = \"ada\"\nfeeds = [\"https://c.example/f\"]\n",
		},
		{
			name: "CRLF line ends",
			user: "ada",
			in:   "[[users]]\r\nname = \"ada\"\r\ntimezone = \"UTC\"\r\nfeeds = [\r\n  \"https://a.example/f\",\r\n]\r\n",
			urls: []string{"https://c.example/f"},
			want: "[[users]]\r\nname = \"ada\"\r\ntimezone = \"UTC\"\r\nfeeds = [\r\n  \"https://a.example/f\",\r\n  \"https://c.example/f\",\r\n]\r\n",
		},
		{
			name: "quotes and backslashes escaped",
			user: "ada",
			in:   "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n",
			urls: []string{`https://c.example/f?q="x"\y`},
			want: "[[users]]\nname = \"ada\"\nfeeds = [\"https://c.example/f?q=\\\"x\\\"\\\\y\"]\ntimezone = \"UTC\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, tt.in, 0o644)
			before, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := AddFeeds(path, tt.user, tt.urls); err != nil {
				t.Fatalf("AddFeeds: %v", err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.want)
			}
			after, err := Load(path)
			if err != nil {
				t.Fatalf("edited file does not load: %v", err)
			}
			u, _ := before.User(tt.user)
			v, _ := after.User(tt.user)
			want := slices.Compact(append(u.FeedURLs(), tt.urls...))
			if !slices.Equal(v.FeedURLs(), want) {
				t.Errorf("feeds = %q, want %q", v.FeedURLs(), want)
			}
		})
	}
}

func TestAddFeedsReportsAddedAndPresent(t *testing.T) {
	path := writeTemp(t, "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\"]\n", 0o600)
	added, present, err := AddFeeds(path, "ada", []string{" https://c.example/f ", "https://a.example/f", "https://c.example/f"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(added, []string{"https://c.example/f"}) || !slices.Equal(present, []string{"https://a.example/f"}) {
		t.Errorf("added %q, present %q", added, present)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("permissions became %v", info.Mode().Perm())
	}
	// The config's folder holds the config alone: no temporary file left.
	if names, _ := os.ReadDir(filepath.Dir(path)); len(names) != 1 {
		t.Errorf("files in the config's folder after the edit: %v", names)
	}
}

func TestAddFeedsNothingNewWritesNothing(t *testing.T) {
	path := writeTemp(t, "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\"]\n", 0o644)
	os.Chmod(filepath.Dir(path), 0o555) // any attempt to write would fail
	defer os.Chmod(filepath.Dir(path), 0o755)
	added, present, err := AddFeeds(path, "ada", []string{"https://a.example/f"})
	if err != nil || len(added) != 0 || len(present) != 1 {
		t.Errorf("added %q, present %q, %v", added, present, err)
	}
}

func TestAddFeedsFollowsSymlink(t *testing.T) {
	target := writeTemp(t, "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n", 0o644)
	link := filepath.Join(t.TempDir(), "link.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, _, err := AddFeeds(link, "ada", []string{"https://c.example/f"}); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "https://c.example/f") {
		t.Errorf("target not edited:\n%s", b)
	}
}

func TestAddFeedsRefusalsChangeNothing(t *testing.T) {
	good := "# keep me\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = []\n"
	tests := []struct {
		name, in, user, want string
		urls                 []string
	}{
		{"unknown user", good, "bob", `no user named "bob" (users: ada)`, []string{"https://c.example/f"}},
		{"bad URL", good, "ada", "ftp://c.example/f", []string{"https://c.example/ok", "ftp://c.example/f"}},
		{"invalid config", good + "colour = \"red\"\n", "ada", `unknown key "users[0].colour"`, []string{"https://c.example/f"}},
		{"inline table", "users = [{name = \"ada\", timezone = \"UTC\", feeds = []}]\n", "ada", "add them by hand", []string{"https://c.example/f"}},
		{"inline table without feeds", "users = [\n  {name = \"ada\", timezone = \"UTC\"},\n]\n", "ada", "add them by hand", []string{"https://c.example/f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, tt.in, 0o644)
			added, _, err := AddFeeds(path, tt.user, tt.urls)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
			if len(added) != 0 {
				t.Errorf("added %q on failure", added)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.in {
				t.Errorf("file changed:\n%s", b)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("files left behind: %v", entries)
			}
		})
	}
}

func TestQuoteRoundTrips(t *testing.T) {
	for _, s := range []string{"plain", `a"b\c`, "tab\there", "ünï\u007f", "\x01"} {
		c, err := Parse([]byte("[[users]]\nname = \"a\"\ntimezone = \"UTC\"\nintro = "+Quote(s)+"\n"), "")
		if err != nil || c.Users[0].Intro != s {
			t.Errorf("Quote(%q) = %s: %v", s, Quote(s), err)
		}
	}
}
