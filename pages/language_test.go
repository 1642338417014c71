package pages

import (
	"context"
	"strings"
	"testing"
	"time"

	"feeddigest/locale"
)

// A reader who changes language reads the next digest in the new one,
// and the page before it, written again to link it, too: what the state
// keeps is worded when a page is written. The Atom feed is made anew in
// the new language, and publish writes every page in it.
func TestLanguageChangeRewordsThePages(t *testing.T) {
	ctx := context.Background()
	const feedURL = "https://a.example/feed"
	st := stateWithDigests(t, feedURL, "2026-11-21")
	cfg := adaConfig(t, feedURL)
	if err := New(cfg, st, st, time.Date(2026, 11, 21, 0, 10, 0, 0, time.UTC), nil).Render(ctx); err != nil {
		t.Fatal(err)
	}
	if page := readSite(t, cfg.SiteDir, "ada/2026-11-21.html"); !strings.Contains(page, `<html lang="en">`) || !strings.Contains(page, "Digest for Saturday 21 November 2026") {
		t.Fatalf("the first page is not in English:\n%s", page)
	}

	fr, err := locale.Match("fr")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Users[0].Language, cfg.Users[0].Lang = "fr", fr
	feeds, err := st.Feeds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	addDigest(t, st, feeds[0], 1, "2026-11-22")
	if err := New(cfg, st, st, time.Date(2026, 11, 22, 0, 10, 0, 0, time.UTC), nil).Render(ctx); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"ada/2026-11-22.html": "Revue du dimanche 22 novembre 2026",
		"ada/2026-11-21.html": "Revue du samedi 21 novembre 2026", // written again to link the next
		"ada/index.html":      "Archives",
		"ada/feed.xml":        "Revue du samedi 21 novembre 2026",
	} {
		page := readSite(t, cfg.SiteDir, name)
		if !strings.Contains(page, want) || strings.Contains(page, "Digest for") {
			t.Errorf("%s is not in French (want %q):\n%s", name, want, page)
		}
	}
	if page := readSite(t, cfg.SiteDir, "ada/2026-11-21.html"); !strings.Contains(page, `<html lang="fr">`) || !strings.Contains(page, "2026-11-22.html") {
		t.Errorf("the page before is not French and linked to the next:\n%s", page)
	}

	dir := t.TempDir()
	if _, err := New(cfg, st, nil, time.Date(2026, 11, 22, 0, 10, 0, 0, time.UTC), nil).Publish(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if page := readSite(t, dir, "ada/2026-11-21.html"); !strings.Contains(page, "Revue du samedi 21 novembre 2026") {
		t.Errorf("publish writes the first page in another language:\n%s", page)
	}
}
