package render

import (
	"bytes"
	"errors"
	netmail "net/mail"
	"strings"
	"testing"
	"unicode"

	"feeddigest/internal/smtptest"
)

const testFrom = "Digest <digest@example.org>"

func buildEmail(t *testing.T, d Digest, siteURL string) []byte {
	t.Helper()
	msg, err := EmailMessage(d, testFrom, siteURL)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func emailHTML(t *testing.T, d Digest) string {
	_, parts := smtptest.ReadAlternative(t, buildEmail(t, d, "https://example.org/digest/"))
	return parts["text/html"]
}

func TestEmailHeadersAndParts(t *testing.T) {
	raw := buildEmail(t, sampleDigest(t), "https://example.org/digest/")
	h, parts := smtptest.ReadAlternative(t, raw)
	want := map[string]string{
		"Subject":        "Your digest for Sunday 22 November",
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
	text, html := parts["text/plain"], parts["text/html"]
	if text == "" || html == "" {
		t.Fatalf("want both parts, got %d parts", len(parts))
	}
	for _, s := range []string{"Digest for Sunday 22 November 2020", "Example Blog", "Hello world",
		"https://blog.example.org/posts/hello", "First post. See about me", "https://example.org/digest/ada/2020-11-22.html"} {
		if !strings.Contains(text, s) {
			t.Errorf("plain text lacks %q", s)
		}
	}
	checkEmailHTML(t, html)
}

// checkEmailHTML: inline styles only, and every link private.
func checkEmailHTML(t *testing.T, html string) {
	t.Helper()
	doc := parseHTML(t, html)
	if doc.Find("style").Length() != 0 || doc.Find("link").Length() != 0 {
		t.Error("email HTML depends on a stylesheet")
	}
	if doc.Find("[style]").Length() == 0 {
		t.Error("email HTML has no inline styles")
	}
	links := doc.Find("a[href]")
	if links.Length() == 0 {
		t.Fatal("email HTML has no links")
	}
	for _, n := range links.Nodes {
		for _, a := range n.Attr {
			if a.Key == "rel" && a.Val == relSafe {
				goto ok
			}
		}
		t.Errorf("email link without rel=%q: %v", relSafe, n.Attr)
	ok:
	}
	if doc.Find(`a[href="https://example.org/digest/ada/2020-11-22.html"]`).Length() != 1 {
		t.Error("email HTML does not link to the web page of the digest")
	}
}

func TestEmailIsReproducible(t *testing.T) {
	a := buildEmail(t, sampleDigest(t), "")
	b := buildEmail(t, sampleDigest(t), "")
	if !bytes.Equal(a, b) {
		t.Error("two builds of one digest differ")
	}
	other := sampleDigest(t)
	other.Date = "2020-11-23"
	h, _ := smtptest.ReadAlternative(t, buildEmail(t, other, ""))
	if h.Get("Message-Id") != "<digest-2020-11-23-ada@example.org>" {
		t.Errorf("Message-ID of another day = %q", h.Get("Message-Id"))
	}
}

func TestEmailWithoutSiteURLHasNoWebLink(t *testing.T) {
	_, parts := smtptest.ReadAlternative(t, buildEmail(t, sampleDigest(t), ""))
	if strings.Contains(parts["text/plain"], "on the web") || strings.Contains(parts["text/html"], "on the web") {
		t.Error("web link shown without a site URL")
	}
}

func TestEmailNeedsRecipient(t *testing.T) {
	d := sampleDigest(t)
	d.Email = ""
	if _, err := EmailMessage(d, testFrom, ""); !errors.Is(err, ErrNoRecipient) {
		t.Errorf("err = %v, want ErrNoRecipient", err)
	}
	if _, err := EmailMessage(sampleDigest(t), "not an address", ""); err == nil {
		t.Error("a bad From address was accepted")
	}
}

func TestMailDomain(t *testing.T) {
	for in, want := range map[string]string{
		"Digest <digest@example.org>": "example.org",
		"digest@mail.example.net":     "mail.example.net",
		"nonsense":                    "feeddigest",
	} {
		if got := mailDomain(in); got != want {
			t.Errorf("mailDomain(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEmailPlainTextHasNoControlCharacters(t *testing.T) {
	d := sampleDigest(t)
	g := &d.Groups[0]
	g.FeedName = "Feed\x1b]0;pwned\x07 name"
	g.Entries[0].Title = "Clear\x1b[2J screen\b\b\b"
	g.Entries[0].Author = "Ada\x1b[31m\u009b1m"
	g.Entries[0].Content = "<p>Text\x1b[8m hidden\x00\x7f</p>"
	_, parts := smtptest.ReadAlternative(t, buildEmail(t, d, ""))
	text := strings.ReplaceAll(parts["text/plain"], "\r\n", "\n")
	for _, r := range text {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			t.Fatalf("plain text carries %U:\n%q", r, text)
		}
	}
	for _, want := range []string{"Feed]0;pwned name", "Clear[2J screen", "Ada[31m1m", "Text[8m hidden"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
}

func TestStripControl(t *testing.T) {
	in := "a\tb\nc\x1b[0m\x00\x07\x08\x7f\u0085\u009bd é 日本 \u202e"
	if got, want := StripControl(in), "a\tb\nc[0md é 日本 \u202e"; got != want {
		t.Errorf("StripControl(%q) = %q, want %q", in, got, want)
	}
}
