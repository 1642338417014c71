package render

import (
	"bytes"
	"html/template"
	"io/fs"
	"strings"
	"sync"
	texttemplate "text/template"
	"unicode"

	"golang.org/x/text/width"

	"feeddigest/locale"
	"feeddigest/templates"
)

// The templates are parsed once, when a run first writes a page or an
// email (a run with nothing to write parses none): they are part of the
// binary, so a parse error is a bug that every test run reveals.
// Each language gets its own copy (see pagesIn), whose functions word
// the catalogue's messages in that language; the parsed originals are
// never run, so that they can be copied.
var (
	basePages = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("pages").Funcs(template.FuncMap{
			"stylesheet":       func() template.CSS { return stylesheet },
			"statusStylesheet": func() template.CSS { return statusStylesheet },
			"safeLink":         safeLink,
			"urlText":          urlText,
			"siteHead":         siteHead,
		}).Funcs(template.FuncMap(wordsIn(locale.English()))).ParseFS(templates.FS, "*.html"))
	})

	baseTexts = sync.OnceValue(func() *texttemplate.Template {
		return texttemplate.Must(texttemplate.New("text").Funcs(texttemplate.FuncMap{
			"wrap":      wrap,
			"bullet":    bullet,
			"underline": underline,
		}).Funcs(wordsIn(locale.English())).ParseFS(templates.FS, "*.txt"))
	})

	// stylesheet is our own file, so it is trusted CSS.
	stylesheet = template.CSS(strings.TrimSpace(string(mustRead("style.css"))))
	// statusStylesheet lays out the wide table of status.html: only that
	// page carries it.
	statusStylesheet = template.CSS(strings.TrimSpace(string(mustRead("status.css"))))
)

// pageTemplates are the pages in English: the status page's, which is
// the operator's.
func pageTemplates() *template.Template { return pagesIn(locale.English()) }

// wordsIn are the templates' functions that speak l's language (say and
// sayBullet wrap plain text in its direction): t words
// a message (locale.Locale.T), parts and sentenceParts word one with
// slots the template fills with markup ("Feed,Since": the slots' names),
// userHead is the head of a page in SITE/<user>/ (beside it, the user's
// Atom feed; the icon is at the root of the site), lang and dir name the
// language and its direction, start is the side
// a line starts on ("left", or "right" right to left), for the email's
// inline styles.
func wordsIn(l *locale.Locale) map[string]any {
	return map[string]any{
		"t": l.T,
		"parts": func(id, slots string, args ...any) []locale.Part {
			return l.Parts(id, strings.Split(slots, ","), args...)
		},
		"sentenceParts": func(id, slots string, args ...any) []locale.Part {
			names := strings.Split(slots, ",")
			for i, s := range names {
				args = append(args, s, locale.Mark(i))
			}
			return locale.Split(l.T("text.sentence", "Text", l.T(id, args...)), names)
		},
		"linkParts": func(h HostCount) []locale.Part { return linkParts(l, h) },
		"say":       func(text, indent string) string { return wrapIn(text, indent, l.Dir()) },
		"sayBullet": func(text string) string { return bulletIn(text, l.Dir()) },
		"linkText":  func(h HostCount) string { return linkText(l, h) },
		"userHead": func(title, user string) headView {
			return headView{Title: title, Icon: "../" + faviconName, Feed: &feedLink{Title: l.T("digest.user_digests", "User", user), Href: "feed.xml"}}
		},
		"lang": l.Tag,
		"dir":  l.Dir,
		"start": func() string {
			if l.Dir() == "rtl" {
				return "right"
			}
			return "left"
		},
	}
}

// languageTemplates are the templates of each language, made as a
// language is first used.
var languageTemplates sync.Map // tag -> *languageSet

type languageSet struct {
	pages *template.Template
	texts *texttemplate.Template
}

// templatesIn are the templates in l's language.
func templatesIn(l *locale.Locale) *languageSet {
	if set, ok := languageTemplates.Load(l.Tag()); ok {
		return set.(*languageSet)
	}
	pages := template.Must(basePages().Clone()).Funcs(template.FuncMap(wordsIn(l)))
	texts := texttemplate.Must(baseTexts().Clone()).Funcs(wordsIn(l))
	set, _ := languageTemplates.LoadOrStore(l.Tag(), &languageSet{pages: pages, texts: texts})
	return set.(*languageSet)
}

// pagesIn are the HTML templates in l's language.
func pagesIn(l *locale.Locale) *template.Template { return templatesIn(l).pages }

// headView is the data of a page's head.
type headView struct {
	Title string
	Icon  string // the site's icon, relative to the page
	Feed  *feedLink
}

// feedLink names a user's Atom feed in the head of the user's pages.
type feedLink struct{ Title, Href string }

// siteHead is the head of a page at the root of the site.
func siteHead(title string) headView {
	return headView{Title: title, Icon: faviconName}
}

// faviconName is the site's icon at the root of the site (package output
// writes it).
const faviconName = "favicon.svg"

func mustRead(name string) []byte {
	b, err := fs.ReadFile(templates.FS, name)
	if err != nil {
		panic(err)
	}
	return b
}

// execPage runs one HTML template in l's language into a byte slice.
func execPage(l *locale.Locale, name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := pagesIn(l).ExecuteTemplate(&buf, name, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// execText runs one text template in l's language into a string.
func execText(l *locale.Locale, name string, data any) (string, error) {
	var buf strings.Builder
	if err := templatesIn(l).texts.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// textWidth is where plain text wraps: comfortable in any mail client.
const textWidth = 72

// wrap fills text into lines of at most textWidth columns (longer only
// for a single long word such as a URL), each starting with indent, and
// each keeping the direction of the whole text (see keepDirection).
// Chinese and Japanese, written without spaces, break between their
// characters (see wrapUnits).
func wrap(text, indent string) string { return wrapIn(text, indent, "") }

// wrapIn is wrap in the direction dir, "rtl" or "ltr": our own words,
// which read in the reader's language's direction even when a feed's
// name begins them; "" takes the direction of text (a feed's own).
func wrapIn(text, indent, dir string) string {
	var b strings.Builder
	line := 0
	for _, u := range wrapUnits(strings.FieldsFunc(text, breaksLine)) {
		n := columns(u.text)
		switch {
		case line == 0:
			b.WriteString(indent)
			line = columns(indent)
		case line+n+boolInt(!u.glued) > textWidth:
			b.WriteString("\n" + indent)
			line = columns(indent)
		case !u.glued:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(u.text)
		line += n
	}
	return keepDirection(b.String(), text, indent, dir)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wrapUnit is a piece of text a line may end after; glued says no space
// comes before it (a character of a word of Chinese or Japanese).
type wrapUnit struct {
	text  string
	glued bool
}

// wrapUnits are the places a line may break in words: between words,
// and between the wide characters of Chinese and Japanese, but never
// before their closing punctuation or after their opening brackets (the
// Japanese rule of kinsoku).
func wrapUnits(words []string) []wrapUnit {
	var out []wrapUnit
	for _, w := range words {
		if !strings.ContainsFunc(w, breaksWithin) {
			out = append(out, wrapUnit{text: w})
			continue
		}
		var piece []rune
		first := true
		flush := func() {
			if len(piece) > 0 {
				out = append(out, wrapUnit{text: string(piece), glued: !first})
				first, piece = false, nil
			}
		}
		for _, r := range w {
			if n := len(piece); n > 0 {
				last := piece[n-1]
				together := strings.ContainsRune(noLineStart, r) || strings.ContainsRune(noLineEnd, last) ||
					(!breaksWithin(r) && !breaksWithin(last))
				if !together {
					flush()
				}
			}
			piece = append(piece, r)
		}
		flush()
	}
	return out
}

// The punctuation a line of Chinese or Japanese never starts with, and
// the brackets it never ends with.
const (
	noLineStart = "、。，．,.）」』】〉》〕］｝・：；！？!?ー々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…‥"
	noLineEnd   = "（「『【〈《〔［｛"
)

// breaksWithin says whether a line may break before or after r inside
// a word: the characters of Chinese and Japanese and their punctuation,
// written without spaces (Korean puts spaces between its words, and
// breaks there).
func breaksWithin(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || isWide(r) && unicode.IsPunct(r)
}

// isWide says whether r takes two columns of a fixed-width font: the
// characters of Chinese, Japanese and Korean.
func isWide(r rune) bool {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return true
	}
	return false
}

// columns is how many columns of a fixed-width font s takes.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n += 1 + boolInt(isWide(r))
	}
	return n
}

// breaksLine says whether a line may break at r: at white space, but for
// the no-break spaces a language puts where it must not (French puts
// them before its colons and inside its quotation marks).
func breaksLine(r rune) bool {
	switch r {
	case '\u00a0', '\u202f', '\u2007', '\u2060':
		return false
	}
	return unicode.IsSpace(r)
}

// Marks of direction: invisible letters, one of each direction, which
// StripControl keeps.
const (
	leftToRightMark = "\u200e"
	rightToLeftMark = "\u200f"
)

// keepDirection marks the lines that wrap made of text, so that each
// reads in the direction of text as a whole. A plain-text client sets
// each line's direction from its first letter that has one: a Hebrew
// paragraph's line that wraps to start with an English phrase, or with
// the bracket around it, would be laid out left to right, its brackets
// and words misplaced. So every line of right-to-left text starts with a
// right-to-left mark (after the indent, which then stands to the right),
// and a line of left-to-right text that starts with right-to-left
// letters gets a left-to-right mark. An isolate (RLI…PDI) would not do:
// a line's direction is taken from outside its isolates.
// dir, when not "", is the direction of text as a whole.
func keepDirection(lines, text, indent, dir string) string {
	rtl := rightToLeft(text)
	if dir != "" {
		rtl = dir == "rtl"
	}
	if !rtl && !hasRightToLeft(text) {
		return lines
	}
	var b strings.Builder
	b.Grow(len(lines) + 8*strings.Count(lines, "\n"))
	for i, line := range strings.Split(lines, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		words := strings.TrimPrefix(line, indent)
		b.WriteString(line[:len(line)-len(words)])
		if lineRTL, found := strongDirection(words); rtl {
			b.WriteString(rightToLeftMark)
		} else if found && lineRTL {
			b.WriteString(leftToRightMark)
		}
		b.WriteString(words)
	}
	return b.String()
}

// bullet is a wrapped list item: "* " then lines indented under the text.
func bullet(text string) string { return bulletIn(text, "") }

// bulletIn is bullet in the direction dir (see wrapIn).
func bulletIn(text, dir string) string {
	return "* " + strings.TrimPrefix(wrapIn(text, "  ", dir), "  ")
}

// underline is a Markdown-style heading rule as long as the heading, in
// columns (a Japanese character takes two).
func underline(text, char string) string {
	return strings.Repeat(char, columns(text))
}
