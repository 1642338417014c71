package config

import (
	"archive/zip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var someZones = []string{"America/Indiana/Indianapolis", "America/Indianapolis", "America/New_York", "Asia/Tokyo", "Etc/UTC", "Europe/Lisbon", "Europe/London", "UTC"}

func TestSuggestZones(t *testing.T) {
	tests := []struct {
		in    string
		zones []string
		want  []string
	}{
		{"Europe/Londn", someZones, []string{"Europe/London"}},
		{"europe/london", someZones, []string{"Europe/London"}},
		{"london", someZones, []string{"Europe/London"}},
		{"London", someZones, []string{"Europe/London"}},
		{"new york", someZones, []string{"America/New_York"}},
		{"New York", someZones, []string{"America/New_York"}},
		{"Europe/New_York", someZones, []string{"America/New_York"}},
		{"tokio", someZones, []string{"Asia/Tokyo"}},
		{"indianapolis", someZones, []string{"America/Indiana/Indianapolis", "America/Indianapolis"}},
		{"utc", someZones, []string{"Etc/UTC", "UTC"}},
		{"Mars/Base", someZones, nil},
		{"xyz", someZones, nil},
		// Without a list of zones: what a change of case or a region makes loadable.
		{"london", nil, []string{"Europe/London"}},
		{"new york", nil, []string{"America/New_York"}},
		{"europe/london", nil, []string{"Europe/London"}},
		{"Europe/Londn", nil, nil},
		{"local", nil, nil},
	}
	for _, tt := range tests {
		if got := suggestZones(tt.in, tt.zones); !slices.Equal(got, tt.want) {
			t.Errorf("suggestZones(%q, %d zones) = %q, want %q", tt.in, len(tt.zones), got, tt.want)
		}
	}
}

func TestReadZoneNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"Europe/London", "UTC", "posix/Europe/London", "right/UTC", "zone.tab", "tzdata.zi", "Etc/GMT+1"} {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("TZif"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"Etc/GMT+1", "Europe/London", "UTC"}
	if got := readZoneNames(dir); !slices.Equal(got, want) {
		t.Errorf("folder: %q, want %q", got, want)
	}

	zipPath := filepath.Join(t.TempDir(), "zoneinfo.zip")
	f, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	for _, name := range []string{"Europe/London", "UTC", "zone.tab", "Etc/GMT+1"} {
		w.Create(name)
	}
	w.Close()
	f.Close()
	if got := readZoneNames(zipPath); !slices.Equal(got, []string{"Europe/London", "UTC", "Etc/GMT+1"}) {
		t.Errorf("zip: %q", got)
	}
	if got := readZoneNames(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("missing folder: %q", got)
	}
}

// TestUnknownZoneSuggests goes through Parse with the system's zones (or,
// where it has none, the fallback).
func TestUnknownZoneSuggests(t *testing.T) {
	tests := []struct{ zone, want string }{
		{"london", `did you mean "Europe/London"?`},
		{"new york", `did you mean "America/New_York"?`},
	}
	if len(zoneNames()) > 0 {
		tests = append(tests, struct{ zone, want string }{"Europe/Londn", `did you mean "Europe/London"?`})
	} else {
		t.Log("no zoneinfo on this system: typos are not checked")
	}
	for _, tt := range tests {
		_, err := Parse([]byte("[[users]]\nname = \"ada\"\ntimezone = \""+tt.zone+"\"\n"), "c.toml")
		if err == nil || !containsAll(err.Error(), []string{`users[0] "ada": unknown time zone "` + tt.zone + `"; ` + tt.want, "(line 3)"}) {
			t.Errorf("%q: %v", tt.zone, err)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"A"}, `; did you mean "A"?`},
		{[]string{"A", "B"}, `; did you mean "A" or "B"?`},
		{[]string{"A", "B", "C"}, `; did you mean "A", "B" or "C"?`},
	} {
		if got := didYouMean(tt.in); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := didYouMean(suggestZones("a", nil)); strings.Contains(got, "Local") {
		t.Errorf("suggested Local: %q", got)
	}
}
