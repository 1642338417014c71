package config

import (
	"os"
	"strings"
	"testing"

	"feeddigest/locale"
)

// TestLanguage: a user's language, else the top level's, else English;
// a tag reads the language on offer that is the same language.
func TestLanguage(t *testing.T) {
	cfg, err := Parse([]byte(`language = "fr-CA"
[[users]]
name = "ada"
timezone = "UTC"
feeds = ["https://example.org/feed"]
[[users]]
name = "bob"
timezone = "Asia/Tokyo"
language = "ja"
feeds = ["https://example.org/feed"]
[[users]]
name = "eve"
timezone = "Europe/Lisbon"
language = "pt-PT"
feeds = ["https://example.org/feed"]
`), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Language != "fr-CA" || cfg.Lang.Tag() != "fr" {
		t.Errorf("top level: %q reads %s", cfg.Language, cfg.Lang.Tag())
	}
	for name, want := range map[string]string{"ada": "fr", "bob": "ja", "eve": "pt-BR"} {
		u, _ := cfg.User(name)
		if u.Lang.Tag() != want {
			t.Errorf("%s reads %s, want %s", name, u.Lang.Tag(), want)
		}
	}
	cfg, err = Parse([]byte("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://example.org/feed\"]\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Users[0].Lang.Tag() != "en" || cfg.Language != "" {
		t.Errorf("no language anywhere reads %s", cfg.Users[0].Lang.Tag())
	}
}

// TestLanguageErrors: a tag of a language not on offer names the user,
// the tag, the line and the languages on offer; a malformed one suggests
// the tag.
func TestLanguageErrors(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want []string
	}{
		{"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nlanguage = \"xx-YY\"\nfeeds = [\"https://example.org/feed\"]\n",
			[]string{`users[0] "ada": language: "xx-YY": no catalogue for this language`, "en (English), ar (العربية), de (Deutsch)", "pt-BR (Português do Brasil)", "(line 4)"}},
		{"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://example.org/feed\"]\nlanguage = \"fr_FR\"\n",
			[]string{`users[0] "ada": language: "fr_FR" is not a BCP 47 language tag: did you mean "fr-FR"?`, "(line 5)"}},
		{"language = \"french\"\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://example.org/feed\"]\n",
			[]string{`language: "french" is not a BCP 47 language tag: did you mean "fr"?`, "(line 1)"}},
		{"language = 3\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://example.org/feed\"]\n",
			[]string{"language", "(line 1)"}},
	} {
		_, err := Parse([]byte(tt.doc), "c.toml")
		if err == nil || !containsAll(err.Error(), tt.want) {
			t.Errorf("%s\nerr = %v, want %s", tt.doc, err, strings.Join(tt.want, " … "))
		}
	}
}

// TestExampleListsTheLanguages keeps config.example.toml's list of the
// languages on offer true.
func TestExampleListsTheLanguages(t *testing.T) {
	data, err := os.ReadFile("../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(strings.ReplaceAll(string(data), "#", " ")), " ")
	for _, l := range locale.Offered() {
		if !strings.Contains(text, " "+l.Tag+" "+l.EnglishName) {
			t.Errorf("config.example.toml does not list %s %s", l.Tag, l.EnglishName)
		}
	}
}

// TestReadmeListsTheLanguages keeps the README's list true.
func TestReadmeListsTheLanguages(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locale.Offered() {
		if !strings.Contains(string(data), "`"+l.Tag+"`") {
			t.Errorf("README.md does not list %s (`%s`)", l.EnglishName, l.Tag)
		}
	}
}
