// Package article reads the article of a web page, for feeds that
// publish only a teaser (full_text = true): Mozilla's Readability rules,
// through codeberg.org/readeck/go-readability. What it returns is the
// page's HTML, not sanitised: it becomes an entry's content, which ingest
// sanitises like any feed's.
package article

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
)

// ErrNoArticle means a page holds no article readability can find, or
// too little text to be worth more than the feed's own.
var ErrNoArticle = errors.New("no article in the page")

// MinText is the fewest characters of text an article must have: less
// is a cookie wall, a login page or an error page, and the feed's own
// text is worth more.
const MinText = 200

// Extract returns the HTML of the article of page (UTF-8), found at
// pageURL (its relative links are made absolute against it).
func Extract(page []byte, pageURL string) (string, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return "", fmt.Errorf("article of %q: %w", pageURL, err)
	}
	parser := readability.NewParser()
	art, err := parser.Parse(bytes.NewReader(page), base)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoArticle, err)
	}
	if art.Node == nil {
		return "", ErrNoArticle
	}
	var text strings.Builder
	if err := art.RenderText(&text); err != nil || len(strings.TrimSpace(text.String())) < MinText {
		return "", ErrNoArticle
	}
	var out strings.Builder
	if err := art.RenderHTML(&out); err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoArticle, err)
	}
	return out.String(), nil
}
