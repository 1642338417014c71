// Package locale words what a digest says in its own voice in its
// reader's language: messages with CLDR plural rules (go-i18n), month
// and weekday names (CLDR, by golocales) placed by each language's own
// date patterns, numbers in the language's digits and separators, and
// the direction the language is written in.
//
// The words live in messages/<tag>.toml, one catalogue per language,
// which a translator edits without reading Go; messages/en.toml is the
// source the others translate, and the catalogue test holds every
// catalogue to it. Feeds' own text never passes through here.
package locale

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/nicksnyder/go-i18n/v2/i18n/template"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// Locale is one language on offer: its messages, date patterns, names,
// digits and direction. The zero of a digest's Locale is English
// (English()).
type Locale struct {
	tag           language.Tag
	name, english string
	localizer     *i18n.Localizer
	// fallback is English, whose message a reader sees where the
	// language's is missing or broken (the catalogue test finds both).
	fallback *Locale
	names    names
	patterns map[DateForm]pattern
	printer  *message.Printer
	cat      *catalogue // as read
	// zero is the language's digit zero ('0', or '٠' in Arabic): its
	// digits follow it in Unicode.
	zero rune
}

// catalogues are the languages on offer, English first. Each is read
// when a digest first needs it: a run reads English and its readers'
// languages, not all sixteen (reading them all took most of a run's
// start: 80 ms and 22 MB).
type catalogues struct {
	fsys    fs.FS
	files   []string       // messages/<tag>.toml, English first
	tags    []language.Tag // the files' tags
	matcher language.Matcher
	locales []lazyLocale // by the files' order
}

// lazyLocale is a language on offer, read once, when first needed.
type lazyLocale struct {
	once   sync.Once
	locale *Locale
}

// offered is the program's own catalogues.
var offered = mustLoad(embedded)

func mustLoad(fsys fs.FS) *catalogues {
	c, err := load(fsys)
	if err != nil {
		panic(err) // the catalogues are part of the binary: every test run finds this
	}
	return c
}

// load finds the catalogues of fsys by their files' names, English
// first; each is read when first needed (locale).
func load(fsys fs.FS) (*catalogues, error) {
	files, err := fs.Glob(fsys, "messages/*.toml")
	if err != nil {
		return nil, err
	}
	c := &catalogues{fsys: fsys}
	for _, file := range files {
		tag, err := tagOf(file)
		if err != nil {
			return nil, err
		}
		if tag == language.English {
			c.files, c.tags = append([]string{file}, c.files...), append([]language.Tag{tag}, c.tags...)
			continue
		}
		c.files, c.tags = append(c.files, file), append(c.tags, tag)
	}
	if len(c.tags) == 0 || c.tags[0] != language.English {
		return nil, fmt.Errorf("locale: no English catalogue (messages/en.toml)")
	}
	c.matcher = language.NewMatcher(c.tags)
	c.locales = make([]lazyLocale, len(c.files))
	return c, nil
}

// locale is the language on offer numbered i (0 is English), read on
// first use. A catalogue that cannot be read is a panic: the catalogues
// are part of the binary, and the catalogue test reads every one.
func (c *catalogues) locale(i int) *Locale {
	slot := &c.locales[i]
	slot.once.Do(func() {
		var en *Locale
		if i > 0 {
			en = c.locale(0)
		}
		l, err := readLocale(c.fsys, c.files[i], en)
		if err != nil {
			panic(err)
		}
		slot.locale = l
	})
	return slot.locale
}

// all are every language on offer, each read.
func (c *catalogues) all() []*Locale {
	out := make([]*Locale, len(c.locales))
	for i := range c.locales {
		out[i] = c.locale(i)
	}
	return out
}

// readLocale reads the catalogue file into a language, en its English
// (nil when it is English itself). A message whose placeholders or form
// do not match the English one's is left out, so the reader sees the
// English message instead of a broken one; the catalogue test reports
// it.
func readLocale(fsys fs.FS, file string, en *Locale) (*Locale, error) {
	c, err := readCatalogue(fsys, file)
	if err != nil {
		return nil, err
	}
	enCat := c
	if en != nil {
		enCat = en.cat
	}
	bundle := i18n.NewBundle(c.tag)
	if err := bundle.AddMessages(c.tag, usable(c, enCat)...); err != nil {
		return nil, fmt.Errorf("locale: %s: %w", c.file, err)
	}
	l := &Locale{
		tag: c.tag, name: c.name, english: c.english, cat: c,
		localizer: i18n.NewLocalizer(bundle, c.tag.String()),
		names:     namesOf(c.tag),
		patterns:  map[DateForm]pattern{},
		printer:   message.NewPrinter(c.tag),
		fallback:  en,
	}
	if en == nil {
		l.fallback = l
	}
	l.zero = []rune(l.printer.Sprint(number.Decimal(0)))[0]
	for id, forms := range c.messages {
		if form, ok := strings.CutPrefix(id, datePrefix); ok {
			if p, err := parsePattern(forms["other"]); err == nil {
				l.patterns[DateForm(form)] = p
			}
		}
	}
	if en == nil {
		for _, form := range []DateForm{FullDate, Weekday, ShortDate, DateTime, BriefTime, Day, weekSameMonth, weekSameYear, weekOtherYear, weekSameMonthShort, weekOtherMonthShort} {
			if _, ok := l.patterns[form]; !ok {
				return nil, fmt.Errorf("locale: %s: the date pattern %s is missing or broken", c.file, form)
			}
		}
	}
	return l, nil
}

// usable are c's messages whose placeholders are the English message's:
// a broken one is left out, and the reader gets the English instead.
func usable(c, en *catalogue) []*i18n.Message {
	var out []*i18n.Message
	for _, m := range c.i18nMessages() {
		want, ok := en.messages[m.ID]
		if !ok || len(checkPlaceholders(c, m.ID, c.messages[m.ID], want)) > 0 {
			continue
		}
		out = append(out, m)
	}
	return out
}

// Texts are every form of every message of the language's catalogue
// (its date patterns aside): what its pages can say in their own words,
// for tests that look for a language's words on a page.
func (l *Locale) Texts() []string {
	var out []string
	for id, forms := range l.loc().cat.messages {
		if strings.HasPrefix(id, datePrefix) {
			continue
		}
		for _, text := range forms {
			out = append(out, text)
		}
	}
	slices.Sort(out)
	return out
}

// IDs are the ids of the language's messages, date patterns aside,
// sorted.
func (l *Locale) IDs() []string {
	var out []string
	for id := range l.loc().cat.messages {
		if !strings.HasPrefix(id, datePrefix) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// English is the language of a digest whose reader chose none.
func English() *Locale { return offered.locale(0) }

// Tag is the language's BCP 47 tag, as <html lang> names it: the
// catalogue's ("fr" for a reader who asked for fr-CA).
func (l *Locale) Tag() string { return l.loc().tag.String() }

// Name is the language's name in itself ("Français").
func (l *Locale) Name() string { return l.loc().name }

// EnglishName is the language's name in English ("French").
func (l *Locale) EnglishName() string { return l.loc().english }

// Dir is the direction the language is written in: "rtl" for a script
// written right to left (Arabic, Hebrew), else "ltr".
func (l *Locale) Dir() string {
	script, _ := l.loc().tag.Script()
	switch script.String() {
	case "Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Rohg", "Samr", "Mand":
		return "rtl"
	}
	return "ltr"
}

// loc is l, or English for a nil Locale.
func (l *Locale) loc() *Locale {
	if l == nil {
		return English()
	}
	return l
}

// Number writes n as the language writes numbers: its digits and its
// grouping ("1,234", "1 234", "١٬٢٣٤").
func (l *Locale) Number(n int) string {
	return l.loc().printer.Sprint(number.Decimal(n))
}

// Decimal writes x with one digit after the separator ("2.1", "2,1").
func (l *Locale) Decimal(x float64) string {
	return l.loc().printer.Sprint(number.Decimal(x, number.Scale(1)))
}

// digits writes the ASCII digits of s in the language's own.
func (l *Locale) digits(s string) string {
	if l.zero == '0' {
		return s
	}
	return strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return l.zero + (r - '0')
		}
		return r
	}, s)
}

// T words the message id with its placeholders given as name, value
// pairs: T("digest.title", "Day", day). A value "Count" chooses the
// plural form, by the language's CLDR rules; a number given as an int is
// written as the language writes numbers. A message the language lacks,
// or whose text is broken, is the English one.
func (l *Locale) T(id string, args ...any) string {
	l = l.loc()
	data, count := l.data(args)
	s, err := l.localize(id, data, count)
	if err != nil && l != l.fallback {
		s, err = l.fallback.localize(id, data, count)
	}
	if err != nil {
		panic(fmt.Sprintf("locale: message %s: %v", id, err)) // a message of the code's own missing from en.toml
	}
	return s
}

var strictParser = &template.TextParser{Option: "missingkey=error"}

func (l *Locale) localize(id string, data map[string]any, count any) (string, error) {
	return l.localizer.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count, TemplateParser: strictParser})
}

// data are a message's placeholders from args (see T), and the count
// that chooses its plural form (nil for none).
func (l *Locale) data(args []any) (map[string]any, any) {
	data := map[string]any{}
	var count any
	for i := 0; i+1 < len(args); i += 2 {
		name := fmt.Sprint(args[i])
		v := args[i+1]
		if n, ok := v.(int); ok {
			if name == "Count" {
				count = n
			}
			v = l.Number(n)
		}
		data[name] = v
	}
	return data, count
}

// Part is a piece of a message as Parts splits it: text, or the place
// of a slot (Slot its name), which the page fills with markup of its
// own (a link, a time element).
type Part struct {
	Text string
	Slot string
}

// Parts words the message id as T does, with the placeholders named in
// slots left as places for the page to fill: the page keeps its markup
// (a link, <time>) out of the catalogue, and the translator may still
// move the slot within the sentence.
func (l *Locale) Parts(id string, slots []string, args ...any) []Part {
	for i, s := range slots {
		args = append(args, s, Mark(i))
	}
	return Split(l.T(id, args...), slots)
}

// Mark is the place of the i-th slot in a message's value (see Split):
// a message worded with Mark(0) as a value, and that message given to
// another, keeps the place.
func Mark(i int) string { return string(rune(slotBase + i)) }

// Split cuts a text worded with Marks into parts: text, and the places
// of slots[i] where Mark(i) stands.
func Split(s string, slots []string) []Part {
	var out []Part
	for s != "" {
		i := strings.IndexFunc(s, isMark)
		if i < 0 {
			out = append(out, Part{Text: s})
			break
		}
		if i > 0 {
			out = append(out, Part{Text: s[:i]})
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if n := int(r - slotBase); n < len(slots) {
			out = append(out, Part{Slot: slots[n]})
		}
		s = s[i+size:]
	}
	return out
}

// Join is the text of parts with each slot's value from fill.
func Join(parts []Part, fill func(slot string) string) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Slot != "" {
			b.WriteString(fill(p.Slot))
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// A slot's mark is a character of Unicode's private use area, which no
// catalogue writes.
const slotBase = '\uE000'

func isMark(r rune) bool { return slotBase <= r && r < slotBase+64 }
