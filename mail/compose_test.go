package mail_test

import (
	"bytes"
	"feeddigest/locale"
	"fmt"
	netmail "net/mail"
	"path/filepath"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/London on machines without a zone database

	"feeddigest/domain"
	"feeddigest/internal/golden"
	"feeddigest/internal/smtptest"
	"feeddigest/mail"
	"feeddigest/render"
)

// loadDigest reads the digest render/testdata/<name>.json, which render's
// tests share.
func loadDigest(t testing.TB, name string) render.Digest {
	t.Helper()
	var d struct {
		render.Digest
		Zone string // the user's time zone, by name
	}
	golden.Decode(t, filepath.Join("..", "render", "testdata", name+".json"), &d)
	var err error
	if d.Location, err = time.LoadLocation(d.Zone); err != nil {
		t.Fatal(err)
	}
	return d.Digest
}

// goldenCheck compares got with render/testdata/<name>.golden (rewritten
// under -update).
func goldenCheck(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("..", "render", "testdata", name+".golden"), got)
}

// buildEmail is the digest email of d as sent.
func buildEmail(t *testing.T, d render.Digest, from, siteURL string) []byte {
	t.Helper()
	draft, err := render.DigestEmail(d, from, siteURL)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ComposeDigest(draft)
	if err != nil {
		t.Fatal(err)
	}
	raw := messageBytes(t, msg)
	if size := mail.MeasuredSize(msg); int64(len(raw)) != size {
		t.Errorf("measured %d bytes, but %d written: the size bound is checked on the wrong figure", size, len(raw))
	}
	return raw
}

// TestGoldenEmail composes the email of the digest the page's golden file
// shows: folders, a feed in Arabic, a feed that could not be read.
func TestGoldenEmail(t *testing.T) {
	goldenCheck(t, "email.eml", buildEmail(t, loadDigest(t, "digest-full"), "Digest <digest@example.org>", "https://example.org/digest/"))
}

// TestGoldenStoryEmail composes the email of a day on which one story
// came from three feeds: shown once, "also in" the others, counted once
// in the Subject (see render's TestGoldenStoryPage).
func TestGoldenStoryEmail(t *testing.T) {
	d := loadDigest(t, "digest-story")
	d.Groups = render.MergeStories(d.Groups)
	goldenCheck(t, "story.eml", buildEmail(t, d, "Digest <digest@example.org>", "https://example.org/digest/"))
}

func TestGoldenEmailEmptyDay(t *testing.T) {
	goldenCheck(t, "email-empty.eml", buildEmail(t, loadDigest(t, "digest-empty"), "digest@example.org", ""))
}

func TestComposedHeaders(t *testing.T) {
	raw := buildEmail(t, loadDigest(t, "digest"), testFrom, "https://example.org/digest/")
	h, parts := smtptest.ReadAlternative(t, raw)
	want := map[string]string{
		"Subject":        "Your digest for Sunday 22 November: 3 new from 2 feeds",
		"Message-Id":     "<digest-2020-11-22-ada@example.org>",
		"Auto-Submitted": "auto-generated",
		"To":             "<ada@example.org>",
		"Date":           "Sun, 22 Nov 2020 00:05:00 +0000",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if !strings.Contains(h.Get("List-Id"), "<ada.digest.example.org>") {
		t.Errorf("List-Id = %q", h.Get("List-Id"))
	}
	if from, err := netmail.ParseAddress(h.Get("From")); err != nil || from.Address != "digest@example.org" {
		t.Errorf("From = %q (%v)", h.Get("From"), err)
	}
	if parts["text/plain"] == "" || parts["text/html"] == "" {
		t.Fatalf("want both parts, got %d parts", len(parts))
	}
}

func TestComposedEmailIsReproducible(t *testing.T) {
	a := buildEmail(t, loadDigest(t, "digest"), testFrom, "")
	b := buildEmail(t, loadDigest(t, "digest"), testFrom, "")
	if !bytes.Equal(a, b) {
		t.Error("two builds of one digest differ")
	}
	other := loadDigest(t, "digest")
	other.Date = "2020-11-23"
	h, _ := smtptest.ReadAlternative(t, buildEmail(t, other, testFrom, ""))
	if h.Get("Message-Id") != "<digest-2020-11-23-ada@example.org>" {
		t.Errorf("Message-ID of another day = %q", h.Get("Message-Id"))
	}
}

func TestComposeRefusesBadAddresses(t *testing.T) {
	draft, err := render.DigestEmail(loadDigest(t, "digest"), "not an address", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mail.ComposeDigest(draft); err == nil {
		t.Error("a bad From address was accepted")
	}
	e, err := draft.FirstEntries(1)
	if err != nil {
		t.Fatal(err)
	}
	e.From, e.To = testFrom, "ada at example.org"
	if _, err := mail.Compose(e); err == nil {
		t.Error("a bad To address was accepted")
	}
}

// bigDigest has feeds × perFeed entries with long titles and texts.
func bigDigest(t testing.TB, feeds, perFeed int) render.Digest {
	d := loadDigest(t, "digest")
	d.Groups = nil
	words := strings.Repeat("lorem ipsum dolor sit amet ", 30)
	for f := range feeds {
		g := render.FeedGroup{FeedURL: fmt.Sprintf("https://f%d.example/feed", f), FeedName: fmt.Sprintf("Feed %d", f),
			SiteURL: fmt.Sprintf("https://f%d.example/", f), More: 10}
		for e := range perFeed {
			g.Entries = append(g.Entries, domain.Entry{Title: fmt.Sprintf("Entry %d-%d %s", f, e, words), Author: "Someone",
				Link: fmt.Sprintf("https://f%d.example/%d", f, e), Content: "<p>" + words + "</p>",
				Published: d.BuiltAt.Add(-time.Duration(e) * time.Minute)})
		}
		d.Groups = append(d.Groups, g)
	}
	return d
}

func TestEmailStaysUnderTheSizeBound(t *testing.T) {
	d := bigDigest(t, 40, 50) // 2000 entries: about 2.4 MB in full
	raw := buildEmail(t, d, testFrom, "https://example.org/digest/")
	if len(raw) > mail.MaxSize {
		t.Fatalf("email of %d bytes, bound %d", len(raw), mail.MaxSize)
	}
	_, parts := smtptest.ReadAlternative(t, raw)
	text, page := parts["text/plain"], parts["text/html"]
	kept := strings.Count(text, "\n* Entry ")
	if kept == 0 || kept >= 2000 || strings.Count(page, "<h3") != kept {
		t.Fatalf("%d entries in the text part, %d in the HTML part, of 2000", kept, strings.Count(page, "<h3"))
	}
	// Well used: a tenth more would not have fit, a tenth less would.
	if len(raw) < mail.MaxSize*9/10 {
		t.Errorf("email of %d bytes: the bound is %d", len(raw), mail.MaxSize)
	}
	if !strings.Contains(text, "Entry 0-0 ") || strings.Contains(text, "Entry 39-49 ") {
		t.Error("the email does not keep the first entries")
	}
	// Counts are written as the reader's language writes numbers: 1,607.
	en := locale.English()
	note := fmt.Sprintf("This email had room for the first %s entries. The other %s are on this digest's page.", en.Number(kept), en.Number(2000-kept))
	if !strings.Contains(strings.Join(strings.Fields(text), " "), note) {
		t.Errorf("the plain text does not say %q", note)
	}
	if !strings.Contains(text, "https://example.org/digest/ada/2020-11-22.html") {
		t.Error("the plain text does not link the page")
	}
	if !strings.Contains(page, fmt.Sprintf("This email had room for the first %s entries. The other %s are on <a href=\"https://example.org/digest/ada/2020-11-22.html\"", en.Number(kept), en.Number(2000-kept))) {
		t.Error("the HTML part does not say where the rest is")
	}
	if strings.Contains(text, "Nothing new") || strings.Contains(page, "Nothing new") {
		t.Error("a cut email says nothing is new")
	}
	// A digest under the bound is whole and says nothing of the kind.
	small := buildEmail(t, bigDigest(t, 2, 5), testFrom, "")
	if strings.Contains(string(small), "had room") {
		t.Error("a small email says it was cut")
	}
}

// TestEmailIsTheLargestThatFits: the email lists as many entries as fit,
// not merely some number that does.
func TestEmailIsTheLargestThatFits(t *testing.T) {
	for _, size := range [][2]int{{40, 50}, {100, 60}, {30, 100}} {
		draft, err := render.DigestEmail(bigDigest(t, size[0], size[1]), testFrom, "https://example.org/digest/")
		if err != nil {
			t.Fatal(err)
		}
		msg, err := mail.ComposeDigest(draft)
		if err != nil {
			t.Fatal(err)
		}
		_, parts := smtptest.ReadAlternative(t, messageBytes(t, msg))
		kept := strings.Count(parts["text/plain"], "\n* Entry ")
		if kept >= size[0]*size[1] {
			t.Fatalf("%v: all %d entries fit; the test wants a digest too large", size, kept)
		}
		for n, fits := range map[int]bool{kept: true, kept + 1: false} {
			e, err := draft.FirstEntries(n)
			if err != nil {
				t.Fatal(err)
			}
			m, err := mail.Compose(e)
			if err != nil {
				t.Fatal(err)
			}
			if got := mail.MeasuredSize(m) <= mail.MaxSize; got != fits {
				t.Errorf("%v: the email lists %d entries, and %d fit: %v", size, kept, n, got)
			}
		}
	}
}

// BenchmarkComposeDigestLinked is a digest of 2,000 entries whose
// contents carry links, as most do: the plain-text part marks the links
// each excerpt shows, which parses the entry's HTML; the email is
// composed in a few versions to find the largest that fits. A run makes
// the draft and its email once, so each loop does both.
func BenchmarkComposeDigestLinked(b *testing.B) {
	d := bigDigest(b, 40, 50)
	for _, g := range d.Groups {
		for i := range g.Entries {
			g.Entries[i].Content = `<p>lorem ipsum <a href="https://elsewhere.example/">dolor sit amet</a> ` + strings.Repeat("lorem ipsum dolor sit amet ", 30) + "</p>"
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		draft, err := render.DigestEmail(d, testFrom, "https://example.org/digest/")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mail.ComposeDigest(draft); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkComposeDigest20k(b *testing.B) {
	draft, err := render.DigestEmail(bigDigest(b, 200, 100), testFrom, "https://example.org/digest/")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := mail.ComposeDigest(draft); err != nil {
			b.Fatal(err)
		}
	}
}
