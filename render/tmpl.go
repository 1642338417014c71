package render

import (
	"bytes"
	"html/template"
	"io/fs"
	"strings"
	texttemplate "text/template"
	"unicode/utf8"

	"feeddigest/templates"
)

// The templates are parsed once, when the package loads: they are part of
// the binary, so a parse error is a bug that every test run reveals.
var (
	pageTemplates = template.Must(template.New("pages").Funcs(template.FuncMap{
		"stylesheet":       func() template.CSS { return stylesheet },
		"statusStylesheet": func() template.CSS { return statusStylesheet },
		"safeLink":         safeLink,
	}).ParseFS(templates.FS, "*.html"))

	textTemplates = texttemplate.Must(texttemplate.New("text").Funcs(texttemplate.FuncMap{
		"wrap":      wrap,
		"bullet":    bullet,
		"underline": underline,
		"plural":    plural,
	}).ParseFS(templates.FS, "*.txt"))

	// stylesheet is our own file, so it is trusted CSS.
	stylesheet = template.CSS(strings.TrimSpace(string(mustRead("style.css"))))
	// statusStylesheet lays out the wide table of status.html: only that
	// page carries it.
	statusStylesheet = template.CSS(strings.TrimSpace(string(mustRead("status.css"))))
)

func mustRead(name string) []byte {
	b, err := fs.ReadFile(templates.FS, name)
	if err != nil {
		panic(err)
	}
	return b
}

// execPage runs one HTML template into a byte slice.
func execPage(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// execText runs one text template into a string.
func execText(name string, data any) (string, error) {
	var buf strings.Builder
	if err := textTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// textWidth is where plain text wraps: comfortable in any mail client.
const textWidth = 72

// wrap fills text into lines of at most textWidth characters (longer only
// for a single long word such as a URL), each starting with indent.
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

// plural picks the word for a count.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
