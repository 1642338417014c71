package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/smtptest"
)

// A mail server that refuses the login (535) sees one login a day, not
// one a run, from the real binary run hourly; status and the run's
// summary say why the mail does not go out. Once the login is fixed the
// newest digest goes out, and only that one: the older ones are given up,
// not flooded into the inbox.
func TestRefusedLoginIsTriedOnceADay(t *testing.T) {
	feeds := slowSite(t, 0, "/ada", "/grace")
	ts := feeds.URL
	mail := smtptest.Start(t, smtptest.OfferSTARTTLS(smtptest.NewSelfSigned(t, time.Now())), smtptest.OfferAuth(smtptest.CRAMMD5))
	mail.RefuseLogins(true)
	dir := t.TempDir()
	smtpURL := strings.Replace(mail.URL(), "smtp://", "smtp://digest@", 1)
	cfg := fmt.Sprintf("[fetch]\nallow_private_networks = true\nhost_rate = 100.0\n"+
		"[email]\nfrom = \"Digest <digest@example.org>\"\nsmtp = %q\ntls = \"opportunistic\"\n", smtpURL)
	for _, u := range []string{"ada", "grace"} {
		cfg += fmt.Sprintf("[[users]]\nname = %q\ntimezone = \"UTC\"\nemail = \"%s@example.org\"\nfeeds = [%q]\n", u, u, ts+"/"+u)
	}
	cfgPath := writeConfig(t, dir, cfg)
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := feeddigest(t, dir, []string{"FEEDDIGEST_SMTP_PASSWORD=wrong"}, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		return stdout
	}
	start := time.Date(2026, 11, 21, 0, 5, 0, 0, time.UTC)
	hour := func(h int) string { return start.Add(time.Duration(h) * time.Hour).Format(time.RFC3339) }
	runHours := func(from, to int) {
		for h := from; h < to; h++ {
			if h%24 == 0 {
				post(feeds, "/ada", fmt.Sprintf("ada-%d", h))
				post(feeds, "/grace", fmt.Sprintf("grace-%d", h))
			}
			run("run", "-config", cfgPath, "-now", hour(h))
		}
	}

	first := run("run", "-config", cfgPath, "-now", hour(0))
	if !strings.Contains(first, "mail not sent: ada: 1 digest not sent (2026-11-21): refused for good") ||
		!strings.Contains(first, "535") || !strings.Contains(first, "Only the newest is tried, once a day") {
		t.Errorf("the run's summary does not say why the mail did not go out:\n%s", first)
	}
	runHours(1, 24)
	if n := mail.Logins(); n != 1 {
		t.Errorf("%d logins in 24 hourly runs, want 1", n)
	}
	status := run("status", "-config", cfgPath, "-now", hour(23))
	for _, want := range []string{"MAIL NOT SENT", "grace: 1 digest not sent (2026-11-21): refused for good", "535", "once a day"} {
		if !strings.Contains(status, want) {
			t.Errorf("status does not say %q:\n%s", want, status)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "site", "status.html"))
	if !bytes.Contains(page, []byte("<h2>Mail not sent</h2>")) || !bytes.Contains(page, []byte("<strong>ada</strong>: 1 digest not sent")) ||
		!bytes.Contains(page, []byte("next try 2026-11-22 00:05 UTC")) {
		t.Errorf("status.html does not list the mail not sent:\n%s", page)
	}
	// publish writes the same page, as at its -now (not the clock's day,
	// when these digests are long given up).
	public := filepath.Join(dir, "public")
	run("publish", "-config", cfgPath, "-out", public, "-now", hour(23))
	if published, err := os.ReadFile(filepath.Join(public, "status.html")); err != nil || !bytes.Equal(published, page) {
		t.Errorf("publish -now wrote another status page (%v):\n%s", err, published)
	}

	runHours(24, 34) // the next day's digests, one login for both
	if n := mail.Logins(); n != 2 {
		t.Errorf("%d logins after two days, want 2", n)
	}
	mail.RefuseLogins(false) // the password is fixed
	runHours(34, 50)
	if got := mailedTimes(t, mail); len(got) != 2 || got["<digest-2026-11-23-ada@example.org>"] != 1 || got["<digest-2026-11-23-grace@example.org>"] != 1 {
		t.Errorf("mailed %v: want the newest digest of each user, once", got)
	}
	if n := mail.Logins(); n != 4 {
		t.Errorf("%d logins in all, want 4: a refused one a day for two days, then one for each digest sent", n)
	}
	status = run("status", "-config", cfgPath, "-now", hour(49))
	if !strings.Contains(status, "ada: Given up: 2026-11-21, 2026-11-22 (superseded by the digest of 2026-11-23") {
		t.Errorf("status does not say the old digests were given up:\n%s", status)
	}
}
