package pipeline

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// A feed's language, read from its body, reaches the pages through the
// state: the entries carry it, and their direction comes from the text.
func TestFeedLanguageReachesThePage(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Handle("/feed", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/rss+xml")
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>مدونة</title>
				<link>https://ar.example/</link><language>ar</language>
				<item><guid>ar-1</guid><title>مرحبا</title><link>https://ar.example/1</link>
				<description>نص قصير.</description><pubDate>Fri, 20 Nov 2026 10:00:00 +0000</pubDate></item>
				</channel></rss>`))
		}))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		for _, want := range []string{
			`<h3 class="e" dir="auto" lang="ar"><a href="https://ar.example/1"`,
			`<div dir="auto" lang="ar">نص قصير.</div>`,
			`<h2 class="f" dir="auto"><a href="https://ar.example/" rel="noopener noreferrer">مدونة</a></h2>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %s:\n%s", want, page)
			}
		}
		if strings.Contains(page, "<details>") {
			t.Error("a short entry is shown twice")
		}
	})
}
