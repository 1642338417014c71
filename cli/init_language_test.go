package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/config"
)

// TestMachineLanguage: init takes the language from LC_ALL, else
// LC_MESSAGES, else LANG, when it names one on offer.
func TestMachineLanguage(t *testing.T) {
	for _, tt := range []struct {
		env        map[string]string
		lang, from string
	}{
		{map[string]string{"LANG": "fr_FR.UTF-8"}, "fr", "LANG=fr_FR.UTF-8"},
		{map[string]string{"LC_ALL": "ja_JP.UTF-8", "LANG": "de_DE.UTF-8"}, "ja", "LC_ALL=ja_JP.UTF-8"},
		{map[string]string{"LC_MESSAGES": "pt_PT.UTF-8", "LANG": "en_US.UTF-8"}, "pt-BR", "LC_MESSAGES=pt_PT.UTF-8"},
		{map[string]string{"LANG": "sv_SE.UTF-8"}, "", "LANG=sv_SE.UTF-8"},
		{map[string]string{"LANG": "C.UTF-8"}, "", ""},
		{map[string]string{"LC_ALL": "POSIX", "LANG": "fr_FR.UTF-8"}, "", ""},
		{map[string]string{}, "", ""},
	} {
		lang, from := machineLanguage(func(k string) string { return tt.env[k] })
		if lang != tt.lang || from != tt.from {
			t.Errorf("%v: %q from %q, want %q from %q", tt.env, lang, from, tt.lang, tt.from)
		}
	}
}

// TestStarterLanguage: the starter config sets the machine's language
// when it is on offer, and names it commented out otherwise; either way
// it loads as written.
func TestStarterLanguage(t *testing.T) {
	for _, tt := range []struct {
		s        starter
		want     string // the language the user reads
		contains string
	}{
		{starter{Language: "fr", LanguageFrom: "LANG=fr_FR.UTF-8"}, "fr", "language = \"fr\""},
		{starter{LanguageFrom: "LANG=sv_SE.UTF-8"}, "en", "# language = \"en\""},
		{starter{}, "en", "# language = \"en\""},
	} {
		tt.s.User, tt.s.Zone, tt.s.ZoneSource = "ada", "UTC", "from TZ"
		text := tt.s.config()
		cfg, err := config.Parse([]byte(text), filepath.Join(t.TempDir(), "config.toml"))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if got := cfg.Users[0].Lang.Tag(); got != tt.want || !strings.Contains(text, tt.contains) || !strings.Contains(text, "zh-Hans") {
			t.Errorf("%+v: reads %s from\n%s", tt.s, got, text)
		}
		if tt.s.LanguageFrom != "" && !strings.Contains(text, tt.s.LanguageFrom) {
			t.Errorf("the starter does not say where the language came from:\n%s", text)
		}
	}
}
