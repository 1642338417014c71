package render

import (
	"bytes"
	"testing"

	"feeddigest/domain"
)

// A row of the feed table written by appendStatusRow is the row the
// "status-rows" template writes, whatever its values hold: markup,
// quotes, bytes that are not UTF-8, URLs of every kind.
func FuzzStatusRow(f *testing.F) {
	f.Add("https://a.example/feed?x=1&y='2'", "", "A <b>feed</b> & co", "ada", "", "", "ok", "2026-11-22T00:10:00Z", "Sun 22 Nov", 0, 3)
	f.Add("http://b.example/f (1)", "https://c.example/%41%zz\"q\"", "+plus+", "grace", "HTTP 503: \x00 bad", "penalty (503)", "failing", "", "never", 2, 0)
	f.Add("javascript:alert(1)", "HTTPS://D.EXAMPLE/é\xff", "", "", "", "", "gone", "", "due", 0, 0)
	f.Add("/relative/path", "mailto:x@y", "t", "u1", "e", "r", "dead", "x\"y", "<l>", -1, 12)
	f.Fuzz(func(t *testing.T, url, effective, title, user, lastError, reason, state, iso, label string, errors, entries int) {
		r := statusRow{URL: url, EffectiveURL: effective, Title: title, Subscribers: []string{user, user + "2"},
			LastPoll: timeView{ISO: iso, Label: label}, NextPoll: timeView{Label: label}, LastStatus: reason,
			LastError: lastError, Reason: reason, Server: title + reason, State: domain.FeedState(state), ErrorCount: errors, Entries: entries}
		var want bytes.Buffer
		if err := pageTemplates().ExecuteTemplate(&want, "status-rows", []statusRow{r}); err != nil {
			t.Fatal(err)
		}
		if got := appendStatusRow(nil, r); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("row\n%s\nwant the template's\n%s", got, want.Bytes())
		}
	})
}
