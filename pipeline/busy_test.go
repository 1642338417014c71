package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
	"feeddigest/pages"
)

// A busy feed met by a first digest shows its five newest and says, once
// on the page and in both email parts, that it left out its 45 older
// entries; the next day's 40 new entries show full_entries of them in
// full and the rest of the 20 listed (max_entries_per_feed) as linked
// titles, the contents saying "20 of 40", the run's report counting the
// entries first seen apart from those the digest shows. Written again
// from the state, whole or feed by feed (a large digest), both pages say
// the same.
func TestBusyFeedFirstDigestThenABusyDay(t *testing.T) {
	forEachStateInTurn(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		day0 := at("2026-11-19T00:00:00Z")
		for i := range 50 {
			pub.Add("/busy", entry(fmt.Sprintf("busy-%d", i+1), day0.Add(time.Duration(i)*time.Hour/2).Format(time.RFC3339)))
		}
		pub.Add("/quiet", entry("quiet-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	full_entries = 3
	feeds = ["%s", "%s"]
	`, pub.URL+"/busy", pub.URL+"/quiet"), "max_entries_per_feed = 20")

		sum := runAt(t, cfg, "2026-11-21T12:00:00Z")
		if sum.NewEntries != 51 || sum.DigestEntries != 6 {
			t.Errorf("first run: %d entries first seen, %d in the digest; want 51 and 6", sum.NewEntries, sum.DigestEntries)
		}
		const note = "leaves out 45 older entries."
		page, text, html := digestParts(t, cfg.SiteDir, cfg.Email.Outbox, "ada", "2026-11-21")
		for part, got := range map[string]string{"page": page, "text": strings.Join(strings.Fields(text), " "), "html": html} {
			if n := strings.Count(got, note); n != 1 {
				t.Errorf("first digest: the %s says %d times that 45 older entries were left out, want once", part, n)
			}
			if n := strings.Count(got, "first digest of this feed"); n != 1 {
				t.Errorf("first digest: the %s has %d first-digest notes, want the busy feed's alone", part, n)
			}
		}
		if !strings.Contains(page, "6 new entries from 2 feeds") || strings.Count(page, "<article>") != 4 {
			t.Errorf("first digest: want 6 new entries, 3 of the busy feed's in full and the quiet one's")
		}

		for i := range 40 {
			pub.Add("/busy", entry(fmt.Sprintf("busy-%d", 51+i), at("2026-11-21T13:00:00Z").Add(time.Duration(i)*time.Minute*15).Format(time.RFC3339)))
		}
		sum = runAt(t, cfg, "2026-11-22T00:05:00Z")
		if sum.NewEntries != 40 || sum.DigestEntries != 40 {
			t.Errorf("busy day: %d entries first seen, %d in the digest; want 40 and 40", sum.NewEntries, sum.DigestEntries)
		}
		page, text, html = digestParts(t, cfg.SiteDir, cfg.Email.Outbox, "ada", "2026-11-22")
		if n := strings.Count(page, "<article>"); n != 3 {
			t.Errorf("busy day: %d entries in full, want full_entries = 3", n)
		}
		for part, got := range map[string]string{"page": page, "text": text, "html": html} {
			if !strings.Contains(got, "20 of 40 entries") || !strings.Contains(got, "…and 20 more entries") {
				t.Errorf("busy day: the %s does not count 20 of 40, and 20 more", part)
			}
			if strings.Contains(got, "older entries") {
				t.Errorf("busy day: the %s speaks of a first digest", part)
			}
			// The newest in full, with its text; the 20th listed as a
			// title, without its text; the 21st not at all.
			if !strings.Contains(got, "Body of busy-90") || !strings.Contains(got, "Title busy-71") ||
				strings.Contains(got, "Body of busy-71") || strings.Contains(got, "busy-70") {
				t.Errorf("busy day: the %s does not show 3 in full and 17 titles of the newest 20", part)
			}
		}

		for _, whole := range []int{pages.WholeDigestEntries, 0} {
			was := pages.WholeDigestEntries
			pages.WholeDigestEntries = whole
			dir := filepath.Join(t.TempDir(), "public")
			_, err := Publish(context.Background(), cfg, dir, at("2026-11-22T00:10:00Z"))
			pages.WholeDigestEntries = was
			if err != nil {
				t.Fatal(err)
			}
			for _, date := range []string{"2026-11-21", "2026-11-22"} {
				name := filepath.Join("ada", date+".html")
				if readFile(t, filepath.Join(dir, name)) != readFile(t, filepath.Join(cfg.SiteDir, name)) {
					t.Errorf("page of %s written again (whole up to %d entries) differs from the run's", date, whole)
				}
			}
		}
	})
}

// digestParts are the page of user's digest of date, and the plain text
// and HTML of its email in the outbox.
func digestParts(t *testing.T, site, outbox, user, date string) (page, text, html string) {
	t.Helper()
	page = readFile(t, filepath.Join(site, user, date+".html"))
	eml, err := os.ReadFile(filepath.Join(outbox, user+"-"+date+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	_, parts := smtptest.ReadAlternative(t, eml)
	return page, strings.ReplaceAll(parts["text/plain"], "\r\n", "\n"), parts["text/html"]
}
