package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// A digest's entry in feed.xml is written once, like its page: later runs
// copy it rather than read the digest's titles again. The copy is what
// writing it anew gives.
func TestFeedXMLKeepsWrittenEntries(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
		feedXML := filepath.Join(cfg.SiteDir, "ada", "feed.xml")
		days := []string{"2026-11-21", "2026-11-22", "2026-11-23"}
		for i, day := range days[:2] {
			pub.Add("/feed", entry(fmt.Sprintf("a-%d", i), day+"T00:01:00Z"))
			runAt(t, cfg, day+"T00:05:00Z")
		}
		// Mark the first digest's entry as written: a run that made it anew
		// from the state would lose the mark.
		const mark = "Title a-0"
		xml := readFile(t, feedXML)
		if strings.Count(xml, mark) != 1 {
			t.Fatalf("feed.xml names %q %d times, want once:\n%s", mark, strings.Count(xml, mark), xml)
		}
		if err := os.WriteFile(feedXML, []byte(strings.Replace(xml, mark, "Kept a-0", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		pub.Add("/feed", entry("a-2", days[2]+"T00:01:00Z"))
		runAt(t, cfg, days[2]+"T00:05:00Z")
		kept := readFile(t, feedXML)
		if !strings.Contains(kept, "Kept a-0") || !strings.Contains(kept, "Title a-1") || !strings.Contains(kept, "Title a-2") {
			t.Fatalf("feed.xml did not keep the entry written before, or lacks the others:\n%s", kept)
		}

		// Written anew (no feed.xml, and so no index either, which a run then
		// writes), at the same time: the same bytes but for the mark.
		for _, name := range []string{"feed.xml", "index.html"} {
			if err := os.Remove(filepath.Join(cfg.SiteDir, "ada", name)); err != nil {
				t.Fatal(err)
			}
		}
		runAt(t, cfg, days[2]+"T00:05:00Z")
		if anew := readFile(t, feedXML); anew != strings.Replace(kept, "Kept a-0", mark, 1) {
			t.Errorf("feed.xml written anew:\n%s\nwith the entries kept:\n%s", anew, kept)
		}
	})
}
