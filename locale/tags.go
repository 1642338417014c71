package locale

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/language"

	"feeddigest/internal/english"
)

// The two ways a language a config names can be wrong: a tag of a
// language the program has no catalogue for, and a value that is not a
// BCP 47 tag at all.
var (
	ErrUnknown   = errors.New("no catalogue for this language")
	ErrMalformed = errors.New("not a BCP 47 language tag")
)

// TagError says why a tag names no language on offer: Err is ErrUnknown
// or ErrMalformed. Suggest, when not "", is the tag the value was most
// likely meant to be ("fr-FR" for "fr_FR", "fr" for "french").
type TagError struct {
	Tag     string
	Err     error
	Suggest string
	// Nearest is the language on offer nearest an unknown tag, when one
	// is near without being the same ("zh-Hans" for "zh-TW"); "" for none.
	Nearest string
}

func (e *TagError) Error() string {
	switch {
	case errors.Is(e.Err, ErrMalformed) && e.Suggest != "":
		return fmt.Sprintf("%q is %v: did you mean %q?", e.Tag, e.Err, e.Suggest)
	case errors.Is(e.Err, ErrMalformed):
		return fmt.Sprintf("%q is %v (e.g. \"fr\", \"pt-BR\"); the languages on offer: %s", e.Tag, e.Err, OfferedList())
	case e.Nearest != "":
		return fmt.Sprintf("%q: %v (the nearest is %s, which it does not read); the languages on offer: %s", e.Tag, e.Err, e.Nearest, OfferedList())
	}
	return fmt.Sprintf("%q: %v; the languages on offer: %s", e.Tag, e.Err, OfferedList())
}

func (e *TagError) Unwrap() error { return e.Err }

// Match is the language on offer for a reader who asked for tag (BCP
// 47): the same language, in another region or script if need be
// ("fr-CA" reads French, "pt-PT" Portuguese as Brazil writes it, "zh"
// Chinese in simplified characters). "" is English. A tag of a language
// the program lacks, or one that is not a tag, is a *TagError.
func Match(tag string) (*Locale, error) { return offered.match(tag) }

func (c *catalogues) match(raw string) (*Locale, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return c.locale(0), nil
	}
	// x/text accepts "fr_FR"; BCP 47, and so a config, does not.
	if strings.Contains(s, "_") {
		return nil, &TagError{Tag: raw, Err: ErrMalformed, Suggest: c.suggest(s)}
	}
	want, err := language.Parse(s)
	var unknown language.ValueError
	switch {
	case errors.As(err, &unknown):
		return nil, &TagError{Tag: raw, Err: ErrUnknown} // well-formed: "xx"
	case err != nil:
		return nil, &TagError{Tag: raw, Err: ErrMalformed, Suggest: c.suggest(s)}
	}
	_, i, conf := c.matcher.Match(want)
	got := c.tags[i]
	wantBase, _ := want.Base()
	gotBase, _ := got.Base()
	if conf < language.High || wantBase != gotBase {
		e := &TagError{Tag: raw, Err: ErrUnknown}
		if conf >= language.Low && wantBase == gotBase {
			e.Nearest = got.String()
		}
		return nil, e
	}
	return c.locale(i), nil
}

// suggest is the tag a malformed value most likely means: "fr-FR" for
// "fr_FR" or "fr_FR.UTF-8", "fr" for "french" or "Français"; "" when
// nothing is near.
func (c *catalogues) suggest(s string) string {
	if t := FromEnv(s); t != "" {
		if _, err := c.match(t); err == nil {
			return t
		}
	}
	var names []string
	byName := map[string]string{}
	for _, l := range c.all() {
		for _, n := range []string{l.english, l.name} {
			k := strings.ToLower(n)
			names = append(names, k)
			byName[k] = l.tag.String()
		}
	}
	return byName[english.Closest(strings.ToLower(s), names)]
}

// FromEnv is the BCP 47 tag of a POSIX locale name as LC_ALL or LANG
// give it ("fr_FR.UTF-8" is "fr-FR", "sr_RS@latin" is "sr-RS"); "" for
// one that names no language ("C", "POSIX", "").
func FromEnv(value string) string {
	s, _, _ := strings.Cut(value, ".")
	s, _, _ = strings.Cut(s, "@")
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "-")
	if s == "" || s == "C" || s == "POSIX" {
		return ""
	}
	t, err := language.Parse(s)
	if err != nil {
		return ""
	}
	return t.String()
}

// Language is a language on offer, as a config's documentation and
// errors list it.
type Language struct {
	Tag, Name, EnglishName string
	Dir                    string
}

// Offered are the languages on offer, English first, then in the order
// of their tags.
func Offered() []Language {
	var out []Language
	for _, l := range offered.all() {
		out = append(out, Language{Tag: l.Tag(), Name: l.name, EnglishName: l.english, Dir: l.Dir()})
	}
	return out
}

// OfferedList is the languages on offer in a line: "en (English), de
// (Deutsch), ...".
func OfferedList() string {
	var parts []string
	for _, l := range Offered() {
		parts = append(parts, l.Tag+" ("+l.Name+")")
	}
	return strings.Join(parts, ", ")
}
