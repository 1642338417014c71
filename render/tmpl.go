package render

import (
	"bytes"
	"html/template"
	"io/fs"
	"strings"
	"sync"
	texttemplate "text/template"
	"unicode/utf8"

	"feeddigest/locale"
	"feeddigest/templates"
)

// The templates are parsed once, when the package loads: they are part of
// the binary, so a parse error is a bug that every test run reveals.
// Each language gets its own copy (see pagesIn), whose functions word
// the catalogue's messages in that language; the parsed originals are
// never run, so that they can be copied.
var (
	basePages = template.Must(template.New("pages").Funcs(template.FuncMap{
		"stylesheet":       func() template.CSS { return stylesheet },
		"statusStylesheet": func() template.CSS { return statusStylesheet },
		"safeLink":         safeLink,
		"urlText":          urlText,
		"siteHead":         siteHead,
	}).Funcs(template.FuncMap(wordsIn(locale.English()))).ParseFS(templates.FS, "*.html"))

	baseTexts = texttemplate.Must(texttemplate.New("text").Funcs(texttemplate.FuncMap{
		"wrap":      wrap,
		"bullet":    bullet,
		"underline": underline,
	}).Funcs(wordsIn(locale.English())).ParseFS(templates.FS, "*.txt"))

	// pageTemplates are the pages in English: the status page's, which
	// is the operator's.
	pageTemplates = pagesIn(locale.English())

	// stylesheet is our own file, so it is trusted CSS.
	stylesheet = template.CSS(strings.TrimSpace(string(mustRead("style.css"))))
	// statusStylesheet lays out the wide table of status.html: only that
	// page carries it.
	statusStylesheet = template.CSS(strings.TrimSpace(string(mustRead("status.css"))))
)

// wordsIn are the templates' functions that speak l's language: t words
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
	pages := template.Must(basePages.Clone()).Funcs(template.FuncMap(wordsIn(l)))
	texts := texttemplate.Must(baseTexts.Clone()).Funcs(wordsIn(l))
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

// wrap fills text into lines of at most textWidth characters (longer only
// for a single long word such as a URL), each starting with indent, and
// each keeping the direction of the whole text (see keepDirection).
func wrap(text, indent string) string {
	var b strings.Builder
	line := 0
	for _, w := range strings.Fields(text) {
		n := utf8.RuneCountInString(w)
		switch {
		case line == 0:
			b.WriteString(indent)
			line = utf8.RuneCountInString(indent)
		case line+1+n > textWidth:
			b.WriteString("\n" + indent)
			line = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return keepDirection(b.String(), text, indent)
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
func keepDirection(lines, text, indent string) string {
	rtl := rightToLeft(text)
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
func bullet(text string) string {
	return "* " + strings.TrimPrefix(wrap(text, "  "), "  ")
}

// underline is a Markdown-style heading rule as long as the heading.
func underline(text, char string) string {
	return strings.Repeat(char, utf8.RuneCountInString(text))
}
