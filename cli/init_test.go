package cli

import (
	"bytes"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/config"
)

func TestUserName(t *testing.T) {
	for login, want := range map[string]string{
		"ada":                   "ada",
		"Ada.Lovelace":          "ada-lovelace",
		`CORP\Grace Hopper`:     "grace-hopper",
		"_svc__build_":          "svc-build",
		"józef":                 "j-zef",
		"":                      "me",
		"日本":                    "me",
		strings.Repeat("a", 80): strings.Repeat("a", config.MaxUserName),
	} {
		if got := userName(login); got != want {
			t.Errorf("userName(%q) = %q, want %q", login, got, want)
		}
	}
}

func TestMachineZone(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "localtime")
	if err := os.Symlink("/usr/share/zoneinfo/Europe/Paris", link); err != nil {
		t.Fatal(err)
	}
	tzFile := filepath.Join(dir, "timezone")
	os.WriteFile(tzFile, []byte("America/Chicago\n"), 0o644)
	missing := filepath.Join(dir, "missing")
	env := func(tz string) func(string) string {
		return func(k string) string {
			if k == "TZ" {
				return tz
			}
			return ""
		}
	}
	tests := []struct {
		tz, localtime, tzFile string
		want, from            string
	}{
		{"Asia/Tokyo", link, tzFile, "Asia/Tokyo", "from TZ"},
		{":Asia/Tokyo", link, tzFile, "Asia/Tokyo", "from TZ"},
		{":/usr/share/zoneinfo/Asia/Kolkata", link, tzFile, "Asia/Kolkata", "from TZ"},
		{"CET-1CEST", link, tzFile, "Europe/Paris", "from " + link}, // a POSIX rule, not an IANA name
		{"", link, tzFile, "Europe/Paris", "from " + link},
		{"", missing, tzFile, "America/Chicago", "from " + tzFile},
		{"", tzFile, missing, "UTC", "the machine names none"}, // a regular file, not a link
	}
	for _, tt := range tests {
		zone, from := machineZone(env(tt.tz), tt.localtime, tt.tzFile)
		if zone != tt.want || !strings.HasPrefix(from, tt.from) {
			t.Errorf("TZ=%q localtime %s: %q (%s), want %q (%s)", tt.tz, filepath.Base(tt.localtime), zone, from, tt.want, tt.from)
		}
	}
}

func TestOnThisNetwork(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:8000/feed.xml": true,
		"http://localhost/feed":          true,
		"http://[::1]:8080/f":            true,
		"http://192.168.1.10/rss":        true,
		"https://go.dev/blog/feed.atom":  false,
		"https://8.8.8.8/feed":           false,
	} {
		if got := onThisNetwork(u); got != want {
			t.Errorf("onThisNetwork(%q) = %v, want %v", u, got, want)
		}
	}
}

// The starter config loads whatever URLs it quotes, and keeps them as
// given.
func TestStarterConfigLoads(t *testing.T) {
	feeds := []string{`https://example.org/feed?q="x"&b=\y`, "http://127.0.0.1:8000/f.xml"}
	for _, s := range []starter{
		{User: "ada", Zone: "Europe/London", ZoneSource: "from TZ", Feeds: feeds, Private: feeds[1:]},
		{User: "me", Zone: "UTC", ZoneSource: "the machine names none"},
	} {
		text := s.config()
		cfg, err := config.Parse([]byte(text), filepath.Join(t.TempDir(), "config.toml"))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		u := cfg.Users[0]
		if u.Name != s.User || u.Timezone != s.Zone || len(u.Feeds) != len(s.Feeds) || cfg.Fetch.AllowPrivateNetworks != (len(s.Private) > 0) {
			t.Errorf("loaded %+v, fetch %+v from\n%s", u, cfg.Fetch, text)
		}
		for i := range u.Feeds {
			if u.Feeds[i].URL != s.Feeds[i] {
				t.Errorf("feed %q came back as %q", s.Feeds[i], u.Feeds[i].URL)
			}
		}
	}
}

func TestInitTwice(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TZ", "Asia/Tokyo") // the zone init takes for the machine's
	code, stdout, stderr := runCLI("init", "https://go.dev/blog/feed.atom", "https://xkcd.com/atom.xml")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	path := filepath.Join(dir, "config.toml")
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("the file init wrote does not load: %v\n%s", err, written)
	}
	name := "me"
	if u, err := user.Current(); err == nil {
		name = userName(u.Username)
	}
	if len(cfg.Users) != 1 || cfg.Users[0].Name != name || cfg.Users[0].Timezone != "Asia/Tokyo" ||
		strings.Join(cfg.Users[0].FeedURLs(), " ") != "https://go.dev/blog/feed.atom https://xkcd.com/atom.xml" || cfg.Users[0].Email == "" {
		t.Errorf("user %+v; want %q in Asia/Tokyo (from TZ) with an address and the two feeds", cfg.Users, name)
	}
	if cfg.Email.Outbox != filepath.Join(dir, "outbox") || cfg.Email.SMTP != nil || cfg.Email.From == "" ||
		cfg.Fetch.StartDelayMax != 0 || cfg.State != filepath.Join(dir, "state.db") || cfg.SiteDir != filepath.Join(dir, "site") {
		t.Errorf("config %+v; want an outbox, a from address, no SMTP, no start delay, state.db and site", cfg)
	}
	if strings.Count(string(written), "\n#") < 10 {
		t.Errorf("the starter config is hardly commented:\n%s", written)
	}
	// site_url is there to set, explained, and loads once uncommented.
	const siteURL = "# site_url = \"https://example.org/digest/\"\n"
	if !strings.Contains(string(written), siteURL) || !strings.Contains(string(written), "email then links its day's page") {
		t.Errorf("the starter config does not offer site_url, explained:\n%s", written)
	}
	withSite, err := config.Parse([]byte(strings.Replace(string(written), siteURL, siteURL[2:], 1)), path)
	if err != nil || withSite.SiteURL != "https://example.org/digest/" {
		t.Errorf("with site_url set, the starter config loads as %v (%v)", withSite, err)
	}
	for _, want := range []string{"feeddigest check", "feeddigest run", filepath.Join("site", name, "index.html"), "outbox"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("init does not say what to do next (%q):\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runCLI("init", "https://example.org/other.xml")
	if code != 1 || !strings.Contains(stderr, "config.toml already exists") || stdout != "" {
		t.Errorf("second init: exit %d, stdout %q, stderr %q; want 1 and a clear refusal", code, stdout, stderr)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, written) {
		t.Errorf("the second init changed the file:\n%s", again)
	}

	if code, _, _ := runCLI("init", "-config", "work.toml"); code != 0 {
		t.Errorf("init -config work.toml: exit %d", code)
	}
	if _, err := config.Load(filepath.Join(dir, "work.toml")); err != nil {
		t.Errorf("init -config wrote no loadable file: %v", err)
	}
	code, _, stderr = runCLI("init", "ftp://files.example/feed")
	if code == 0 || !strings.Contains(stderr, "ftp://files.example/feed") {
		t.Errorf("a bad URL: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("init", "mine.toml"); code != 2 || !strings.Contains(stderr, "-config mine.toml") {
		t.Errorf("init FILE.toml: exit %d, %q; want a usage error pointing at -config", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "mine.toml")); !os.IsNotExist(err) {
		t.Error("a refused init wrote a file")
	}
}
