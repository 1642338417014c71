package pipeline

import (
	"bytes"
	"fmt"
	netmail "net/mail"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// mailConfig is testConfig with SMTP delivery to sink for one user, ada,
// subscribed to feed. The SMTP keys continue testConfig's [email] table.
func mailConfig(t *testing.T, state backend, sink *smtptest.Server, feed string) *config.Config {
	t.Helper()
	return testConfig(t, state, fmt.Sprintf(`smtp = %q
tls = "none"
[[users]]
name = "ada"
timezone = "Europe/London"
email = "ada@example.org"
feeds = [%q]
`, sink.URL(), feed), "")
}

// checkDigestMail asserts that a received digest mail is whole: envelope,
// headers, both alternatives, and the entry's link in each.
func checkDigestMail(t *testing.T, m smtptest.Message, date, subject, link string) {
	t.Helper()
	if m.From != "digest@example.org" || strings.Join(m.To, ",") != "ada@example.org" {
		t.Errorf("envelope from %q to %q", m.From, m.To)
	}
	h, parts := smtptest.ReadAlternative(t, m.Data)
	if from, err := netmail.ParseAddress(h.Get("From")); err != nil || from.Address != "digest@example.org" {
		t.Errorf("From = %q (%v)", h.Get("From"), err)
	}
	if to, err := netmail.ParseAddress(h.Get("To")); err != nil || to.Address != "ada@example.org" {
		t.Errorf("To = %q (%v)", h.Get("To"), err)
	}
	want := map[string]string{
		"Subject":        subject,
		"Message-Id":     "<digest-" + date + "-ada@example.org>",
		"Auto-Submitted": "auto-generated",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if _, err := h.Date(); err != nil {
		t.Errorf("Date = %q: %v", h.Get("Date"), err)
	}
	text, html := parts["text/plain"], parts["text/html"]
	if text == "" || html == "" {
		t.Fatalf("want a text/plain and a text/html part, got %d parts: %v", len(parts), keysOf(parts))
	}
	if !strings.Contains(text, link) {
		t.Errorf("plain-text part lacks the entry link %s:\n%s", link, text)
	}
	if !strings.Contains(html, `href="`+link+`"`) {
		t.Errorf("HTML part lacks a link to %s:\n%s", link, html)
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func messageID(t *testing.T, raw []byte) string {
	t.Helper()
	m, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return m.Header.Get("Message-Id")
}

// A full run delivers the digest over SMTP, whole; a second run in the same
// hour sends nothing more.
func TestRunSendsDigestOverSMTP(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-21T10:00:00Z"))
		sink := smtptest.Start(t)
		cfg := mailConfig(t, state, sink, pub.URL+"/a")

		sum := runAt(t, cfg, "2026-11-21T14:00:00Z")
		if sum.DigestsBuilt != 1 || sum.EmailsSent != 1 || sum.SendFailures != 0 {
			t.Fatalf("first run: %+v", sum)
		}
		accepted := sink.Messages()
		if len(accepted) != 1 {
			t.Fatalf("server received %d messages, want 1", len(accepted))
		}
		checkDigestMail(t, accepted[0], "2026-11-21", "Your digest for Saturday 21 November: 1 new from 1 feed", "https://site.example/a-1")

		sum = runAt(t, cfg, "2026-11-21T14:40:00Z")
		if sum.UsersDue != 0 || sum.EmailsSent != 0 || sum.SendFailures != 0 {
			t.Errorf("second run in the same hour: %+v", sum)
		}
		if accepted = sink.Messages(); len(accepted) != 1 {
			t.Errorf("after a second run the server has %d messages, want 1", len(accepted))
		}
	})
}

// With the SMTP server down the pass completes and the digest stays
// unsent; the next run, with the server back, sends it exactly once, with
// the Message-ID the outbox copy written at the failed run carries.
func TestRunRetriesSendAfterServerDown(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-21T10:00:00Z"))
		sink := smtptest.Start(t)
		cfg := mailConfig(t, state, sink, pub.URL+"/a")
		sink.Stop()

		sum, err := Run(t.Context(), cfg, Options{Now: at("2026-11-21T14:00:00Z")})
		if err != nil {
			t.Fatalf("a failed send failed the pass: %v", err)
		}
		if sum.DigestsBuilt != 1 || sum.PagesWritten != 1 || sum.EmailsSent != 0 || sum.SendFailures != 1 {
			t.Fatalf("run with the server down: %+v", sum)
		}
		outbox := readFile(t, filepath.Join(cfg.Email.Outbox, "ada-2026-11-21.eml"))

		sink.Restart()
		sum = runAt(t, cfg, "2026-11-21T15:05:00Z")
		if sum.UsersDue != 0 || sum.EmailsSent != 1 || sum.SendFailures != 0 {
			t.Fatalf("run with the server back: %+v", sum)
		}
		accepted := sink.Messages()
		if len(accepted) != 1 {
			t.Fatalf("server received %d messages, want 1", len(accepted))
		}
		checkDigestMail(t, accepted[0], "2026-11-21", "Your digest for Saturday 21 November: 1 new from 1 feed", "https://site.example/a-1")
		if got, want := messageID(t, accepted[0].Data), messageID(t, []byte(outbox)); got != want {
			t.Errorf("retried Message-ID %q, the failed run's outbox copy has %q", got, want)
		}

		for _, now := range []string{"2026-11-21T16:05:00Z", "2026-11-21T16:30:00Z"} {
			if sum := runAt(t, cfg, now); sum.EmailsSent != 0 || sum.SendFailures != 0 {
				t.Errorf("run at %s: %+v", now, sum)
			}
		}
		if accepted = sink.Messages(); len(accepted) != 1 {
			t.Errorf("server received %d messages in all, want exactly 1", len(accepted))
		}
	})
}

// A message the server refused (451 after DATA) is sent again at the next
// run with the same Message-ID and Date, so a client that did get the first
// copy recognises the second.
func TestRetriedSendKeepsMessageID(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-21T10:00:00Z"))
		sink := smtptest.Start(t)
		cfg := mailConfig(t, state, sink, pub.URL+"/a")

		sink.SetFailing(true)
		if sum := runAt(t, cfg, "2026-11-21T14:00:00Z"); sum.EmailsSent != 0 || sum.SendFailures != 1 {
			t.Fatalf("run with DATA refused: %+v", sum)
		}
		sink.SetFailing(false)
		if sum := runAt(t, cfg, "2026-11-21T15:05:00Z"); sum.EmailsSent != 1 || sum.SendFailures != 0 {
			t.Fatalf("retry run: %+v", sum)
		}
		// The next day's digest gets its own Message-ID.
		pub.Add("/a", entry("a-2", "2026-11-21T20:00:00Z"))
		if sum := runAt(t, cfg, "2026-11-22T00:05:00Z"); sum.DigestsBuilt != 1 || sum.EmailsSent != 1 {
			t.Fatalf("next day: %+v", sum)
		}

		accepted, rejected := sink.Messages(), sink.Rejected()
		if len(rejected) != 1 || len(accepted) != 2 {
			t.Fatalf("server refused %d and accepted %d messages, want 1 and 2", len(rejected), len(accepted))
		}
		first, retry := rejected[0].Data, accepted[0].Data
		if a, b := messageID(t, first), messageID(t, retry); a != b || a != "<digest-2026-11-21-ada@example.org>" {
			t.Errorf("Message-ID of the refused copy %q, of the retry %q; want both <digest-2026-11-21-ada@example.org>", a, b)
		}
		h1, _ := smtptest.ReadAlternative(t, first)
		h2, _ := smtptest.ReadAlternative(t, retry)
		if h1.Get("Date") != h2.Get("Date") {
			t.Errorf("Date changed across the retry: %q then %q", h1.Get("Date"), h2.Get("Date"))
		}
		if !bytes.Equal(first, retry) {
			t.Logf("note: the retried message is not byte-identical to the refused one")
		}
		checkDigestMail(t, accepted[1], "2026-11-22", "Your digest for Sunday 22 November: 1 new from 1 feed", "https://site.example/a-2")
	})
}

// A server that defers DATA (451) is tried again after a wait that
// doubles: an hour, two, four, eight; then the digest goes, once.
func TestPassingSendFailuresBackOff(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-21T10:00:00Z"))
		sink := smtptest.Start(t)
		cfg := mailConfig(t, state, sink, pub.URL+"/a")
		sink.SetFailing(true)
		start := at("2026-11-22T00:05:00Z")
		var triedAt []int
		for h := range 16 {
			before := len(sink.Rejected())
			runAt(t, cfg, start.Add(time.Duration(h)*time.Hour).Format(time.RFC3339))
			if len(sink.Rejected()) > before {
				triedAt = append(triedAt, h)
			}
		}
		if want := []int{0, 1, 3, 7, 15}; !slices.Equal(triedAt, want) {
			t.Errorf("tried at hours %v, want %v", triedAt, want)
		}
		sum := runAt(t, cfg, "2026-11-22T16:05:00Z")
		if len(sum.MailProblems) != 1 || !strings.Contains(sum.MailProblems[0], "a passing failure (5 attempts)") ||
			!strings.Contains(sum.MailProblems[0], "Next try 2026-11-23 07:05 UTC.") {
			t.Errorf("summary: %q", sum.MailProblems)
		}
		sink.SetFailing(false)
		for _, now := range []string{"2026-11-23T00:05:00Z", "2026-11-23T07:05:00Z", "2026-11-23T08:05:00Z"} {
			runAt(t, cfg, now)
		}
		if got := mailedDates(t, sink); !slices.Equal(got, []string{"2026-11-23", "2026-11-22"}) {
			t.Errorf("mailed %v: want the new digest at once, the deferred one when its wait is over", got)
		}
	})
}

// mailedDates lists the dates of the digests the server accepted, in order.
func mailedDates(t *testing.T, sink *smtptest.Server) []string {
	var dates []string
	for _, m := range sink.Messages() {
		id := messageID(t, m.Data) // <digest-YYYY-MM-DD-user@domain>
		dates = append(dates, id[len("<digest-"):len("<digest-")+10])
	}
	return dates
}

// A mail server that refuses the login sees one login a pass, however
// many digests the pass builds and whichever claim loops build them side
// by side: every other digest shares the refusal (each try is a login).
func TestRefusedLoginIsTriedOnceAPass(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		sink := smtptest.Start(t, smtptest.OfferSTARTTLS(smtptest.NewSelfSigned(t, time.Now())), smtptest.OfferAuth(smtptest.CRAMMD5))
		sink.RefuseLogins(true)
		var users strings.Builder
		for _, u := range []string{"ada", "bob", "cy", "dee"} {
			pub.Add("/"+u, entry(u+"-1", "2026-11-21T10:00:00Z"))
			fmt.Fprintf(&users, "[[users]]\nname = %q\ntimezone = \"UTC\"\nemail = \"%s@example.org\"\nfeeds = [%q]\n", u, u, pub.URL+"/"+u)
		}
		smtpURL := strings.Replace(sink.URL(), "smtp://", "smtp://digest@", 1)
		cfg := testConfig(t, state, fmt.Sprintf("smtp = %q\ntls = \"opportunistic\"\n%s", smtpURL, users.String()), "")
		sum, err := Run(t.Context(), cfg, Options{Now: at("2026-11-22T00:05:00Z"), SMTPPassword: "wrong"})
		if err != nil {
			t.Fatal(err)
		}
		if sum.DigestsBuilt != 4 || sum.SendFailures != 4 || sum.EmailsSent != 0 {
			t.Errorf("summary %+v: want 4 digests built, 4 not sent", sum)
		}
		if n := sink.Logins(); n != 1 {
			t.Errorf("%d logins for the 4 digests of one pass, want 1", n)
		}
	})
}
