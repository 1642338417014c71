package pipeline

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/pages"
)

// A digest small enough is read whole, a larger one feed by feed as its
// page is written: both make the same page and the same email.
func TestDigestReadWholeOrByFeedAlike(t *testing.T) {
	forEachStateInTurn(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		var urls []string
		for f := range 3 {
			path := fmt.Sprintf("/f%d", f)
			for i := range 4 {
				pub.Add(path, feedtest.Entry{ID: fmt.Sprintf("f%d-%d", f, i), Title: fmt.Sprintf("Entry %d of %d", i, f),
					Body:      fmt.Sprintf(`<p>Text with <a href="https://elsewhere.example/%d">a link</a> and <a href="/own">another</a>.</p>`, i),
					Published: at("2026-11-20T10:00:00Z").Add(-time.Duration(f*4+i) * time.Hour)})
			}
			urls = append(urls, pub.URL+path)
		}
		users := oneUser(t, urls...) + "email = \"ada@example.org\"\n"
		written := func() (page, email string) {
			cfg := testConfig(t, state, users, "")
			cfg.Email.SMTP = nil
			runAt(t, cfg, "2026-11-21T00:05:00Z")
			page = readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
			emails, err := filepath.Glob(filepath.Join(cfg.Email.Outbox, "*.eml"))
			if err != nil || len(emails) != 1 {
				t.Fatalf("outbox: %v, %v", emails, err)
			}
			return page, readFile(t, emails[0])
		}
		wholePage, wholeEmail := written()
		was := pages.WholeDigestEntries
		pages.WholeDigestEntries = 0
		t.Cleanup(func() { pages.WholeDigestEntries = was })
		byFeedPage, byFeedEmail := written()
		if wholePage != byFeedPage {
			t.Errorf("the page read whole differs from the page read by feed:\n%s\n----\n%s", wholePage, byFeedPage)
		}
		if wholeEmail != byFeedEmail {
			t.Errorf("the email read whole differs from the email read by feed:\n%s\n----\n%s", wholeEmail, byFeedEmail)
		}
	})
}
