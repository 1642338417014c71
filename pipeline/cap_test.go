package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
	"feeddigest/mail"
)

func TestDigestListsAFewEntriesPerFeedAndSaysHowManyMore(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		day0 := at("2026-11-21T12:00:00Z")
		pub.Add("/busy", feedtest.Entry{ID: "busy-0", Title: "Busy 0", Body: "first", Published: day0})
		pub.Add("/quiet", feedtest.Entry{ID: "quiet-0", Title: "Quiet 0", Body: "first", Published: day0})
		users := fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nemail = \"ada@example.org\"\nfeeds = [%q, %q]\n",
			pub.URL+"/busy", pub.URL+"/quiet")
		cfg := testConfig(t, state, users, "max_entries_per_feed = 40")
		runAt(t, cfg, "2026-11-22T00:05:00Z")

		// 500 new entries of one feed by the next digest, 2 of the other.
		for i := 1; i <= 500; i++ {
			pub.Add("/busy", feedtest.Entry{ID: fmt.Sprintf("busy-%d", i), Title: fmt.Sprintf("Busy %d", i),
				Body: strings.Repeat("words ", 50), Published: day0.Add(time.Duration(i) * time.Minute)})
		}
		pub.Add("/quiet", feedtest.Entry{ID: "quiet-1", Title: "Quiet 1", Published: day0.Add(time.Hour)},
			feedtest.Entry{ID: "quiet-2", Title: "Quiet 2", Published: day0.Add(2 * time.Hour)})
		if sum := runAt(t, cfg, "2026-11-23T00:05:00Z"); sum.NewEntries != 502 {
			t.Fatalf("stored %d new entries, want 502", sum.NewEntries)
		}
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-23.html"))
		listed := map[string]bool{}
		for _, m := range entryLink.FindAllStringSubmatch(page, -1) {
			listed[m[1]] = true
		}
		for i := 1; i <= 500; i++ {
			id := fmt.Sprintf("busy-%d", i)
			if want := i > 460; listed[id] != want {
				t.Errorf("%s listed %v, want %v (the 40 newest)", id, listed[id], want)
			}
		}
		if !listed["quiet-1"] || !listed["quiet-2"] {
			t.Error("the quiet feed's entries are missing")
		}
		more := `…and 460 more entries at <a href="https://site.example/busy/" rel="noopener noreferrer">site.example</a>.`
		if !strings.Contains(page, more) {
			t.Errorf("the page does not say %s", more)
		}
		if strings.Count(page, "more entries at") != 1 {
			t.Error("a feed under the cap says it has more")
		}

		raw, err := os.ReadFile(filepath.Join(cfg.Email.Outbox, "ada-2026-11-23.eml"))
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) > mail.MaxSize {
			t.Errorf("email of %d bytes, over %d", len(raw), mail.MaxSize)
		}
		_, parts := smtptest.ReadAlternative(t, raw)
		if !strings.Contains(parts["text/plain"], "…and 460 more entries at https://site.example/busy/") {
			t.Errorf("the plain text does not say how many more:\n%s", parts["text/plain"])
		}
		if !strings.Contains(parts["text/html"], `…and 460 more entries at <a href="https://site.example/busy/"`) {
			t.Error("the HTML part does not say how many more")
		}

		// The unlisted entries were delivered: they never come back.
		pub.Add("/busy", feedtest.Entry{ID: "busy-501", Title: "Busy 501", Published: day0.Add(48 * time.Hour)})
		runAt(t, cfg, "2026-11-24T00:05:00Z")
		next := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-24.html"))
		if got := entryLink.FindAllStringSubmatch(next, -1); len(got) != 1 || got[0][1] != "busy-501" {
			t.Errorf("the next digest lists %v, want only busy-501", got)
		}
		for id, n := range delivered(t, cfg, "ada") {
			if n > 1 {
				t.Errorf("%s on %d pages", id, n)
			}
		}
	})
}
