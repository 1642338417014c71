package render

import (
	"bytes"
	"context"
	"errors"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/smtptest"
	"github.com/emersion/go-sasl"
	"github.com/wneessen/go-mail"
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

func TestWriteEML(t *testing.T) {
	msg, err := EmailMessage(sampleDigest(t), testFrom, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "outbox")
	path := filepath.Join(dir, EMLName("ada", "2020-11-22"))
	if err := WriteEML(msg, path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buildEmail(t, sampleDigest(t), "")) {
		t.Error("the .eml file differs from the message")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "ada-2020-11-22.eml" {
		t.Errorf("outbox holds %v, want only ada-2020-11-22.eml", entries)
	}
	// Writing again replaces the file whole.
	if err := WriteEML(msg, path); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
		t.Error("rewriting changed the file")
	}
}

func TestSendOverSMTP(t *testing.T) {
	sink := smtptest.Start(t)
	port := sink.Port()
	msg, err := EmailMessage(sampleDigest(t), testFrom, "https://example.org/digest/")
	if err != nil {
		t.Fatal(err)
	}
	// Opportunistic STARTTLS: the test server offers none, so plain SMTP.
	s, err := NewSender("127.0.0.1", port, "", "", false, WithTimeout(5*time.Second), WithHELO("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	got := sink.Messages()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	if got[0].From != "digest@example.org" || strings.Join(got[0].To, ",") != "ada@example.org" {
		t.Errorf("envelope from %q to %q", got[0].From, got[0].To)
	}
	h, parts := smtptest.ReadAlternative(t, got[0].Data)
	if h.Get("Message-Id") != "<digest-2020-11-22-ada@example.org>" || h.Get("Auto-Submitted") != "auto-generated" {
		t.Errorf("headers lost in transit: %v", h)
	}
	if !strings.Contains(parts["text/plain"], "Hello world") {
		t.Error("plain part lost in transit")
	}
	checkEmailHTML(t, parts["text/html"])

	sink.Stop()
	if err := s.Send(context.Background(), msg); err == nil {
		t.Error("Send to a stopped server reported success")
	}
}

func TestSendWithoutTLSOption(t *testing.T) {
	sink := smtptest.Start(t)
	port := sink.Port()
	s, err := NewSender("127.0.0.1", port, "", "", false, WithoutTLS())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := EmailMessage(sampleDigest(t), testFrom, "")
	b, _ := EmailMessage(emptyDigest(t), testFrom, "")
	if err := s.Send(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	if n := len(sink.Messages()); n != 2 {
		t.Errorf("server received %d messages, want 2", n)
	}
	if err := s.Send(context.Background()); err != nil {
		t.Errorf("sending nothing: %v", err)
	}
}

func TestSendKeepsPasswordOffPlainConnections(t *testing.T) {
	sink := smtptest.Start(t, smtptest.OfferAuth(sasl.Plain))
	port := sink.Port()
	s, err := NewSender("127.0.0.1", port, "ada", "secret", false)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := EmailMessage(sampleDigest(t), testFrom, "")
	if err := s.Send(context.Background(), msg); err == nil {
		t.Error("sent with AUTH PLAIN over an unencrypted connection")
	}
	if n := len(sink.Messages()); n != 0 {
		t.Errorf("server received %d messages", n)
	}
}

func TestSenderDefaults(t *testing.T) {
	cases := []struct {
		implicit bool
		want     string
	}{{false, "127.0.0.1:587"}, {true, "127.0.0.1:465"}}
	for _, c := range cases {
		s, err := NewSender("127.0.0.1", 0, "", "", c.implicit)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.client.ServerAddr(); got != c.want {
			t.Errorf("implicitTLS=%v: server %s, want %s", c.implicit, got, c.want)
		}
	}
	var _ *mail.Msg // the Sender sends go-mail messages
}

func TestRequiredTLSRefusesAPlainServer(t *testing.T) {
	sink := smtptest.Start(t)
	port := sink.Port()
	s, err := NewSender("127.0.0.1", port, "", "", false, WithRequiredTLS(), WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := EmailMessage(sampleDigest(t), testFrom, "")
	if err := s.Send(context.Background(), msg); err == nil {
		t.Error("sent to a server without STARTTLS although TLS is required")
	}
	if n := len(sink.Messages()); n != 0 {
		t.Errorf("server received %d messages", n)
	}
}
