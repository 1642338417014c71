package cli

import (
	"strings"
	"testing"

	"feeddigest/pipeline"
)

// The run's report names the outbox and how many emails went there; it
// speaks of emails sent (and failed) only when a mail server is set, so
// that an email written to the outbox never reads as "sent 0".
func TestReportSaysWhereEmailsWent(t *testing.T) {
	for _, tt := range []struct {
		name       string
		sum        pipeline.Summary
		text, mark []string // lines the terminal and the Markdown show
		not        []string // in neither
	}{
		{"outbox only", pipeline.Summary{Outbox: "/srv/fd/outbox", OutboxWritten: 2},
			[]string{"  outbox         2 emails written to /srv/fd/outbox (no smtp set: none mailed)\n"},
			[]string{"| emails written to the outbox, /srv/fd/outbox | 2 |"},
			[]string{"emails sent", "emails failed"}},
		{"outbox and a mail server", pipeline.Summary{Outbox: "/srv/fd/outbox", OutboxWritten: 1, MailServer: true, EmailsSent: 1},
			[]string{"  outbox         1 email written to /srv/fd/outbox\n", "  emails sent    1 (failed 0)\n"},
			[]string{"| emails written to the outbox, /srv/fd/outbox | 1 |", "| emails sent | 1 |", "| emails failed (retried next run) | 0 |"},
			[]string{"none mailed"}},
		{"a mail server only", pipeline.Summary{MailServer: true, EmailsSent: 0, SendFailures: 3},
			[]string{"  emails sent    0 (failed 3)\n"},
			[]string{"| emails sent | 0 |", "| emails failed (retried next run) | 3 |"},
			[]string{"outbox"}},
		{"neither", pipeline.Summary{}, nil, nil, []string{"outbox", "emails"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var text, md strings.Builder
			if err := writeSummary(&text, tt.sum); err != nil {
				t.Fatal(err)
			}
			if err := writeSummaryMarkdown(&md, tt.sum); err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.text {
				if !strings.Contains(text.String(), want) {
					t.Errorf("the report lacks %q:\n%s", want, text.String())
				}
			}
			for _, want := range tt.mark {
				if !strings.Contains(md.String(), want) {
					t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
				}
			}
			for _, not := range tt.not {
				if strings.Contains(text.String(), not) || strings.Contains(md.String(), not) {
					t.Errorf("the report says %q:\n%s\n%s", not, text.String(), md.String())
				}
			}
		})
	}
}
