package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// Sections come in the order the user wrote the feeds, gathered in their
// folders, under the user's own titles: not in the order of the URLs.
func TestDigestFollowsTheUsersOrderFoldersAndTitles(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		for _, path := range []string{"/z", "/a", "/m"} {
			pub.Add(path, entry(path[1:]+"-1", "2026-11-20T10:00:00Z"))
		}
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	feeds = [
	  { url = "%s", title = "Zed News", folder = "Work" },
	  "%s",
	  { url = "%s", folder = "Work" },
	]
	`, pub.URL+"/z", pub.URL+"/a", pub.URL+"/m"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")

		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		heads := regexp.MustCompile(`<h[23] class="[fd]"[^>]*>(?:<a [^>]*>)?([^<]+)`).FindAllStringSubmatch(page, -1)
		var got []string
		for _, h := range heads {
			got = append(got, h[1])
		}
		if want := "Work, Zed News, Feed /m, Feed /a"; strings.Join(got, ", ") != want {
			t.Errorf("sections %q, want %q", strings.Join(got, ", "), want)
		}
		if strings.Contains(page, "Feed /z") {
			t.Error("the feed's own name shows beside the user's title")
		}
		if !strings.Contains(page, "3 new entries from 3 feeds") {
			t.Error("the page does not give the total")
		}
		eml, err := os.ReadFile(filepath.Join(cfg.Email.Outbox, "ada-2026-11-21.eml"))
		if err != nil {
			t.Fatal(err)
		}
		_, parts := smtptest.ReadAlternative(t, eml)
		text := strings.ReplaceAll(parts["text/plain"], "\r\n", "\n")
		z, m, a := strings.Index(text, "Zed News\n---"), strings.Index(text, "Feed /m\n---"), strings.Index(text, "Feed /a\n===")
		if z < 0 || m < z || a < m {
			t.Errorf("the email's plain text is not in the user's order (%d, %d, %d):\n%s", z, m, a, text)
		}
	})
}
