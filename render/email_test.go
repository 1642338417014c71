package render

import (
	"errors"
	"html"
	netmail "net/mail"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"feeddigest/internal/htmltest"
)

const testFrom = "Digest <digest@example.org>"

// buildEmail is the whole email of d. How it is composed and cut to a
// size is package mail's, and tested there.
func buildEmail(t *testing.T, d Digest, siteURL string) Email {
	t.Helper()
	draft, err := DigestEmail(d, testFrom, siteURL)
	if err != nil {
		t.Fatal(err)
	}
	e, err := draft.FirstEntries(draft.Entries())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func emailHTML(t *testing.T, d Digest) string {
	return buildEmail(t, d, "https://example.org/digest/").HTML
}

// header is the value of e's further header name.
func header(e Email, name string) string {
	for _, h := range e.Headers {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

func TestEmailHeadersAndParts(t *testing.T) {
	e := buildEmail(t, sampleDigest(t), "https://example.org/digest/")
	want := map[string]string{
		"Subject":        "Your digest for Sunday 22 November: 3 new from 2 feeds",
		"Message-Id":     "digest-2020-11-22-ada@example.org",
		"Auto-Submitted": "auto-generated",
		"To":             "ada@example.org",
		"Date":           "Sun, 22 Nov 2020 00:05:00 +0000",
	}
	got := map[string]string{"Subject": e.Subject, "Message-Id": e.MessageID, "Auto-Submitted": header(e, "Auto-Submitted"),
		"To": e.To, "Date": e.Date.Format(time.RFC1123Z)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if !strings.Contains(header(e, "List-Id"), "<ada.digest.example.org>") {
		t.Errorf("List-Id = %q", header(e, "List-Id"))
	}
	if from, err := netmail.ParseAddress(e.From); err != nil || from.Address != "digest@example.org" {
		t.Errorf("From = %q (%v)", e.From, err)
	}
	text, html := e.Text, e.HTML
	if text == "" || html == "" {
		t.Fatal("want both parts")
	}
	for _, s := range []string{"Digest for Sunday 22 November 2020", "Example Blog", "Hello world",
		"https://blog.example.org/posts/hello", "First post. See about me", "https://example.org/digest/ada/2020-11-22.html"} {
		if !strings.Contains(text, s) {
			t.Errorf("plain text lacks %q", s)
		}
	}
	checkEmailHTML(t, html)
}

// checkEmailHTML: inline styles, the one stylesheet only a dark palette
// for the clients that read it, and every link private.
func checkEmailHTML(t *testing.T, html string) {
	t.Helper()
	doc := htmltest.Parse(t, html)
	if doc.Find("link").Length() != 0 || doc.Find("style").Length() != 1 {
		t.Error("email HTML depends on a stylesheet")
	}
	if css := strings.TrimSpace(doc.Find("style").Text()); !strings.HasPrefix(css, "@media (prefers-color-scheme: dark) {") || strings.Count(css, "}\n}") != 1 || !strings.HasSuffix(css, "}\n}") {
		t.Errorf("the email's stylesheet holds more than a dark palette:\n%s", css)
	}
	if scheme, _ := doc.Find(`meta[name="color-scheme"]`).Attr("content"); scheme != "light dark" {
		t.Errorf("color-scheme %q, want light dark", scheme)
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
			if a.Key == "rel" && a.Val == htmltest.RelSafe {
				goto ok
			}
		}
		t.Errorf("email link without rel=%q: %v", htmltest.RelSafe, n.Attr)
	ok:
	}
	// At the top, and in the footer.
	if doc.Find(`a[href="https://example.org/digest/ada/2020-11-22.html"]`).Length() != 2 {
		t.Error("email HTML does not link to the web page of the digest, at the top and in its footer")
	}
}

// TestEmailIsReproducible: everything that varies between builds comes
// from the digest (mail's tests check the composed bytes).
func TestEmailIsReproducible(t *testing.T) {
	a := buildEmail(t, sampleDigest(t), "")
	b := buildEmail(t, sampleDigest(t), "")
	if !reflect.DeepEqual(a, b) {
		t.Error("two builds of one digest differ")
	}
	other := sampleDigest(t)
	other.Date = "2020-11-23"
	if e := buildEmail(t, other, ""); e.MessageID != "digest-2020-11-23-ada@example.org" || e.Boundary == a.Boundary {
		t.Errorf("another day: Message-ID %q, boundary %q", e.MessageID, e.Boundary)
	}
}

func TestEmailWithoutSiteURLHasNoWebLink(t *testing.T) {
	e := buildEmail(t, sampleDigest(t), "")
	if strings.Contains(e.Text, "on the web") || strings.Contains(e.HTML, "on the web") {
		t.Error("web link shown without a site URL")
	}
}

// With site_url both parts link the day's page, where the full texts are;
// without it an email cut short says where the page is among the pages
// written, and links nothing.
func TestEmailLinksTheDaysPage(t *testing.T) {
	const page = "https://example.org/digest/ada/2020-11-22.html"
	cut := func(siteURL string) Email {
		draft, err := DigestEmail(sampleDigest(t), testFrom, siteURL)
		if err != nil {
			t.Fatal(err)
		}
		e, err := draft.FirstEntries(1)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for name, e := range map[string]Email{"whole": buildEmail(t, sampleDigest(t), "https://example.org/digest/"), "cut": cut("https://example.org/digest/")} {
		if !strings.Contains(e.Text, "Read this digest on the web, with each entry in full:\n"+page+"\n") {
			t.Errorf("%s: the text part does not link the page:\n%s", name, e.Text)
		}
		if !strings.Contains(e.HTML, `<a href="`+page+`" rel="noopener noreferrer" style="color:#0645ad">Read this digest on the web</a>`) {
			t.Errorf("%s: the HTML part does not link the page", name)
		}
	}
	e := cut("")
	const where = "on this digest's page (ada/2020-11-22.html among the pages feeddigest writes)."
	if !strings.Contains(strings.Join(strings.Fields(e.Text), " "), where) || !strings.Contains(html.UnescapeString(e.HTML), where) {
		t.Errorf("a cut email without site_url does not say where the page is:\n%s\n%s", e.Text, e.HTML)
	}
	if strings.Contains(e.HTML, `href="ada/2020-11-22.html"`) || strings.Contains(e.Text, "https://example.org") {
		t.Error("a cut email without site_url links a page")
	}
}

func TestEmailNeedsRecipient(t *testing.T) {
	d := sampleDigest(t)
	d.Email = ""
	if _, err := DigestEmail(d, testFrom, ""); !errors.Is(err, ErrNoRecipient) {
		t.Errorf("err = %v, want ErrNoRecipient", err)
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
	text := buildEmail(t, d, "").Text
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

// bidiControls are the embeddings, overrides and isolates (LRE, RLE, PDF,
// LRO, RLO, LRI, RLI, FSI, PDI) that ingest.StripControl drops.
const bidiControls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

func isBidiControl(r rune) bool { return strings.ContainsRune(bidiControls, r) }

// TestEmailPlainTextHasNoBidiOverrides: a title, a feed's name, an author
// and a text that turn the rest of their line around reach the plain
// text as their letters, in order; the HTML part, whose dir="auto"
// elements contain them, keeps them.
func TestEmailPlainTextHasNoBidiOverrides(t *testing.T) {
	d := sampleDigest(t)
	g := &d.Groups[0]
	g.FeedName = "Feed \u202eeman\u202c"
	g.Entries[0].Title = "\u2067Title\u2069 \u202dLRO"
	g.Entries[0].Author = "\u202bAda"
	g.Entries[0].Content = "<p>Text \u202ereversed &#x202E;entity</p>"
	e := buildEmail(t, d, "")
	for _, r := range e.Text {
		if isBidiControl(r) {
			t.Fatalf("plain text carries %U:\n%q", r, e.Text)
		}
	}
	for _, want := range []string{"Feed eman", "Title LRO", "Ada", "Text reversed entity"} {
		if !strings.Contains(e.Text, want) {
			t.Errorf("no %q in\n%s", want, e.Text)
		}
	}
	if !strings.Contains(e.HTML, "\u202eeman") {
		t.Error("the HTML part lost the feed's own text")
	}
	// The preheader, which mail clients show as plain text beside the
	// subject, has none either.
	_, pre, _ := strings.Cut(e.HTML, `aria-hidden="true" dir="auto">`)
	pre, _, _ = strings.Cut(pre, "</div>")
	if !strings.Contains(pre, "Title LRO") || strings.ContainsFunc(pre, isBidiControl) {
		t.Errorf("preheader %q", pre)
	}
}

// The email ends as a good newsletter does: why the reader gets it, the
// day's page, and how to stop it, in both parts; without an unsubscribe
// address, whom to write to.
func TestEmailFooterSaysWhyAndHowToStop(t *testing.T) {
	d := sampleDigest(t)
	d.Unsubscribe = "https://example.org/unsubscribe?u=ada"
	e := buildEmail(t, d, "https://example.org/digest/")
	footer := htmltest.Parse(t, e.HTML).Find("footer")
	text := strings.Join(strings.Fields(footer.Text()), " ")
	for _, want := range []string{"You get this daily digest of the feeds you follow as “ada”.", "View it in a browser.", "Unsubscribe."} {
		if !strings.Contains(text, want) {
			t.Errorf("the HTML footer lacks %q: %s", want, text)
		}
	}
	if footer.Find(`a[href="https://example.org/unsubscribe?u=ada"]`).Length() != 1 {
		t.Error("the footer does not link the unsubscribe address")
	}
	tail := e.Text[strings.LastIndex(e.Text, "-- \n"):]
	for _, want := range []string{"You get this daily digest of the feeds you follow as “ada”.", "View it in a browser: https://example.org/digest/ada/2020-11-22.html",
		"To stop it, unsubscribe: https://example.org/unsubscribe?u=ada"} {
		if !strings.Contains(tail, want) {
			t.Errorf("the text part's footer lacks %q:\n%s", want, tail)
		}
	}
	d.Unsubscribe, d.Weekly = "", true
	e = buildEmail(t, d, "")
	if text := strings.Join(strings.Fields(htmltest.Parse(t, e.HTML).Find("footer").Text()), " "); !strings.Contains(text, "weekly digest") || !strings.Contains(text, "To stop it, write to digest@example.org.") {
		t.Errorf("without an unsubscribe address the footer does not say whom to write to: %s", text)
	}
}
