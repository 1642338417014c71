package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
	"feeddigest/internal/netfail"
)

// A feed's language, read from its body, reaches the pages through the
// state: the entries carry it, and their direction comes from the text.
func TestFeedLanguageReachesThePage(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Handle("/feed", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/rss+xml")
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>مدونة</title>
				<link>https://ar.example/</link><language>ar</language>
				<item><guid>ar-1</guid><title>مرحبا</title><link>https://ar.example/1</link>
				<description>نص قصير.</description><pubDate>Fri, 20 Nov 2026 10:00:00 +0000</pubDate></item>
				</channel></rss>`))
		}))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/feed"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		for _, want := range []string{
			`<h3 class="e" dir="auto" lang="ar"><a href="https://ar.example/1"`,
			`<div dir="auto" lang="ar">نص قصير.</div>`,
			`<h2 class="f" dir="auto"><a href="https://ar.example/" rel="noopener noreferrer">مدونة</a></h2>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %s:\n%s", want, page)
			}
		}
		if strings.Contains(page, "<details>") {
			t.Error("a short entry is shown twice")
		}
	})
}

// What the state keeps of a feed's problem is a code with its facts,
// worded when a page is written: a digest built for a reader of English,
// whose page is written again after the reader changed language, says
// its problems in the new language, the host a connection was refused by
// included.
func TestPageRebuiltAfterALanguageChangeSaysItsProblemsInTheNewOne(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		pub.Respond("/missing", feedtest.Response{Status: 404})
		refused := netfail.RefusedAddr(t)
		users := func(lang string) string {
			return fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nlanguage = %q\nfeeds = [%q, %q, %q]\n",
				lang, pub.URL+"/a", pub.URL+"/missing", "http://"+refused+"/feed")
		}
		cfg := testConfig(t, state, users("en"), "")
		runAt(t, cfg, "2026-11-21T00:05:00Z")
		page := filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html")
		english := readFile(t, page)
		for _, want := range []string{"not found (404)", "connection refused by " + refused} {
			if !strings.Contains(english, want) {
				t.Fatalf("the English page lacks %q: the test proves little\n%s", want, english)
			}
		}

		text := strings.Replace(readFile(t, cfg.Path), `language = "en"`, `language = "fr"`, 1)
		if err := os.WriteFile(cfg.Path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		french, err := config.Load(cfg.Path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Publish(context.Background(), french, "", at("2026-11-21T08:00:00Z")); err != nil {
			t.Fatal(err)
		}
		rebuilt := readFile(t, page)
		for _, want := range []string{`<html lang="fr"`, "introuvable (404)", "connexion refusée par " + refused} {
			if !strings.Contains(rebuilt, want) {
				t.Errorf("the page rebuilt in French lacks %q:\n%s", want, rebuilt)
			}
		}
		for _, english := range []string{"not found", "connection refused"} {
			if strings.Contains(rebuilt, english) {
				t.Errorf("the page rebuilt in French still says %q", english)
			}
		}
	})
}
