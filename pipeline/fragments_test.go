package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/feedtest"
)

// staleFragments lists the stored entries whose fragments were not made
// by this program's rules.
func staleFragments(t *testing.T, cfg *config.Config, rules int) []domain.Entry {
	t.Helper()
	st, err := openState(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stale, err := st.StaleFragments(context.Background(), rules, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return stale
}

// Entries are stored with their fragments; fragments of other rules (a
// state written by a program that sanitised otherwise) are made again by
// the next run, before any page is written from them.
func TestFragmentsMadeWhenStoredAndAgainUnderOtherRules(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", feedtest.Entry{ID: "a-1", Title: "One", Body: `<p>Hello <a href="/x">there</a><script>bad()</script></p>`,
			Published: at("2026-11-20T10:00:00Z")})
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		if stale := staleFragments(t, cfg, ingest.FragmentRules); len(stale) != 0 {
			t.Fatalf("%d entries stored without fragments", len(stale))
		}

		// As an older program would have left them: other rules, other HTML.
		st, err := openState(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		old, err := st.StaleFragments(context.Background(), ingest.FragmentRules+1, 0, 1000)
		if err != nil || len(old) != 1 {
			t.Fatalf("%d entries, %v", len(old), err)
		}
		old[0].Fragments = domain.Fragments{Rules: ingest.FragmentRules + 1, Title: "Old", HTML: "<p>old rules</p>"}
		if err := st.SaveFragments(context.Background(), old); err != nil {
			t.Fatal(err)
		}
		st.Close()

		// Nothing new (a 304): no poll stores a-1 again.
		if sum := runAt(t, cfg, "2026-11-22T00:05:00Z"); sum.Unchanged != 1 {
			t.Fatalf("second run: %+v", sum)
		}
		if stale := staleFragments(t, cfg, ingest.FragmentRules); len(stale) != 0 {
			t.Errorf("%d entries left with fragments of other rules", len(stale))
		}
		// The first digest's page, written again to link the second, shows
		// a-1 as this program's rules make it.
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		for _, want := range []string{`<a href="https://site.example/x" rel="noopener noreferrer">there</a>`, "2026-11-22.html"} {
			if !strings.Contains(page, want) {
				t.Errorf("the first page lacks %s", want)
			}
		}
		if strings.Contains(page, "old rules") || strings.Contains(page, "bad()") {
			t.Error("the first page shows fragments of other rules, or unsanitised content")
		}
	})
}
