package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/smtptest"
	"feeddigest/mail"
)

func TestDigestListsAFewEntriesPerFeedAndSaysHowManyMore(t *testing.T) {
	pub := newPublisher(t)
	day0 := at("2026-11-21T12:00:00Z")
	pub.add("/busy", item{id: "busy-0", title: "Busy 0", body: "first", published: day0})
	pub.add("/quiet", item{id: "quiet-0", title: "Quiet 0", body: "first", published: day0})
	users := fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nemail = \"ada@example.org\"\nfeeds = [%q, %q]\n",
		pub.url("/busy"), pub.url("/quiet"))
	cfg := testConfig(t, users, "max_entries_per_feed = 40")
	runAt(t, cfg, "2026-11-22T00:05:00Z")

	// 500 new entries of one feed by the next digest, 2 of the other.
	for i := 1; i <= 500; i++ {
		pub.add("/busy", item{id: fmt.Sprintf("busy-%d", i), title: fmt.Sprintf("Busy %d", i),
			body: strings.Repeat("words ", 50), published: day0.Add(time.Duration(i) * time.Minute)})
	}
	pub.add("/quiet", item{id: "quiet-1", title: "Quiet 1", published: day0.Add(time.Hour)},
		item{id: "quiet-2", title: "Quiet 2", published: day0.Add(2 * time.Hour)})
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
	pub.add("/busy", item{id: "busy-501", title: "Busy 501", published: day0.Add(48 * time.Hour)})
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
}
