package render

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/yuin/goldmark"

	"feeddigest/ingest"
)

// markdown renders intros. goldmark without html.WithUnsafe drops raw HTML
// and dangerous link schemes, so an intro cannot inject script.
var markdown = sync.OnceValue(func() goldmark.Markdown { return goldmark.New() })

// IntroHTML renders the site-wide and the user's Markdown intro, in that
// order, to HTML, sanitised like feed content. Both may be empty.
func IntroHTML(siteIntro, userIntro string) (string, error) {
	var out strings.Builder
	for _, src := range []string{siteIntro, userIntro} {
		if strings.TrimSpace(src) == "" {
			continue
		}
		var buf bytes.Buffer
		if err := markdown().Convert([]byte(src), &buf); err != nil {
			return "", fmt.Errorf("intro Markdown: %w", err)
		}
		out.WriteString(ingest.SanitizeHTML(buf.String(), ""))
	}
	return out.String(), nil
}
