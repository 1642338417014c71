package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

var atomID = regexp.MustCompile(`<id>([^<]*)</id>`)

// Two installations with a user of the same name, without site_url,
// publish different Atom ids; each keeps its own from run to run, and
// publish (reading the state only) writes the same ones.
func TestAtomIDsAreTheInstallations(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/feed", entry("a-0", "2026-11-21T00:01:00Z"))
		var ids [2][]string
		for i := range ids {
			cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
			runAt(t, cfg, "2026-11-21T00:05:00Z")
			first := atomID.FindAllStringSubmatch(readFile(t, filepath.Join(cfg.SiteDir, "ada", "feed.xml")), -1)
			if len(first) != 2 || !strings.HasPrefix(first[0][1], "urn:uuid:") {
				t.Fatalf("installation %d: ids %q, want a feed's and an entry's urn:uuid:", i, first)
			}
			ids[i] = []string{first[0][1], first[1][1]}
			runAt(t, cfg, "2026-11-22T00:05:00Z")
			if xml := readFile(t, filepath.Join(cfg.SiteDir, "ada", "feed.xml")); !strings.Contains(xml, "<id>"+ids[i][0]+"</id>") || !strings.Contains(xml, "<id>"+ids[i][1]+"</id>") {
				t.Errorf("installation %d: the next run changed the ids %q:\n%s", i, ids[i], xml)
			}
			out := t.TempDir()
			if _, err := Publish(t.Context(), cfg, out, at("2026-11-22T00:05:00Z")); err != nil {
				t.Fatal(err)
			}
			if xml := readFile(t, filepath.Join(out, "ada", "feed.xml")); !strings.Contains(xml, "<id>"+ids[i][1]+"</id>") {
				t.Errorf("installation %d: publish wrote other ids than the runs:\n%s", i, xml)
			}
		}
		if ids[0][0] == ids[1][0] || ids[0][1] == ids[1][1] {
			t.Errorf("two installations publish the same ids %q and %q", ids[0], ids[1])
		}
	})
}
