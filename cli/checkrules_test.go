package cli

import (
	"bytes"
	"testing"

	"feeddigest/domain"
)

// check names what a rule would leave out by different titles, each once:
// three entries sharing a title (one story in three feeds) are one
// title, said to be three.
func TestRuleLineNamesEachTitleOnce(t *testing.T) {
	left := []domain.Entry{{Title: "Sponsored: a mattress"}, {Title: "Sponsored: a mattress"}, {Title: "Sponsored: a mattress"},
		{Title: "Giveaway"}, {Link: "https://a.example/x"}, {Title: "Sponsored: a sofa"}}
	var b bytes.Buffer
	writeRuleLine(&b, `mute "title:sponsored|giveaway"`, left)
	want := `    mute "title:sponsored|giveaway": would leave out 6: "Sponsored: a mattress" (3 times), "Giveaway", "(untitled) https://a.example/x", ...` + "\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
