package locale

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustMatch(t *testing.T, tag string) *Locale {
	t.Helper()
	l, err := Match(tag)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestMatch: a tag reads the language on offer that is the same
// language, in another region or script if need be.
func TestMatch(t *testing.T) {
	for tag, want := range map[string]string{
		"": "en", "en": "en", "en-US": "en", "en-GB": "en",
		"fr": "fr", "fr-CA": "fr", "FR-be": "fr",
		"pt": "pt-BR", "pt-PT": "pt-BR", "pt-BR": "pt-BR",
		"zh": "zh-Hans", "zh-CN": "zh-Hans", "zh-Hans-SG": "zh-Hans",
		"de-AT": "de", "es-MX": "es", "iw": "he", "ar-EG": "ar", "ja-JP": "ja",
	} {
		l, err := Match(tag)
		if err != nil {
			t.Errorf("Match(%q): %v", tag, err)
			continue
		}
		if l.Tag() != want {
			t.Errorf("Match(%q) = %s, want %s", tag, l.Tag(), want)
		}
	}
}

// TestMatchErrors: a tag of a language without a catalogue is unknown,
// naming the languages on offer; a value that is no tag is malformed,
// and the error suggests the tag it most likely means.
func TestMatchErrors(t *testing.T) {
	for _, tt := range []struct {
		tag     string
		err     error
		suggest string
	}{
		{"fr_FR", ErrMalformed, "fr-FR"},
		{"pt_BR.UTF-8", ErrMalformed, "pt-BR"},
		{"french", ErrMalformed, "fr"},
		{"Deutsch", ErrMalformed, "de"},
		{"japanese", ErrMalformed, "ja"},
		{"x y z", ErrMalformed, ""},
		{"xx", ErrUnknown, ""},
		{"no", ErrUnknown, ""},
		{"sv-SE", ErrUnknown, ""},
		{"zh-TW", ErrUnknown, ""},
		{"be", ErrUnknown, ""}, // not Russian: a reader of Belarusian chose it
	} {
		_, err := Match(tt.tag)
		var te *TagError
		if !errors.Is(err, tt.err) || !errors.As(err, &te) {
			t.Errorf("Match(%q) = %v, want %v", tt.tag, err, tt.err)
			continue
		}
		if te.Suggest != tt.suggest {
			t.Errorf("Match(%q) suggests %q, want %q", tt.tag, te.Suggest, tt.suggest)
		}
		if tt.suggest != "" && !strings.Contains(err.Error(), `did you mean "`+tt.suggest+`"`) {
			t.Errorf("Match(%q): %v", tt.tag, err)
		}
		if errors.Is(err, ErrUnknown) && !strings.Contains(err.Error(), "fr (Français)") {
			t.Errorf("Match(%q) does not list the languages on offer: %v", tt.tag, err)
		}
	}
	if _, err := Match("zh-TW"); !strings.Contains(err.Error(), "the nearest is zh-Hans") {
		t.Errorf("zh-TW: %v", err)
	}
}

func TestFromEnv(t *testing.T) {
	for env, want := range map[string]string{
		"fr_FR.UTF-8": "fr-FR", "de_DE@euro": "de-DE", "ja_JP.eucJP": "ja-JP", "C": "", "POSIX": "", "": "", "C.UTF-8": "", "en": "en",
	} {
		if got := FromEnv(env); got != want {
			t.Errorf("FromEnv(%q) = %q, want %q", env, got, want)
		}
	}
}

// TestPlurals follows each language's CLDR rules: English has no "0
// feed", Russian three forms for whole numbers, Arabic six, Japanese
// none.
func TestPlurals(t *testing.T) {
	for _, tt := range []struct {
		tag  string
		n    int
		want string
	}{
		{"en", 0, "0 feeds"}, {"en", 1, "1 feed"}, {"en", 2, "2 feeds"}, {"en", 1234, "1,234 feeds"},
		{"fr", 0, "0 flux"}, {"fr", 1, "1 flux"},
		{"ru", 1, "1 лента"}, {"ru", 2, "2 ленты"}, {"ru", 5, "5 лент"}, {"ru", 21, "21 лента"}, {"ru", 22, "22 ленты"}, {"ru", 11, "11 лент"},
		{"pl", 1, "1 kanał"}, {"pl", 3, "3 kanały"}, {"pl", 5, "5 kanałów"}, {"pl", 22, "22 kanały"},
		{"ar", 0, "لا خلاصات"}, {"ar", 1, "خلاصة واحدة"}, {"ar", 2, "خلاصتان"}, {"ar", 3, "٣ خلاصات"}, {"ar", 11, "١١ خلاصة"}, {"ar", 100, "١٠٠ خلاصة"},
		{"ja", 1, "1件のフィード"}, {"ja", 5, "5件のフィード"},
	} {
		if got := mustMatch(t, tt.tag).T("count.feeds", "Count", tt.n); got != tt.want {
			t.Errorf("%s: %d feeds: %q, want %q", tt.tag, tt.n, got, tt.want)
		}
	}
}

// TestDates: month and weekday names from CLDR, placed by the
// catalogue's patterns, in the language's digits.
func TestDates(t *testing.T) {
	fri := time.Date(2026, 11, 20, 9, 5, 0, 0, time.UTC)
	for _, tt := range []struct {
		tag  string
		form DateForm
		want string
	}{
		{"en", FullDate, "Friday 20 November 2026"},
		{"en", Weekday, "Friday 20 November"},
		{"en", DateTime, "20 Nov 2026, 09:05"},
		{"en", BriefTime, "20 Nov 09:05"},
		{"en", ShortDate, "Fri 20 Nov 2026"},
		{"fr", Weekday, "vendredi 20 novembre"},
		{"fr", DateTime, "20 nov. 2026 à 09:05"},
		{"de", Weekday, "Freitag, 20. November"},
		{"ja", Weekday, "11月20日（金）"},
		{"ja", FullDate, "2026年11月20日金曜日"},
		{"ar", Weekday, "الجمعة ٢٠ نوفمبر"},
		{"ru", Weekday, "пятница, 20 ноября"},
	} {
		if got := mustMatch(t, tt.tag).Date(fri, tt.form); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.tag, tt.form, got, tt.want)
		}
	}
}

// TestWeekRange names the days a weekly digest covers, with and without
// the year, the first use of a letter in a pattern being the first day.
func TestWeekRange(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tt := range []struct {
		tag         string
		first, last time.Time
		withoutYear bool
		want        string
	}{
		{"en", day(2026, 11, 20), day(2026, 11, 27), false, "20-27 November 2026"},
		{"en", day(2026, 11, 28), day(2026, 12, 4), false, "28 November - 4 December 2026"},
		{"en", day(2026, 12, 28), day(2027, 1, 3), false, "28 December 2026 - 3 January 2027"},
		{"en", day(2026, 12, 28), day(2027, 1, 3), true, "28 December - 3 January"},
		{"en", day(2026, 11, 20), day(2026, 11, 20), true, "Friday 20 November"},
		{"fr", day(2026, 11, 20), day(2026, 11, 27), false, "20–27 novembre 2026"},
		{"ja", day(2026, 11, 20), day(2026, 11, 27), false, "2026年11月20日～27日"},
		{"ja", day(2026, 11, 28), day(2026, 12, 4), true, "11月28日～12月4日"},
		{"ru", day(2026, 11, 28), day(2026, 12, 4), false, "28 ноября – 4 декабря 2026 г."},
	} {
		if got := mustMatch(t, tt.tag).WeekRange(tt.first, tt.last, tt.withoutYear); got != tt.want {
			t.Errorf("%s %s..%s: %q, want %q", tt.tag, tt.first.Format(time.DateOnly), tt.last.Format(time.DateOnly), got, tt.want)
		}
	}
}

// TestNumbers are written as the language writes them.
func TestNumbers(t *testing.T) {
	for tag, want := range map[string]string{"en": "12,345", "fr": "12\u00a0345", "de": "12.345", "ar": "١٢٬٣٤٥", "ja": "12,345"} {
		if got := mustMatch(t, tag).Number(12345); got != want {
			t.Errorf("%s: %q, want %q", tag, got, want)
		}
	}
	if got := mustMatch(t, "ar").Padded(5, 2); got != "٠٥" {
		t.Errorf("ar: 05 is %q", got)
	}
}

func TestDir(t *testing.T) {
	for _, l := range Offered() {
		want := "ltr"
		if l.Tag == "ar" || l.Tag == "he" {
			want = "rtl"
		}
		if l.Dir != want {
			t.Errorf("%s: dir %s, want %s", l.Tag, l.Dir, want)
		}
	}
	var none *Locale
	if none.Dir() != "ltr" || none.Tag() != "en" {
		t.Error("a nil Locale is not English")
	}
}

// TestParts leaves the places of slots for the page's markup, where the
// translator put them.
func TestParts(t *testing.T) {
	parts := English().Parts("digest.mail_in_doubt", []string{"Digest"})
	if len(parts) != 3 || parts[1].Slot != "Digest" || !strings.HasPrefix(parts[0].Text, "The email of ") {
		t.Errorf("parts: %+v", parts)
	}
	text := Join(parts, func(string) string { return "Friday" })
	if text != English().T("digest.mail_in_doubt", "Digest", "Friday") {
		t.Errorf("joined: %q", text)
	}
}

// TestCataloguesReadWhenNeeded: a run reads the catalogues of the
// languages its digests use (and English, the fallback), not all of
// them: reading all sixteen was most of a run's start. Readers in many
// languages at once each get theirs, read once.
func TestCataloguesReadWhenNeeded(t *testing.T) {
	c, err := load(embedded)
	if err != nil {
		t.Fatal(err)
	}
	read := func() []string {
		var out []string
		for i := range c.locales {
			if c.locales[i].locale != nil {
				out = append(out, c.tags[i].String())
			}
		}
		return out
	}
	if got := read(); len(got) != 0 {
		t.Fatalf("read before any use: %v", got)
	}
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := c.match([]string{"fr", "ja"}[i%2])
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = l.T("digest.archive")
		}()
	}
	wg.Wait()
	if r := read(); !slices.Equal(r, []string{"en", "fr", "ja"}) {
		t.Errorf("read after French and Japanese readers: %v, want [en fr ja]", r)
	}
	for i, s := range got {
		if want := []string{"Archives", "アーカイブ"}[i%2]; s != want {
			t.Errorf("reader %d: %q, want %q", i, s, want)
		}
	}
}
