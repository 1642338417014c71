package cli

import (
	"strings"
	"testing"

	"feeddigest/pipeline"
)

// The run's report names what each count of entries counts: those its
// polls saw first, and those of the digests it built (which their pages
// call new). A first digest shows a feed's newest five of 75, and the
// report never puts "new entries 75" beside a page's "5 new entries".
func TestReportSaysWhatItsEntriesCount(t *testing.T) {
	sum := pipeline.Summary{FeedsPolled: 3, NewEntries: 75, DigestsBuilt: 1, DigestEntries: 20}
	var text, md strings.Builder
	if err := writeSummary(&text, sum); err != nil {
		t.Fatal(err)
	}
	if err := writeSummaryMarkdown(&md, sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\n  entries        75 first seen, 20 in the digests built\n") {
		t.Errorf("the report does not say what its entries count:\n%s", text.String())
	}
	for _, row := range []string{"| entries first seen | 75 |", "| entries in the digests built | 20 |"} {
		if !strings.Contains(md.String(), row) {
			t.Errorf("the Markdown report lacks %q:\n%s", row, md.String())
		}
	}
	if all := text.String() + md.String(); strings.Contains(all, "new entries") {
		t.Errorf("the report still says \"new entries\" of a count the pages do not show:\n%s", all)
	}
}
