package pipeline

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// A feed whose XML is ill-formed (here a truncated end and a bare
// ampersand) gives its entries, and the status page says it was repaired,
// until the publisher fixes it.
func TestRepairedFeedIsReadAndShown(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		const body = `<?xml version="1.0"?><rss version="2.0"><channel><title>Tom & Jerry</title>` +
			`<item><guid>r-1</guid><title>One</title><link>https://site.example/r-1</link></item>` +
			`<item><guid>r-2</guid><title>Two</title><link>https://site.example/r-2</link></item>`
		rss := http.Header{"Content-Type": {"application/rss+xml"}}
		ts := feedtest.Start(t)
		ts.Respond("/feed", feedtest.Response{Status: http.StatusOK, Header: rss, Body: body + `<item><guid>r-3</guid><title>Thr`})
		cfg := testConfig(t, state, oneUser(t, ts.URL+"/feed"), "")
		sum := runAt(t, cfg, "2026-11-21T12:00:00Z")
		if sum.Fresh != 1 || sum.NewEntries != 2 {
			t.Fatalf("ill-formed feed: %+v, want it read with its two whole entries", sum)
		}
		f := feedRecord(t, cfg.State, ts.URL+"/feed")
		if f.ErrorCount != 0 || f.Repaired != "bare ampersands, truncated end" {
			t.Errorf("feed record: errors %d, repaired %q", f.ErrorCount, f.Repaired)
		}
		status := readFile(t, filepath.Join(cfg.SiteDir, "status.html"))
		if !strings.Contains(status, "ill-formed XML, repaired (bare ampersands, truncated end)") {
			t.Error("status.html does not say the feed was repaired")
		}
		if got := delivered(t, cfg, "ada"); got["r-1"] != 1 || got["r-2"] != 1 {
			t.Errorf("digest entries %v", keys(got))
		}

		ts.Respond("/feed", feedtest.Response{Status: http.StatusOK, Header: rss, Body: strings.Replace(body, " & ", " &amp; ", 1) + `</channel></rss>`})
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		if f := feedRecord(t, cfg.State, ts.URL+"/feed"); f.Repaired != "" {
			t.Errorf("repaired %q after the publisher fixed the feed", f.Repaired)
		}
		if strings.Contains(readFile(t, filepath.Join(cfg.SiteDir, "status.html")), "repaired") {
			t.Error("status.html still says repaired")
		}
	})
}
