package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// skipConfig is ada, mailed over SMTP to sink, following feed, with
// [email] skip_empty as given and an unsubscribe address.
func skipConfig(sink *smtptest.Server, feed string, skip bool) string {
	return fmt.Sprintf(`skip_empty = %t
unsubscribe = "https://example.org/unsubscribe?user={user}"
smtp = %q
tls = "none"
[[users]]
name = "ada"
timezone = "Europe/London"
email = "ada@example.org"
feeds = [%q]
`, skip, sink.URL(), feed)
}

// With skip_empty, a day with nothing new and no problem is not mailed
// (nor written to the outbox), its page is written, and it is not tried
// again nor shown as unsent; a day on which the feed failed is mailed,
// saying so in its subject. Every message names the unsubscribe address.
func TestSkipEmptyMailsOnlyDaysWithSomethingToSay(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-21T10:00:00Z"))
		sink := smtptest.Start(t)
		cfg := testConfig(t, state, skipConfig(sink, pub.URL+"/a", true), "")
		eml := func(day string) string { return filepath.Join(cfg.Email.Outbox, "ada-"+day+".eml") }
		page := func(day string) string { return filepath.Join(cfg.SiteDir, "ada", day+".html") }

		if sum := runAt(t, cfg, "2026-11-21T14:00:00Z"); sum.EmailsSent != 1 || sum.EmailsSkipped != 0 {
			t.Fatalf("first day: %+v", sum)
		}
		checkDigestMail(t, sink.Messages()[0], "2026-11-21", "Your digest for Saturday 21 November: 1 new from 1 feed", "https://site.example/a-1")
		h, _ := smtptest.ReadAlternative(t, sink.Messages()[0].Data)
		if got := h.Get("List-Unsubscribe"); got != "<https://example.org/unsubscribe?user=ada>" {
			t.Errorf("List-Unsubscribe = %q", got)
		}
		if got := h.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
			t.Errorf("List-Unsubscribe-Post = %q", got)
		}

		// Nothing new, nothing failed: a page, no mail.
		if sum := runAt(t, cfg, "2026-11-22T00:05:00Z"); sum.DigestsBuilt != 1 || sum.PagesWritten != 1 || sum.EmailsSent != 0 || sum.EmailsSkipped != 1 {
			t.Fatalf("quiet day: %+v", sum)
		}
		if n := len(sink.Messages()); n != 1 {
			t.Errorf("the quiet day was mailed: %d messages", n)
		}
		if _, err := os.Stat(page("2026-11-22")); err != nil {
			t.Errorf("the quiet day has no page: %v", err)
		}
		if _, err := os.Stat(eml("2026-11-22")); !os.IsNotExist(err) {
			t.Errorf("the quiet day's email is in the outbox (%v)", err)
		}
		if sum := runAt(t, cfg, "2026-11-22T01:05:00Z"); sum.EmailsSent != 0 || sum.EmailsSkipped != 0 || sum.SendFailures != 0 {
			t.Errorf("the next run went back to the quiet day: %+v", sum)
		}
		rows, err := MailStatus(t.Context(), cfg, at("2026-11-22T01:10:00Z"))
		if err != nil || len(rows) != 0 {
			t.Errorf("mail status after the quiet day: %+v (%v), want nothing unsent", rows, err)
		}

		// The feed fails: nothing new, but something to say.
		pub.Respond("/a", feedtest.Response{Status: 500})
		if sum := runAt(t, cfg, "2026-11-23T00:05:00Z"); sum.EmailsSent != 1 || sum.EmailsSkipped != 0 {
			t.Fatalf("day the feed failed: %+v", sum)
		}
		msgs := sink.Messages()
		if len(msgs) != 2 {
			t.Fatalf("%d messages, want the failed day's too", len(msgs))
		}
		h, parts := smtptest.ReadAlternative(t, msgs[1].Data)
		if got, want := h.Get("Subject"), "Your digest for Monday 23 November: nothing new, 1 feed could not be read"; got != want {
			t.Errorf("Subject = %q, want %q", got, want)
		}
		if !strings.Contains(readable(parts["text/plain"]), "Could not read") {
			t.Errorf("the failed day's mail does not say what could not be read:\n%s", parts["text/plain"])
		}
		for _, f := range []string{page("2026-11-23"), eml("2026-11-23")} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("the failed day: %v", err)
			}
		}
	})
}

// Without skip_empty (the default), a quiet day is mailed and says so.
func TestQuietDayMailedByDefault(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-21T10:00:00Z"))
		sink := smtptest.Start(t)
		cfg := testConfig(t, state, skipConfig(sink, pub.URL+"/a", false), "")
		runAt(t, cfg, "2026-11-21T14:00:00Z")
		if sum := runAt(t, cfg, "2026-11-22T00:05:00Z"); sum.EmailsSent != 1 || sum.EmailsSkipped != 0 {
			t.Fatalf("quiet day: %+v", sum)
		}
		msgs := sink.Messages()
		if len(msgs) != 2 {
			t.Fatalf("%d messages, want 2", len(msgs))
		}
		h, _ := smtptest.ReadAlternative(t, msgs[1].Data)
		if got, want := h.Get("Subject"), "Your digest for Sunday 22 November: nothing new"; got != want {
			t.Errorf("Subject = %q, want %q", got, want)
		}
	})
}

// A weekly user added on a Thursday: the first digest, dated the Friday
// before, and the next, on Friday, are titled by the days each covers (the
// first its week up to the day it was built, the next from then on), in
// the email, on the page and in the index; never "the week of" a date.
func TestWeeklyUserAddedOnThursday(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-25T10:00:00Z"))
		cfg := testConfig(t, state, `[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	every = "week"
	digest_day = "friday"
	feeds = ["`+pub.URL+`/a"]
	`, "")
		// No mail server: the summary counts the email written to the outbox.
		if sum := runAt(t, cfg, "2026-11-26T09:00:00Z"); sum.OutboxWritten != 1 || sum.Outbox != cfg.Email.Outbox || sum.MailServer || sum.EmailsSent != 0 { // Thursday 26 November
			t.Errorf("summary %+v: want 1 email written to the outbox %s, no mail server", sum, cfg.Email.Outbox)
		}
		pub.Add("/a", entry("a-2", "2026-11-26T15:00:00Z"))
		runAt(t, cfg, "2026-11-27T00:05:00Z") // Friday 27 November
		for _, tt := range []struct{ date, subject, title string }{
			{"2026-11-20", "Your digest for 20-26 November: 1 new from 1 feed", "Digest for 20-26 November 2026"},
			{"2026-11-27", "Your digest for 26-27 November: 1 new from 1 feed", "Digest for 26-27 November 2026"},
		} {
			h, _ := smtptest.ReadAlternative(t, []byte(readFile(t, filepath.Join(cfg.Email.Outbox, "ada-"+tt.date+".eml"))))
			if got := h.Get("Subject"); got != tt.subject {
				t.Errorf("Subject = %q, want %q", got, tt.subject)
			}
			if page := readFile(t, filepath.Join(cfg.SiteDir, "ada", tt.date+".html")); !strings.Contains(page, "<h1>"+tt.title+"</h1>") {
				t.Errorf("the page of %s is not titled %q", tt.date, tt.title)
			}
		}
		index := readFile(t, filepath.Join(cfg.SiteDir, "ada", "index.html"))
		for _, want := range []string{`<a href="2026-11-27.html">26-27 November 2026</a>`, `<a href="2026-11-20.html">20-26 November 2026</a>`} {
			if !strings.Contains(index, want) {
				t.Errorf("the index lacks %s", want)
			}
		}
		if strings.Contains(index, "week of") {
			t.Error("the index says \"week of\"")
		}
	})
}
