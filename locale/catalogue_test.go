package locale

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// catalogues are every language's catalogue as read, English first.
func (c *catalogues) catalogues() []*catalogue {
	var out []*catalogue
	for _, l := range c.all() {
		out = append(out, l.cat)
	}
	return out
}

// wantLanguages are the languages a reader may choose, each with a
// complete catalogue.
var wantLanguages = []string{"en", "de", "fr", "es", "pt-BR", "it", "nl", "pl", "ru", "uk", "tr", "ja", "zh-Hans", "ko", "ar", "he"}

// TestCatalogues holds every catalogue to the English one: no message
// missing or left in English (unless the catalogue says so on purpose),
// no placeholder added or lost, every plural form the language's CLDR
// rules use, and date patterns that parse.
func TestCatalogues(t *testing.T) {
	en := offered.locale(0).cat
	for _, c := range offered.catalogues() {
		forms := pluralFormsOf(c.tag)
		for _, f := range check(c, en, forms) {
			t.Error(f)
		}
	}
	var got []string
	for _, l := range Offered() {
		got = append(got, l.Tag)
	}
	for _, want := range wantLanguages {
		if !slices.Contains(got, want) {
			t.Errorf("no catalogue for %s (on offer: %v)", want, got)
		}
	}
}

// TestEnglishPluralsByCount keeps the rule the other catalogues rely
// on: a message that takes {{.Count}} has plural forms, and one with
// plural forms takes {{.Count}}.
func TestEnglishPluralsByCount(t *testing.T) {
	for id, forms := range offered.locale(0).cat.messages {
		names, err := placeholders(forms)
		if err != nil {
			t.Errorf("%s: %v", id, err)
		}
		if counts, plural := slices.Contains(names, "Count"), len(forms) > 1; counts != plural {
			t.Errorf("%s: takes {{.Count}}: %v, has plural forms: %v", id, counts, plural)
		}
	}
}

// brokenFrench is a catalogue with one mistake of each kind a
// translator can make.
const brokenFrench = `
[language]
name = "Français"
english = "French"
same = ["text.sentence", "gone.id"]

[text]
sentence = "{{.Text}}."
unknown = "{{.Nom}} : {{.Valeur}}"
lost = "Rien"
broken = "{{.Count"
same = "Digest"

[count.feeds]
other = "{{.Count}} flux"

[date]
full = "EEEE d MMMM y X"
`

const smallEnglish = `
[language]
name = "English"
english = "English"

[text]
sentence = "{{.Text}}."
unknown = "{{.Label}}: {{.Value}}"
lost = "Nothing in {{.Feed}}"
broken = "{{.Count}} new"
same = "Digest"
missing = "Missing"

[count.feeds]
one = "{{.Count}} feed"
other = "{{.Count}} feeds"

[date]
full = "EEEE d MMMM y"
weekday = "EEEE d MMMM"
short = "EEE d MMM y"
time = "d MMM y, HH:mm"
brief = "d MMM HH:mm"
day = "d MMM y"
week_same_month = "d-d MMMM y"
week_same_year = "d MMMM - d MMMM y"
week_other_year = "d MMMM y - d MMMM y"
week_same_month_short = "d-d MMMM"
week_other_month_short = "d MMMM - d MMMM"
`

// TestCatalogueTestFindsMistakes shows that the catalogue test catches
// each mistake (a placeholder renamed, one lost, one that does not
// parse, a text left in English, a message or plural form missing, a
// date pattern with a letter it does not know), and that a reader is
// shown the English message instead of a broken one: never a key, an
// unfilled placeholder or template syntax.
func TestCatalogueTestFindsMistakes(t *testing.T) {
	fsys := fstest.MapFS{
		"messages/en.toml": {Data: []byte(smallEnglish)},
		"messages/fr.toml": {Data: []byte(brokenFrench)},
	}
	cats, err := load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var fr *catalogue
	for _, c := range cats.catalogues() {
		if c.tag.String() == "fr" {
			fr = c
		}
	}
	var found []string
	for _, f := range check(fr, cats.locale(0).cat, pluralFormsOf(fr.tag)) {
		found = append(found, f.Error())
	}
	all := strings.Join(found, "\n")
	for _, want := range []string{
		"text.unknown: has the placeholder {{.Nom}}, which the English lacks",
		"text.unknown: lacks the placeholder {{.Label}} of the English",
		"text.lost: lacks the placeholder {{.Feed}} of the English",
		"text.broken: form other does not parse",
		"text.same: reads as the English",
		"text.missing: missing",
		`count.feeds: lacks the plural form "one"`,
		"date.full: pattern",
		"gone.id: listed in [language] same",
		"date.weekday: missing",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the catalogue test does not find %q; it found:\n%s", want, all)
		}
	}
	if strings.Contains(all, "text.sentence") {
		t.Errorf("a message listed as the same on purpose is reported:\n%s", all)
	}
	l, err := cats.match("fr")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"text.unknown": "Label: Value",
		"text.lost":    "Nothing in Feed",
		"text.broken":  "3 new",
		"text.missing": "Missing",
	} {
		got := l.T(id, "Label", "Label", "Value", "Value", "Feed", "Feed", "Count", 3)
		if got != want || strings.Contains(got, "{{") || strings.Contains(got, "no value") {
			t.Errorf("%s reads %q, want the English %q", id, got, want)
		}
	}
	if got := l.Date(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), FullDate); got != "vendredi 20 novembre 2026" {
		t.Errorf("a broken date pattern gives %q, want the English pattern with French names", got)
	}
}

// TestCatalogueFilesNamedByTag: a catalogue is found by its file's name,
// a canonical BCP 47 tag.
func TestCatalogueFilesNamedByTag(t *testing.T) {
	fsys := fstest.MapFS{
		"messages/en.toml":    {Data: []byte(smallEnglish)},
		"messages/pt_BR.toml": {Data: []byte(smallEnglish)},
	}
	if _, err := load(fsys); err == nil || !strings.Contains(err.Error(), "pt_BR.toml") {
		t.Errorf("a catalogue named pt_BR.toml: %v", err)
	}
	entries, err := os.ReadDir("messages")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(offered.catalogues()) {
		t.Errorf("%d files in messages/, %d catalogues read", len(entries), len(offered.catalogues()))
	}
}
