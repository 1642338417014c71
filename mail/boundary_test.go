package mail_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/internal/smtptest"
	"feeddigest/mail"
	"feeddigest/output"
	"feeddigest/render"
)

// mimePart is one part of a multipart message, decoded.
type mimePart struct {
	Type string // the media type, without parameters
	Body string
}

// readParts parses raw as a mail client does (net/mail, then
// mime/multipart with the boundary the header names) into its parts,
// decoded, in order.
func readParts(t testing.TB, raw []byte) []mimePart {
	t.Helper()
	m, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q (%v), want multipart/alternative", m.Header.Get("Content-Type"), err)
	}
	var parts []mimePart
	r := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := r.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("part %d: %v", len(parts)+1, err)
		}
		var body io.Reader = p
		if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			body = quotedprintable.NewReader(p)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatalf("part %d: %v", len(parts)+1, err)
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		parts = append(parts, mimePart{Type: ct, Body: string(b)})
	}
	return parts
}

// predictedBoundary is the boundary the email of d would use were nothing
// in it to clash: what anyone who knows the user and the date can work
// out.
func predictedBoundary(t testing.TB, d render.Digest) string {
	t.Helper()
	draft, err := render.DigestEmail(d, testFrom, "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := draft.FirstEntries(draft.Entries())
	if err != nil {
		t.Fatal(err)
	}
	return e.Boundary
}

// forgedDigest is a digest three feeds of which carry the delimiter of
// the boundary its email would use: in a feed's title, in an entry's
// title, in an excerpt and deep in an entry's text (as a line of its
// own, and as the closing delimiter). Each feed's name and each entry's
// title marks a section that both parts must show.
func forgedDigest(t testing.TB) (render.Digest, []string) {
	d := loadDigest(t, "digest")
	b := predictedBoundary(t, d)
	at := d.BuiltAt.Add(-time.Hour)
	long := strings.Repeat("words to read ", 40)
	d.Groups = []render.FeedGroup{
		{FeedURL: "https://a.example/feed", FeedName: "--" + b, SiteURL: "https://a.example/",
			Entries: []domain.Entry{{Title: "Alpha one", Link: "https://a.example/1", Content: "<p>Plain words.</p>", Published: at}}},
		{FeedURL: "https://b.example/feed", FeedName: "Bravo feed", SiteURL: "https://b.example/",
			Entries: []domain.Entry{
				{Title: "--" + b, Link: "https://b.example/1", Content: "<p>--" + b + "--</p>", Published: at},
				{Title: "Bravo two", Link: "https://b.example/2", Content: "<p>" + long + "</p><pre>\n--" + b + "\n</pre><p>--" + b + "--</p>", Published: at},
			}},
		{FeedURL: "https://c.example/feed", FeedName: "Charlie feed", SiteURL: "https://c.example/",
			Entries: []domain.Entry{{Title: "Charlie one", Link: "https://c.example/1", Summary: "--" + b + "\r\n--" + b + "--", Published: at}}},
	}
	return d, []string{"Alpha one", "Bravo feed", "Bravo two", "Charlie feed", "Charlie one"}
}

// checkBothParts says what is wrong with raw as a digest email: it must
// parse into a plain-text and an HTML part, each showing every section.
func checkBothParts(t *testing.T, raw []byte, sections []string) {
	t.Helper()
	parts := readParts(t, raw)
	if len(parts) != 2 || parts[0].Type != "text/plain" || parts[1].Type != "text/html" {
		var types []string
		for _, p := range parts {
			types = append(types, p.Type)
		}
		t.Fatalf("parts %v, want [text/plain text/html]", types)
	}
	for _, p := range parts {
		for _, s := range sections {
			if !strings.Contains(p.Body, s) {
				t.Errorf("the %s part lacks %q", p.Type, s)
			}
		}
		if !strings.Contains(p.Body, "Built ") {
			t.Errorf("the %s part lacks its end", p.Type)
		}
	}
}

// TestForgedBoundaryInOutbox: a feed that writes the delimiter of the
// boundary the email would have used (it is no secret: the user and the
// date make it) cuts nothing off the email in the outbox.
func TestForgedBoundaryInOutbox(t *testing.T) {
	d, sections := forgedDigest(t)
	draft, err := render.DigestEmail(d, testFrom, "https://example.org/digest/")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ComposeDigest(draft)
	if err != nil {
		t.Fatal(err)
	}
	outbox := t.TempDir()
	if err := output.New(t.TempDir(), outbox).OutboxMessage(d.User, d.Date, msg); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(outbox, d.User+"-"+d.Date+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	checkBothParts(t, raw, sections)
	// The feed's text is still there, as the feed wrote it.
	b := predictedBoundary(t, d)
	for _, p := range readParts(t, raw) {
		if !strings.Contains(p.Body, "--"+b) {
			t.Errorf("the %s part lost the feed's text %q", p.Type, "--"+b)
		}
	}
	// Reproducible all the same: a resent message is the same message.
	again, err := mail.ComposeDigest(draft)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(messageBytes(t, again), raw) {
		t.Error("two compositions of one forged digest differ")
	}
}

// TestForgedBoundaryOverSMTP: the message a real SMTP server receives
// parses into both parts too.
func TestForgedBoundaryOverSMTP(t *testing.T) {
	d, sections := forgedDigest(t)
	draft, err := render.DigestEmail(d, testFrom, "")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ComposeDigest(draft)
	if err != nil {
		t.Fatal(err)
	}
	sink := smtptest.Start(t)
	s, err := mail.NewSender("127.0.0.1", sink.Port(), "", "", false, mail.WithTimeout(5*time.Second), mail.WithHELO("localhost"))
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
	checkBothParts(t, got[0].Data, sections)
}

// TestComposeAvoidsBoundaryInBodies: Compose itself, given an email whose
// bodies hold its boundary, sends it with another that neither holds.
func TestComposeAvoidsBoundaryInBodies(t *testing.T) {
	e := render.Email{
		From: testFrom, To: "ada@example.org", Subject: "s", Date: time.Date(2020, 11, 22, 0, 5, 0, 0, time.UTC),
		MessageID: "m@example.org", Boundary: "feeddigest-0123456789abcdef01234567",
	}
	e.Text = "one\n--" + e.Boundary + "\ntwo\n--" + e.Boundary + "--\nthree"
	e.HTML = "<p>one</p>\n--" + e.Boundary + "\n<p>two</p>"
	m, err := mail.Compose(e)
	if err != nil {
		t.Fatal(err)
	}
	raw := messageBytes(t, m)
	parts := readParts(t, raw)
	if len(parts) != 2 || parts[0].Body != strings.ReplaceAll(e.Text, "\n", "\r\n") || parts[1].Body != strings.ReplaceAll(e.HTML, "\n", "\r\n") {
		t.Fatalf("parts %q", parts)
	}
	if got := mail.Boundary(m); got == e.Boundary || !strings.HasPrefix(got, "feeddigest-") {
		t.Errorf("boundary %q", got)
	}
}

// FuzzEmailParts: whatever a feed's titles and texts hold, the digest
// email parses into exactly its two parts, each to its end. "{B}" in
// either string stands for the boundary the email would have used, so
// the fuzzer need not guess it.
func FuzzEmailParts(f *testing.F) {
	f.Add("--{B}", "<p>--{B}--</p>")
	f.Add("Title", "--{B}\r\n--{B}--\r\n")
	f.Add("{B}{B}", "<pre>\n--{B}\n</pre>")
	f.Add("", "")
	f.Add("\u202e--{B}", "=\r\n--{B}=20")
	base := loadDigest(f, "digest")
	b := predictedBoundary(f, base)
	f.Fuzz(func(t *testing.T, title, text string) {
		title = strings.ReplaceAll(title, "{B}", b)
		text = strings.ReplaceAll(text, "{B}", b)
		d := base
		d.Groups = []render.FeedGroup{{FeedURL: "https://a.example/feed", FeedName: title, SiteURL: "https://a.example/",
			Entries: []domain.Entry{
				{Title: title, Link: "https://a.example/1", Content: text, Published: d.BuiltAt},
				{Title: "Second", Link: "https://a.example/2", Summary: title + " " + text, Published: d.BuiltAt},
			}}}
		draft, err := render.DigestEmail(d, testFrom, "")
		if err != nil {
			t.Fatal(err)
		}
		msg, err := mail.ComposeDigest(draft)
		if err != nil {
			t.Fatal(err)
		}
		parts := readParts(t, messageBytes(t, msg))
		if len(parts) != 2 || parts[0].Type != "text/plain" || parts[1].Type != "text/html" {
			t.Fatalf("%d parts", len(parts))
		}
		for _, p := range parts {
			if !strings.Contains(p.Body, "Built ") {
				t.Errorf("the %s part was cut short", p.Type)
			}
		}
	})
}
