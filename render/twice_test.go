package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/ingest"
	"feeddigest/internal/htmltest"
)

// No text is shown twice, on any golden page: an untitled entry's
// excerpt goes on from its display title, never repeating it; an entry
// shown whole has no excerpt beside it; and an entry whose full text can
// be opened hides its excerpt once opened (the page's own stylesheet
// rule), so the text it starts with is not read twice, and never opens on
// its display title again (an untitled note whose title and excerpt show
// it all has nothing to open).
func TestNoGoldenPageShowsATextTwice(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.golden")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range pages {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
			continue // an email or a feed
		}
		doc := htmltest.Parse(t, string(b))
		hides := strings.Contains(doc.Find("style").Text(), "article:has(>details[open])>p[dir=auto]{display:none}")
		doc.Find("article").Each(func(_ int, a *goquery.Selection) {
			checked++
			title := strings.TrimSuffix(strings.TrimSpace(a.ChildrenFiltered("h3, h4").Text()), ingest.Ellipsis)
			excerpt := a.ChildrenFiltered(`p[dir="auto"]`)
			text := strings.Join(strings.Fields(excerpt.Text()), " ")
			if title != "" && strings.HasPrefix(text, title) {
				t.Errorf("%s: the excerpt repeats the title %q: %q", path, title, text)
			}
			if a.ChildrenFiltered("div").Length() > 0 && excerpt.Length() > 0 {
				t.Errorf("%s: %q is shown whole and as an excerpt", path, title)
			}
			details := a.ChildrenFiltered("details")
			if details.Length() > 0 && excerpt.Length() > 0 && !hides {
				t.Errorf("%s: %q's full text, opened, repeats its excerpt", path, title)
			}
			if full := strings.Join(strings.Fields(details.ChildrenFiltered("div").Text()), " "); title != "" && strings.HasPrefix(full, title) {
				t.Errorf("%s: %q's full text, opened, repeats its title: %q", path, title, full)
			}
		})
	}
	if checked < 20 {
		t.Fatalf("checked %d entries on the golden pages, want the goldens' entries", checked)
	}
}
