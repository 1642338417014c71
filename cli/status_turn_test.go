package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/internal/feedtest"
)

// After a pass, `status` and status.html list the failing feeds first,
// then the others in the config's order (not by URL), and say when each
// is really polled next: at the next of its subscribers' digest hours,
// in their time, not "due" or "minimum interval"; a feed that failed for
// a passing reason at the end of its penalty, as a retry.
func TestStatusSaysTheNextPollInWords(t *testing.T) {
	ts := feedtest.Start(t)
	for _, p := range []string{"/zeta", "/alpha", "/shared"} {
		ts.Publish(p, feedtest.Feed{Title: p, Entries: []feedtest.Entry{{ID: p + "1", Title: "Hello", Link: "https://site.example" + p}}})
	}
	ts.Respond("/down", feedtest.Response{Status: http.StatusServiceUnavailable, Body: "down"})
	path := writeConfig(t, fmt.Sprintf(`[fetch]
allow_private_networks = true
host_rate = 100.0
[[users]]
name = "ada"
timezone = "Europe/London"
feeds = [%q, %q, %q]
[[users]]
name = "kenji"
timezone = "Asia/Tokyo"
digest_hour = 6
feeds = [%q, %q]
`, ts.URL+"/zeta", ts.URL+"/missing", ts.URL+"/shared", ts.URL+"/shared", ts.URL+"/down"))
	// 00:05 London: ada's digest is due; kenji's too (a first digest is
	// built at once).
	if code, stdout, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Setenv("COLUMNS", "1000") // the full table: a line per feed
	code, stdout, stderr := runCLI("status", "-config", path, "-now", "2026-11-22T00:30:00Z")
	if code != 0 {
		t.Fatalf("status: exit %d, %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "Status at Sun 22 Nov 2026 00:30 GMT; times in Europe/London (ada's zone).\n") {
		t.Errorf("the header does not name the first user's zone:\n%s", stdout)
	}
	order, lines := feedLinesOf(stdout, ts.URL)
	if got := strings.Join(order, " "); got != "/missing /down /zeta /shared" {
		t.Errorf("status lists %s, want the failing feeds first, then the config's order: /missing /down /zeta /shared\n%s", got, stdout)
	}
	for feed, want := range map[string]string{
		"/zeta":    " 23 Nov 00:00 ", // ada's next midnight
		"/shared":  " 22 Nov 21:00 ", // kenji's 06:00 comes first
		"/missing": " 24 Nov 00:00 ", // 404: a day's penalty (and salt), then ada's midnight
		"/down":    " 22 Nov 0",      // 503: a retry after its penalty
	} {
		if !strings.Contains(lines[feed], want) {
			t.Errorf("%s: no %q in %q", feed, want, lines[feed])
		}
	}
	for feed, want := range map[string]string{
		"/zeta":    "at ada's digest hour, 00:00 London",
		"/shared":  "at kenji's digest hour, 06:00 Tokyo",
		"/missing": "at ada's digest hour, 00:00 London, after its penalty (404)",
		"/down":    "retry after its penalty (server error, 503)",
	} {
		if !strings.Contains(lines[feed], want) {
			t.Errorf("%s: no %q in %q", feed, want, lines[feed])
		}
	}
	if strings.Contains(stdout, "minimum interval") || strings.Contains(stdout, " due ") {
		t.Errorf("status says a feed is due, or waits for a minimum interval, when it waits for a digest hour:\n%s", stdout)
	}

	// status.html says the same, in the same order.
	page, err := os.ReadFile(filepath.Join(filepath.Dir(path), "site", "status.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(page)))
	if err != nil {
		t.Fatal(err)
	}
	order = nil
	next := map[string]string{}
	doc.Find(`table:has(caption#cap) tbody tr`).Each(func(_ int, tr *goquery.Selection) {
		feed := strings.TrimPrefix(tr.Find(`th[scope="row"] a`).AttrOr("href", ""), ts.URL)
		order = append(order, feed)
		next[feed] = tr.Find(`td[data-label="Next poll"]`).Text()
	})
	if got := strings.Join(order, " "); got != "/missing /down /zeta /shared" {
		t.Errorf("status.html lists %s, want /missing /down /zeta /shared", got)
	}
	if got := next["/shared"]; !strings.Contains(got, "2026-11-22 21:00 UTC") || !strings.Contains(got, "at kenji's digest hour, 06:00 Tokyo") {
		t.Errorf("status.html: the shared feed's next poll reads %q", got)
	}
}

// feedLinesOf finds, in the full table of `status` (COLUMNS wide enough),
// each line of a feed served under base: the feeds' paths in the order
// listed, and each one's line.
func feedLinesOf(stdout, base string) (order []string, lines map[string]string) {
	lines = map[string]string{}
	for l := range strings.Lines(stdout) {
		if _, rest, ok := strings.Cut(l, base); ok {
			feed := strings.Fields(rest)[0]
			order = append(order, feed)
			lines[feed] = l
		}
	}
	return order, lines
}
