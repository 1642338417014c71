package render

import (
	"strings"
	"testing"
)

// What rules left out is one quiet line on the page and in both email
// parts, never in the counts; a day on which rules left out everything
// never says nothing was published.
func TestLeftOutLine(t *testing.T) {
	for _, tt := range []struct {
		name    string
		d       Digest
		subject string // how much the subject says is new
	}{
		{"with entries", goldenDigest(t), "4 new from 3 feeds, 1 feed could not be read"},
		{"all left out", emptyDigest(t), "nothing new"},
	} {
		tt.d.LeftOut = 3
		tt.d.Email = "ada@example.org"
		page, err := DigestPage(tt.d)
		if err != nil {
			t.Fatal(err)
		}
		draft, err := DigestEmail(tt.d, "d@example.org", "")
		if err != nil {
			t.Fatal(err)
		}
		mail, err := draft.FirstEntries(draft.Entries())
		if err != nil {
			t.Fatal(err)
		}
		for part, got := range map[string]string{"page": string(page), "text": mail.Text, "html": mail.HTML} {
			if strings.Count(got, "3 left out by your rules.") != 1 {
				t.Errorf("%s: %s does not say once that 3 were left out", tt.name, part)
			}
			if strings.Contains(got, "Enjoy the quiet day") {
				t.Errorf("%s: %s calls a day with entries left out quiet", tt.name, part)
			}
		}
		if !strings.HasSuffix(mail.Subject, ": "+tt.subject) {
			t.Errorf("%s: subject %q, want it to end %q (left out never counted)", tt.name, mail.Subject, tt.subject)
		}
	}
	page, err := DigestPage(emptyDigest(t))
	if err != nil || strings.Contains(string(page), "left out") {
		t.Errorf("a digest without rules speaks of them (%v)", err)
	}
}
