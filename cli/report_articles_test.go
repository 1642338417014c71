package cli

import (
	"strings"
	"testing"

	"feeddigest/pipeline"
)

// The run's report says how many article pages were asked for and read
// whole, and says nothing of them when no feed has full_text.
func TestReportCountsArticlePages(t *testing.T) {
	for _, tt := range []struct {
		sum        pipeline.Summary
		text, mark string
	}{
		{pipeline.Summary{Requests: 8, Articles: 6, ArticlesRead: 2}, "article pages  6 asked, 2 read whole", "| article pages asked, read whole | 6, 2 |"},
		{pipeline.Summary{Requests: 2}, "", ""},
	} {
		var text, md strings.Builder
		if err := writeSummary(&text, tt.sum); err != nil {
			t.Fatal(err)
		}
		if err := writeSummaryMarkdown(&md, tt.sum); err != nil {
			t.Fatal(err)
		}
		if tt.text == "" {
			if strings.Contains(text.String()+md.String(), "article") {
				t.Errorf("articles reported with none asked:\n%s\n%s", text.String(), md.String())
			}
			continue
		}
		if !strings.Contains(text.String(), tt.text) || !strings.Contains(md.String(), tt.mark) {
			t.Errorf("report lacks the article pages:\n%s\n%s", text.String(), md.String())
		}
	}
}
