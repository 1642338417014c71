package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

const testdata = "testdata"

func td(name string) string { return filepath.Join(testdata, name) }

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestLoadGood(t *testing.T) {
	c, err := Load(td("good.toml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	dir := mustAbs(t, testdata)
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	}
	check("Path", c.Path, filepath.Join(dir, "good.toml"))
	check("Dir", c.Dir, dir)
	check("State", c.State, filepath.Join(dir, "data", "state.db"))
	check("SiteDir", c.SiteDir, filepath.Clean("/srv/digest/site"))
	check("SiteURL", c.SiteURL, "https://example.org/digest/")
	check("Retention", c.Retention, 30*24*time.Hour)
	check("Intro", c.Intro, "Hello **everyone**.")
	check("Fetch", c.Fetch, Fetch{
		Concurrency:          8,
		PerHost:              3,
		HostRate:             2,
		Timeout:              45 * time.Second,
		MaxBody:              5 << 20,
		AllowPrivateNetworks: true,
		Contact:              "mailto:bot@example.org",
		Head:                 "always",
		StartDelayMin:        time.Minute,
		StartDelayMax:        3 * time.Minute,
		HintCap:              48 * time.Hour,
	})
	check("Email", c.Email, Email{
		From:   "Digest <digest@example.org>",
		Outbox: filepath.Join(dir, "out", "mail"),
		SMTP:   &SMTPServer{Host: "mail.example.org", Port: 465, User: "digest", ImplicitTLS: true},
	})

	if len(c.Users) != 3 {
		t.Fatalf("got %d users, want 3", len(c.Users))
	}
	ada := c.Users[0]
	check("ada.Name", ada.Name, "ada")
	check("ada.Timezone", ada.Timezone, "Europe/London")
	check("ada.Location", ada.Location.String(), "Europe/London")
	check("ada.Email", ada.Email, "ada@example.org")
	check("ada.DigestHour", ada.DigestHour, 6)
	check("ada.Intro", ada.Intro, "Morning, Ada.")
	// The duplicate feed is dropped, order kept.
	check("ada.Feeds", ada.FeedURLs(), []string{"https://example.org/feed.xml", "https://example.com/atom.xml"})
	check("bob.Name", c.Users[1].Name, "bob-2")
	check("bob.Location", c.Users[1].Location.String(), "America/New_York")
	check("bob.DigestHour", c.Users[1].DigestHour, 0)
	check("chie.Feeds", c.Users[2].FeedURLs(), []string{})
}

func TestDefaults(t *testing.T) {
	c, err := Load(td("minimal.toml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	dir := mustAbs(t, testdata)
	if c.State != filepath.Join(dir, "state.db") {
		t.Errorf("State = %q", c.State)
	}
	if c.SiteDir != filepath.Join(dir, "site") {
		t.Errorf("SiteDir = %q", c.SiteDir)
	}
	if c.SiteURL != "" || c.Intro != "" {
		t.Errorf("SiteURL = %q, Intro = %q; want empty", c.SiteURL, c.Intro)
	}
	if c.Retention != 60*24*time.Hour {
		t.Errorf("Retention = %v", c.Retention)
	}
	want := Fetch{
		Concurrency: 16,
		PerHost:     2,
		HostRate:    1.0,
		Timeout:     30 * time.Second,
		MaxBody:     10_000_000,
		Head:        "auto",
		HintCap:     7 * 24 * time.Hour,
	}
	if c.Fetch != want {
		t.Errorf("Fetch = %+v\nwant    %+v", c.Fetch, want)
	}
	if c.Email != (Email{}) {
		t.Errorf("Email = %+v, want zero", c.Email)
	}
	u := c.Users[0]
	if u.DigestHour != 0 || u.Email != "" || u.Intro != "" || u.Feeds == nil || len(u.Feeds) != 0 || u.Location != time.UTC {
		t.Errorf("user = %+v", u)
	}
}

func TestPathResolution(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "elsewhere", "state.db")
	src := `
state = "sub/state.db"
site_dir = "../www"
[email]
from = "d@example.org"
outbox = ` + "'" + filepath.Join(dir, "mail") + "'" + `
[[users]]
name = "ada"
timezone = "UTC"
`
	c, err := Parse([]byte(src), filepath.Join(dir, "cfg", "feeddigest.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "cfg", "sub", "state.db"); c.State != want {
		t.Errorf("State = %q, want %q", c.State, want)
	}
	if want := filepath.Join(dir, "www"); c.SiteDir != want {
		t.Errorf("SiteDir = %q, want %q", c.SiteDir, want)
	}
	if want := filepath.Join(dir, "mail"); c.Email.Outbox != want {
		t.Errorf("Outbox = %q, want %q", c.Email.Outbox, want)
	}
	if c.Dir != filepath.Join(dir, "cfg") || c.Path != filepath.Join(dir, "cfg", "feeddigest.toml") {
		t.Errorf("Dir, Path = %q, %q", c.Dir, c.Path)
	}

	// An absolute state path stays as written.
	c, err = Parse([]byte("state = '"+abs+"'\n[[users]]\nname = 'a'\ntimezone = 'UTC'\n"), filepath.Join(dir, "x.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.State != abs {
		t.Errorf("State = %q, want %q", c.State, abs)
	}

	// A relative config path is made absolute against the working directory.
	c, err = Parse([]byte("[[users]]\nname = 'a'\ntimezone = 'UTC'\n"), "conf/x.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want := mustAbs(t, filepath.Join("conf", "state.db")); c.State != want {
		t.Errorf("State = %q, want %q", c.State, want)
	}
}

// TestLoadErrors checks that each bad file reports every problem, one per
// line, each naming the key, user or value at fault and the line.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		file string
		// Each group must appear within one line of the error.
		want [][]string
	}{
		{"unknown_key.toml", [][]string{
			{"unknown_key.toml: ", `unknown key "colour"`, "(line 2)"},
			{`unknown key "fetch.timout"`, `did you mean "timeout"`, "(line 5)"},
			{`unknown key "users[1].nmae"`, "(line 14)"},
		}},
		{"bad_timezone.toml", [][]string{
			{`bad_timezone.toml: users[1] "bob": unknown time zone "Mars/Base"`, "(line 7)"},
			{`users[2] "cy"`, `"Local"`, "(line 11)"},
		}},
		{"duplicate_user.toml", [][]string{
			{`users[2] "ada": duplicate user name`, "users[0]", "(line 10)"},
		}},
		{"bad_url.toml", [][]string{
			{`users[0] "ada"`, `"ftp://example.org/feed.xml"`, "(line 6)"},
			{`users[0] "ada"`, `"example.org/feed.xml"`, "(line 7)"},
			{`users[0] "ada"`, `"https:///nohost.xml"`, "no host", "(line 8)"},
		}},
		{"bad_hour.toml", [][]string{
			{`users[0] "ada"`, "digest_hour", "24", "(line 4)"},
			{`users[1] "bob"`, "digest_hour", "-1", "(line 9)"},
		}},
		{"bad_duration.toml", [][]string{
			{"retention", `"forever"`, "(line 1)"},
			{"fetch.timeout", `"0s"`, "(line 4)"},
			{"fetch.hint_cap", `"7 days"`, "(line 5)"},
			{"fetch.start_delay", `"3m-1m"`, "(line 6)"},
		}},
		{"bad_size.toml", [][]string{
			{"fetch.max_body", `"10XB"`, "(line 2)"},
		}},
		{"bad_syntax.toml", [][]string{
			{"bad_syntax.toml: ", "TOML syntax error", "line 4"},
		}},
		{"no_users.toml", [][]string{
			{"no_users.toml: ", "no [[users]]"},
		}},
		{"many_errors.toml", [][]string{
			{"site_url", `"ftp://example.org/"`, "(line 1)"},
			{"fetch.concurrency", "got 0", "(line 4)"},
			{"fetch.per_host", "integer", `"two"`, "(line 5)"},
			{"fetch.host_rate", "(line 6)"},
			{"fetch.head", `"sometimes"`, "(line 7)"},
			{"fetch.contact", `"example.org/bot"`, "(line 8)"},
			{"email.from", "required", "(line 10)"},
			{"email.smtp", `"imap://mail.example.org"`, "(line 12)"},
			{"users[0]", `"Ada Lovelace"`, "a-z", "(line 15)"},
			{"users[0]", `"not an address"`, "(line 17)"},
			{"users[1]: name is required", "(line 19)"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := Load(td(tt.file))
			if err == nil {
				t.Fatalf("Load succeeded: %+v", c)
			}
			if c != nil {
				t.Errorf("Load returned a config with an error")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Errorf("got %d problems, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for _, group := range tt.want {
				if !slices.ContainsFunc(lines, func(l string) bool { return containsAll(l, group) }) {
					t.Errorf("no line of the error contains all of %q:\n%v", group, err)
				}
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, td(tt.file)+": ") {
					t.Errorf("line %q does not start with the file name", l)
				}
			}
		})
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

const okUser = "\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n"

// TestParseErrors covers further invalid settings, one snippet each.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // all within one line
	}{
		{"state empty", `state = ""` + okUser, []string{"state", "empty"}},
		{"state type", `state = 1` + okUser, []string{"state", "want a string", "integer 1", "(line 1)"}},
		{"site_url relative", `site_url = "/digest/"` + okUser, []string{"site_url", `"/digest/"`}},
		{"site_url query", `site_url = "https://e.org/?a=b"` + okUser, []string{"site_url", "query"}},
		{"retention zero", `retention = "0d"` + okUser, []string{"retention", "longer than zero"}},
		{"retention negative", `retention = "-1d"` + okUser, []string{"retention", `"-1d"`}},
		{"retention number", `retention = 60` + okUser, []string{"retention", "want a string", "integer 60"}},
		{"fetch not table", `fetch = 1` + okUser, []string{"fetch", "table"}},
		{"concurrency big", "[fetch]\nconcurrency = 1025\n" + okUser, []string{"fetch.concurrency", "1025", "(line 2)"}},
		{"per_host zero", "[fetch]\nper_host = 0\n" + okUser, []string{"fetch.per_host", "got 0"}},
		{"max_entries_per_feed zero", "max_entries_per_feed = 0\n" + okUser, []string{"max_entries_per_feed", "1 to 10000", "got 0", "(line 1)"}},
		{"max_entries_per_feed string", "max_entries_per_feed = \"50\"\n" + okUser, []string{"max_entries_per_feed", "integer"}},
		{"per_host big", "[fetch]\nper_host = 65\n" + okUser, []string{"fetch.per_host", "got 65"}},
		{"host_rate big", "[fetch]\nhost_rate = 1000.5\n" + okUser, []string{"fetch.host_rate", "1000.5"}},
		{"host_rate negative", "[fetch]\nhost_rate = -1\n" + okUser, []string{"fetch.host_rate"}},
		{"host_rate nan", "[fetch]\nhost_rate = nan\n" + okUser, []string{"fetch.host_rate"}},
		{"host_rate string", "[fetch]\nhost_rate = \"1\"\n" + okUser, []string{"fetch.host_rate", `string "1"`}},
		{"timeout negative", "[fetch]\ntimeout = \"-5s\"\n" + okUser, []string{"fetch.timeout", `"-5s"`}},
		{"timeout no unit", "[fetch]\ntimeout = \"30\"\n" + okUser, []string{"fetch.timeout", `"30"`}},
		{"max_body zero", "[fetch]\nmax_body = \"0MB\"\n" + okUser, []string{"fetch.max_body", "more than 0"}},
		{"max_body negative int", "[fetch]\nmax_body = -1\n" + okUser, []string{"fetch.max_body"}},
		{"max_body bool", "[fetch]\nmax_body = true\n" + okUser, []string{"fetch.max_body", "boolean"}},
		{"allow_private string", "[fetch]\nallow_private_networks = \"yes\"\n" + okUser, []string{"fetch.allow_private_networks", "true or false"}},
		{"contact ftp", "[fetch]\ncontact = \"ftp://e.org/\"\n" + okUser, []string{"fetch.contact", `"ftp://e.org/"`}},
		{"contact mailto empty", "[fetch]\ncontact = \"mailto:\"\n" + okUser, []string{"fetch.contact", "mailto"}},
		{"contact mailto bad", "[fetch]\ncontact = \"mailto:nobody\"\n" + okUser, []string{"fetch.contact", "mailto:nobody"}},
		{"head case", "[fetch]\nhead = \"Auto\"\n" + okUser, []string{"fetch.head", `"Auto"`}},
		{"start_delay bad", "[fetch]\nstart_delay = \"soon\"\n" + okUser, []string{"fetch.start_delay", `"soon"`}},
		{"start_delay negative", "[fetch]\nstart_delay = \"-1m\"\n" + okUser, []string{"fetch.start_delay", "negative"}},
		{"hint_cap zero", "[fetch]\nhint_cap = \"0s\"\n" + okUser, []string{"fetch.hint_cap"}},
		{"from bad", "[email]\nfrom = \"not an address\"\n" + okUser, []string{"email.from", `"not an address"`, "(line 2)"}},
		{"from missing for smtp", "[email]\nsmtp = \"smtp://mail.example.org\"\n" + okUser, []string{"email.from", "required"}},
		{"smtp no host", "[email]\nfrom = \"a@b.org\"\nsmtp = \"smtp://\"\n" + okUser, []string{"email.smtp", "no host", "(line 3)"}},
		{"smtp password", "[email]\nfrom = \"a@b.org\"\nsmtp = \"smtp://u:secret@mail.example.org\"\n" + okUser, []string{"email.smtp", "FEEDDIGEST_SMTP_PASSWORD"}},
		{"smtp bad port", "[email]\nfrom = \"a@b.org\"\nsmtp = \"smtp://mail.example.org:99999\"\n" + okUser, []string{"email.smtp", "port"}},
		{"unknown email key", "[email]\nto = \"x\"\n" + okUser, []string{`unknown key "email.to"`, "(line 2)"}},
		{"unknown table", "[fetcher]\nx = 1\n" + okUser, []string{`unknown key "fetcher"`, `did you mean "fetch"`, "(line 1)"}},
		{"wrong case key", "STATE = \"x\"\n" + okUser, []string{`unknown key "STATE"`, `did you mean "state"`}},
		{"quoted key", "\"site dir\" = \"x\"\n" + okUser, []string{`unknown key "\"site dir\""`, "(line 1)"}},
		{"users empty array", "users = []\n", []string{"no [[users]]"}},
		{"users wrong type", "users = \"ada\"\n", []string{"users", "[[users]]", `string "ada"`}},
		{"user name empty", "[[users]]\nname = \"\"\ntimezone = \"UTC\"\n", []string{"users[0]", "name", "empty", "(line 2)"}},
		{"user name upper", "[[users]]\nname = \"Ada\"\ntimezone = \"UTC\"\n", []string{"users[0]", `"Ada"`, "(line 2)"}},
		{"user name slash", "[[users]]\nname = \"../x\"\ntimezone = \"UTC\"\n", []string{"users[0]", `"../x"`}},
		{"user name long", "[[users]]\nname = \"" + strings.Repeat("a", 65) + "\"\ntimezone = \"UTC\"\n", []string{"users[0]", "longer than 64"}},
		{"user name int", "[[users]]\nname = 7\ntimezone = \"UTC\"\n", []string{"users[0].name", "integer 7"}},
		{"no timezone", "[[users]]\nname = \"ada\"\n", []string{`users[0] "ada": timezone is required`, "(line 1)"}},
		{"empty timezone", "[[users]]\nname = \"ada\"\ntimezone = \"\"\n", []string{`users[0] "ada"`, `""`, "(line 3)"}},
		{"digest_hour float", "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\ndigest_hour = 1.5\n", []string{"users[0].digest_hour", "float 1.5"}},
		{"feeds string", "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = \"https://e.org/f\"\n", []string{`users[0] "ada": feeds`, "array"}},
		{"feed int", "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [1]\n", []string{`users[0] "ada": feeds[0]`, "integer 1"}},
		{"feed mailto", "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"mailto:a@b.org\"]\n", []string{`users[0] "ada"`, `"mailto:a@b.org"`, "(line 4)"}},
		{"feed no hostname", "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"http://:80/feed\"]\n", []string{`users[0] "ada"`, `"http://:80/feed"`, "no host"}},
		{"inline users", "users = [{name = \"ada\", timezone = \"Nowhere/Land\"}]\n", []string{`users[0] "ada": unknown time zone "Nowhere/Land"`, "(line 1)"}},
		{"inline users unknown", "users = [\n  {name = \"ada\", timezone = \"UTC\"},\n  {name = \"bo\", timezone = \"UTC\", x = 1},\n]\n", []string{`unknown key "users[1].x"`, "(line 3)"}},
		{"duplicate key", "state = \"a\"\nstate = \"b\"\n" + okUser, []string{"TOML syntax error", "line 2"}},
		{"not toml", "\x00\x01", []string{"TOML syntax error", "line 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.src), "test.toml")
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", c)
			}
			lines := strings.Split(err.Error(), "\n")
			if !slices.ContainsFunc(lines, func(l string) bool { return containsAll(l, tt.want) }) {
				t.Errorf("no line of the error contains all of %q:\n%v", tt.want, err)
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, "test.toml: ") {
					t.Errorf("line %q does not start with the file name", l)
				}
			}
		})
	}
}

// TestParseAccepts covers valid variants of individual settings.
func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(*Config) bool
	}{
		{"site_url slash kept", `site_url = "https://e.org/d/"` + okUser, func(c *Config) bool { return c.SiteURL == "https://e.org/d/" }},
		{"site_url host only", `site_url = "http://e.org"` + okUser, func(c *Config) bool { return c.SiteURL == "http://e.org/" }},
		{"site_url empty", `site_url = ""` + okUser, func(c *Config) bool { return c.SiteURL == "" }},
		{"host_rate float", "[fetch]\nhost_rate = 0.25\n" + okUser, func(c *Config) bool { return c.Fetch.HostRate == 0.25 }},
		{"host_rate max", "[fetch]\nhost_rate = 1000\n" + okUser, func(c *Config) bool { return c.Fetch.HostRate == 1000 }},
		{"max_body int", "[fetch]\nmax_body = 1048576\n" + okUser, func(c *Config) bool { return c.Fetch.MaxBody == 1<<20 }},
		{"max_body plain string", "[fetch]\nmax_body = \"1048576\"\n" + okUser, func(c *Config) bool { return c.Fetch.MaxBody == 1<<20 }},
		{"max_body GiB", "[fetch]\nmax_body = \"1GiB\"\n" + okUser, func(c *Config) bool { return c.Fetch.MaxBody == 1<<30 }},
		{"concurrency bounds", "[fetch]\nconcurrency = 1024\nper_host = 64\n" + okUser, func(c *Config) bool { return c.Fetch.Concurrency == 1024 && c.Fetch.PerHost == 64 }},
		{"start_delay none", "[fetch]\nstart_delay = \"\"\n" + okUser, func(c *Config) bool { return c.Fetch.StartDelayMin == 0 && c.Fetch.StartDelayMax == 0 }},
		{"start_delay single", "[fetch]\nstart_delay = \"2m\"\n" + okUser, func(c *Config) bool {
			return c.Fetch.StartDelayMin == 2*time.Minute && c.Fetch.StartDelayMax == 2*time.Minute
		}},
		{"contact https", "[fetch]\ncontact = \"https://e.org/bot\"\n" + okUser, func(c *Config) bool { return c.Fetch.Contact == "https://e.org/bot" }},
		{"max_entries_per_feed default", okUser, func(c *Config) bool { return c.MaxEntriesPerFeed == 50 }},
		{"max_entries_per_feed set", "max_entries_per_feed = 200\n" + okUser, func(c *Config) bool { return c.MaxEntriesPerFeed == 200 }},
		{"retention hours", "retention = \"1440h\"\n" + okUser, func(c *Config) bool { return c.Retention == 60*24*time.Hour }},
		{"from without outbox", "[email]\nfrom = \"d@e.org\"\n" + okUser, func(c *Config) bool { return c.Email.From == "d@e.org" && c.Email.Outbox == "" }},
		{"outbox empty is unset", "[email]\noutbox = \"\"\n" + okUser, func(c *Config) bool { return c.Email.Outbox == "" }},
		{"digest_hour 23", "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\ndigest_hour = 23\n", func(c *Config) bool { return c.Users[0].DigestHour == 23 }},
		{"user email with name", "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\nemail = \"Ada <a@e.org>\"\n", func(c *Config) bool { return c.Users[0].Email == "Ada <a@e.org>" }},
		{"no feeds key", "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n", func(c *Config) bool { return len(c.Users[0].Feeds) == 0 }},
		{"feed normalised", "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\nfeeds = [\"HTTPS://Example.org:443/./Feed?x=1#top\"]\n", func(c *Config) bool {
			return slices.Equal(c.Users[0].FeedURLs(), []string{"https://example.org/Feed?x=1"})
		}},
		{"inline users", "users = [{name = \"a\", timezone = \"UTC\"}, {name = \"b\", timezone = \"Asia/Tokyo\"}]\n", func(c *Config) bool {
			return len(c.Users) == 2 && c.Users[1].Location.String() == "Asia/Tokyo"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.src), "test.toml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !tt.check(c) {
				t.Errorf("unexpected config: %+v", c)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30s", 30 * time.Second, true},
		{"90m", 90 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{"0", 0, true},
		{"0s", 0, true},
		{"7d", 7 * 24 * time.Hour, true},
		{"60d", 60 * 24 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{" 2d ", 48 * time.Hour, true},
		{"-1d", -24 * time.Hour, true},
		{"-30s", -30 * time.Second, true},
		{"+5m", 5 * time.Minute, true},
		{"", 0, false},
		{"d", 0, false},
		{"30", 0, false},
		{"7 days", 0, false},
		{"1.5d", 0, false},
		{"1h2d", 0, false},
		{"1d-2h", 0, false},
		{"--1d", 0, false},
		{"+-1s", 0, false},
		{"forever", 0, false},
		{"106752d", 0, false},           // beyond time.Duration
		{"106751d23h59m59s", 0, false},  // past the maximum
		{"106751d", 106751 * day, true}, // the largest whole day
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParseDuration(%q) error %q does not name the value", tt.in, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1048576", 1048576, true},
		{"0", 0, true},
		{"10MB", 10_000_000, true},
		{"10mb", 10_000_000, true},
		{"10 MB", 10_000_000, true},
		{"512KB", 512_000, true},
		{"512KiB", 512 << 10, true},
		{"1GiB", 1 << 30, true},
		{"1GB", 1_000_000_000, true},
		{"2TiB", 2 << 40, true},
		{"100B", 100, true},
		{"1.5MB", 1_500_000, true},
		{"1.5KiB", 1536, true},
		{"", 0, false},
		{"MB", 0, false},
		{"-1MB", 0, false},
		{"10XB", 0, false},
		{"10 M B", 0, false},
		{"1e6", 0, false},
		{"9999999999TiB", 0, false},
		{"99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestStartDelay(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi time.Duration
		ok     bool
	}{
		{"", 0, 0, true},
		{"0s", 0, 0, true},
		{"2m", 2 * time.Minute, 2 * time.Minute, true},
		{"1m-3m", time.Minute, 3 * time.Minute, true},
		{"1m - 3m", time.Minute, 3 * time.Minute, true},
		{"30s-1h", 30 * time.Second, time.Hour, true},
		{"2m-2m", 2 * time.Minute, 2 * time.Minute, true},
		{"0s-1d", 0, 24 * time.Hour, true},
		{"3m-1m", 0, 0, false},
		{"-1m", 0, 0, false},
		{"-1m-3m", 0, 0, false},
		{"1m--3m", 0, 0, false},
		{"1m-", 0, 0, false},
		{"-", 0, 0, false},
		{"1m-2m-3m", 0, 0, false},
		{"soon", 0, 0, false},
	}
	for _, tt := range tests {
		lo, hi, err := parseStartDelay(tt.in)
		if (err == nil) != tt.ok || lo != tt.lo || hi != tt.hi {
			t.Errorf("parseStartDelay(%q) = %v, %v, %v; want %v, %v, ok=%v", tt.in, lo, hi, err, tt.lo, tt.hi, tt.ok)
		}
	}
}

func TestSMTPParts(t *testing.T) {
	tests := []struct {
		in   string
		host string
		port int
		user string
		tls  bool
		ok   bool
	}{
		{"smtp://mail.example.org", "mail.example.org", 587, "", false, true},
		{"smtp://user@mail.example.org:2525", "mail.example.org", 2525, "user", false, true},
		{"smtps://mail.example.org", "mail.example.org", 465, "", true, true},
		{"smtps://me%40example.org@mail.example.org:4650", "mail.example.org", 4650, "me@example.org", true, true},
		{"smtp://[::1]:25", "::1", 25, "", false, true},
		{"", "", 0, "", false, false},
		{"mail.example.org:587", "", 0, "", false, false},
		{"http://mail.example.org", "", 0, "", false, false},
		{"smtp://", "", 0, "", false, false},
		{"smtp://mail.example.org:0", "", 0, "", false, false},
		{"smtp://mail.example.org:x", "", 0, "", false, false},
		{"smtp://mail.example.org:", "", 0, "", false, false},
		{"smtp://u:pw@mail.example.org", "", 0, "", false, false},
		{"smtp://mail.example.org/path", "", 0, "", false, false},
		{"smtp:mail.example.org", "", 0, "", false, false},
		{"smtp://u:pw@mail.example.org:x", "", 0, "", false, false},
		{"smtps://u:pw@mail.example.org:99999", "", 0, "", false, false},
	}
	for _, tt := range tests {
		var got SMTPServer
		srv, err := parseSMTP(tt.in)
		if srv != nil {
			got = *srv
		}
		host, port, user, tls := got.Host, got.Port, got.User, got.ImplicitTLS
		if (err == nil) != tt.ok || host != tt.host || port != tt.port || user != tt.user || tls != tt.tls {
			t.Errorf("SMTPParts(%q) = %q, %d, %q, %v, %v", tt.in, host, port, user, tls, err)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("SMTPParts(%q) error leaks the password: %v", tt.in, err)
		}
	}
}

func TestUserAndAllFeeds(t *testing.T) {
	c, err := Load(td("good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	u, ok := c.User("bob-2")
	if !ok || u.Name != "bob-2" || u != &c.Users[1] {
		t.Errorf("User(bob-2) = %v, %v", u, ok)
	}
	if u, ok := c.User("nobody"); ok || u != nil {
		t.Errorf("User(nobody) = %v, %v", u, ok)
	}
	// In the config's order, each once.
	want := []string{
		"https://example.org/feed.xml",
		"https://example.com/atom.xml",
		"http://news.example.net/rss",
	}
	if got := c.AllFeeds(); !slices.Equal(got, want) {
		t.Errorf("AllFeeds = %q, want %q", got, want)
	}
}

func TestExampleConfig(t *testing.T) {
	c, err := Load("../config.example.toml")
	if err != nil {
		t.Fatalf("config.example.toml: %v", err)
	}
	if len(c.Users) < 2 {
		t.Errorf("example has %d users", len(c.Users))
	}
	zones := map[string]bool{}
	for _, u := range c.Users {
		zones[u.Timezone] = true
		for _, f := range u.FeedURLs() {
			if !strings.HasPrefix(f, "https://") {
				t.Errorf("example feed %q is not https", f)
			}
		}
	}
	if len(zones) < 2 {
		t.Errorf("example users share one time zone")
	}
	if c.Email.From == "" || c.Email.Outbox == "" || c.Email.SMTP == nil || c.SiteURL == "" || c.Fetch.Contact == "" {
		t.Errorf("example leaves optional settings out: %+v", c)
	}
	// Every key the package knows appears in the example.
	data, err := os.ReadFile("../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, k := range topKeys {
		if k != "fetch" && k != "email" && k != "users" {
			keys = append(keys, k)
		}
	}
	keys = append(keys, prefixed("fetch.", fetchKeys)...)
	keys = append(keys, prefixed("email.", emailKeys)...)
	keys = append(keys, prefixed("users.", userKeys)...)
	var md toml.MetaData
	var raw map[string]any
	if md, err = toml.Decode(string(data), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !md.IsDefined(strings.Split(k, ".")...) && !slices.ContainsFunc(md.Keys(), func(mk toml.Key) bool { return mk.String() == k }) {
			t.Errorf("config.example.toml does not show key %q", k)
		}
	}
}

func prefixed(p string, ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = p + k
	}
	return out
}

// TestLoadWritesNothing: loading leaves the folder as it was, even though
// the state, site and outbox do not exist.
func TestLoadWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.toml")
	src := "[email]\nfrom = \"d@e.org\"\noutbox = \"outbox\"\n" + okUser
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries after Load, want 1", len(entries))
	}
	after, _ := os.Stat(path)
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("config file changed")
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.toml"))
	if err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Errorf("Load(missing) = %v", err)
	}
}

func TestParseEmptyPath(t *testing.T) {
	c, err := Parse([]byte(okUser), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := mustAbs(t, "state.db"); c.State != want || c.Path != "" {
		t.Errorf("State, Path = %q, %q", c.State, c.Path)
	}
	_, err = Parse([]byte("x = 1\n"), "")
	if err == nil || !strings.HasPrefix(err.Error(), "config: ") {
		t.Errorf("error %v does not start with \"config: \"", err)
	}
}

// TestKeyLines checks the line locator on awkward but valid TOML.
func TestKeyLines(t *testing.T) {
	src := `# comment with key = "x" and [table]
a = 1 # trailing
"quoted key" = 'lit'
b = """
c = 2
[not.a.table]
""" # still b
d = '''
'''
e = [
  1, # one
  [2, "]"],
  { f = 3 },
]
g.h = "x\"y"   # dotted
i = { j = 1, k.l = { m = 2 } }
n = 1979-05-27 07:32:00Z

[t]
o = "p"
[[arr]]
q = 1
[[arr]]
q = 2
[arr.sub]
r = 3
[[arr.list]]
s = 4
[[arr]]
u = """x""""
"\u0041" = 1
v = 5
w = {
  x = 1,
}
`
	var raw map[string]any
	md, err := toml.Decode(src, &raw)
	if err != nil {
		t.Fatal(err)
	}
	ks := locate(src)
	var got, want []string
	for _, k := range ks.keys {
		got = append(got, k.key.String())
	}
	for _, k := range md.Keys() {
		want = append(want, k.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("keys:\n got %q\nwant %q", got, want)
	}
	lines := map[string]int{
		"a": 2, `"quoted key"`: 3, "b": 4, "d": 8, "e": 10, "e[0]": 11, "e[1]": 12, "e[2]": 13, "e[2].f": 13,
		"g.h": 15, "i": 16, "i.j": 16, "i.k.l.m": 16, "n": 17, "t": 19, "t.o": 20,
		"arr[0]": 21, "arr[0].q": 22, "arr[1]": 23, "arr[1].q": 24, "arr[1].sub": 25, "arr[1].sub.r": 26,
		"arr[1].list[0]": 27, "arr[1].list[0].s": 28, "arr[2]": 29, "arr[2].u": 30, "arr[2].A": 31, "arr[2].v": 32,
		"arr[2].w": 33, "arr[2].w.x": 34,
	}
	for k, want := range lines {
		if got := ks.line(k); got != want {
			t.Errorf("line(%s) = %d, want %d", k, got, want)
		}
	}
	if ks.line("c") != 0 || ks.line("not.a.table") != 0 {
		t.Errorf("keys inside a multi-line string were found")
	}
}

// FuzzParse: arbitrary input never panics; an accepted config is
// consistent; on every document the toml package accepts, the line
// locator finds the same keys in the same order.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(testdata, "*.toml"))
	files = append(files, "../config.example.toml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a = [\n'''x''', \"\"\"y\n\"\"\"]\n[[b]]\nc.d = {e = 1}\n"))
	f.Add([]byte("users = [{name='a', timezone='UTC', feeds=['http://x']}]"))
	f.Add([]byte("[[users]]\nname='a'\ntimezone='london'\nfeeds=['https://x/', {url='https://y/', title='Y', folder='F', z=1}]\n[[users.feeds]]\nurl='https://z/'\n"))
	f.Add([]byte("[email]\nfrom='a@b.org'\nsmtp='smtp:user:pw@host'\ntls='none'\n[[users]]\nname='-'\ntimezone='Europe/Londn'\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.toml")
		if err == nil {
			if len(c.Users) == 0 {
				t.Errorf("accepted a config without users")
			}
			for _, u := range c.Users {
				if !userNameRE.MatchString(u.Name) || u.Location == nil || u.DigestHour < 0 || u.DigestHour > 23 {
					t.Errorf("accepted bad user %+v", u)
				}
			}
			if c.Fetch.Timeout <= 0 || c.Fetch.MaxBody <= 0 || c.Fetch.StartDelayMin > c.Fetch.StartDelayMax {
				t.Errorf("accepted bad fetch settings %+v", c.Fetch)
			}
			for _, w := range c.Warnings {
				if !strings.HasPrefix(w, "fuzz.toml: ") || strings.Contains(w, "\n") {
					t.Errorf("warning %q is not one line naming the file", w)
				}
			}
		} else if err.Error() == "" {
			t.Errorf("empty error")
		} else {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.toml: ") || len(line) == len("fuzz.toml: ") {
					t.Errorf("error line %q does not name the file and a problem", line)
				}
			}
		}

		ks := locate(string(data)) // must not panic on any input
		var raw map[string]any
		md, derr := toml.Decode(string(data), &raw)
		if derr != nil {
			return
		}
		keys := md.Keys()
		if len(keys) != len(ks.keys) {
			t.Fatalf("locator found %d keys, toml %d", len(ks.keys), len(keys))
		}
		for i, k := range keys {
			if k.String() != ks.keys[i].key.String() {
				t.Fatalf("key %d: locator %q, toml %q", i, ks.keys[i].key, k)
			}
		}
	})
}

func TestEmailTLSMode(t *testing.T) {
	base := "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n[email]\nfrom = \"d@example.org\"\nsmtp = \"smtp://localhost:25\"\n"
	for _, tt := range []struct{ line, want, wantErr string }{
		{"", "", ""}, // unset: starttls
		{"tls = \"none\"\n", "none", ""},
		{"tls = \"opportunistic\"\n", "opportunistic", ""},
		{"tls = \"sometimes\"\n", "", "email.tls"},
	} {
		c, err := Parse([]byte(base+tt.line), "c.toml")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want one naming %s", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		if string(c.Email.TLS) != tt.want {
			t.Errorf("%q: TLS %q, want %q", tt.line, c.Email.TLS, tt.want)
		}
	}
}
