package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// siteHash hashes every file of the site folder, as the scheduled
// workflow does to decide whether to deploy it.
func siteHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestIdlePassLeavesTheSiteAsItWas(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/feed", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		before := siteHash(t, cfg.SiteDir)
		if sum := runAt(t, cfg, "2026-11-21T01:05:00Z"); sum.FeedsPolled != 0 || sum.DigestsBuilt != 0 {
			t.Fatalf("the second pass was not idle: %+v", sum)
		}
		if after := siteHash(t, cfg.SiteDir); after != before {
			t.Errorf("a pass that polled nothing and built nothing changed the site:\n%s", readFile(t, filepath.Join(cfg.SiteDir, "status.html")))
		}
		if status := readFile(t, filepath.Join(cfg.SiteDir, "status.html")); !strings.Contains(status, "2026-11-21 00:05 UTC") {
			t.Errorf("status.html is not as of the last poll:\n%s", status)
		}
		pub.Add("/feed", entry("a-2", "2026-11-21T10:00:00Z"))
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		if siteHash(t, cfg.SiteDir) == before {
			t.Error("a pass that built a digest left the site as it was")
		}
	})
}
