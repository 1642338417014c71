package main

import (
	"os"
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
