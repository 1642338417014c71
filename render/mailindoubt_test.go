package render

import (
	"strings"
	"testing"
)

// A digest whose user's previous email may not have arrived says so,
// once, on its page and in both email parts, with the previous page's
// link (at site_url in the email); a digest without says nothing.
func TestMailInDoubtLine(t *testing.T) {
	d := goldenDigest(t)
	d.Email = "ada@example.org"
	d.MailInDoubt = "2026-11-19"
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	draft, err := DigestEmail(d, "d@example.org", "https://example.org/digest/")
	if err != nil {
		t.Fatal(err)
	}
	mail, err := draft.FirstEntries(draft.Entries())
	if err != nil {
		t.Fatal(err)
	}
	const says = "may not have arrived: its run was cut off before the mail server answered, and it is not sent again."
	for part, tt := range map[string]struct{ got, link string }{
		"page": {string(page), `<a href="2026-11-19.html">`},
		"text": {mail.Text, "https://example.org/digest/" + d.User + "/2026-11-19.html"},
		"html": {mail.HTML, `href="https://example.org/digest/` + d.User + `/2026-11-19.html"`},
	} {
		flat := strings.Join(strings.Fields(tt.got), " ")
		if strings.Count(flat, says) != 1 || !strings.Contains(flat, "The email of") || !strings.Contains(tt.got, tt.link) {
			t.Errorf("%s does not say once that the email of 2026-11-19 may not have arrived, linking %s:\n%s", part, tt.link, tt.got)
		}
	}
	d.MailInDoubt = ""
	if page, err := DigestPage(d); err != nil || strings.Contains(string(page), "may not have arrived") {
		t.Errorf("a digest whose previous email arrived says it may not have (%v)", err)
	}
}
