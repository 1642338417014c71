package e2e

import (
	"fmt"
	"net/mail"
	"strings"
	"testing"
	"time"
)

// A digest goes through a real local relay (exim4) that offers STARTTLS
// with a self-signed certificate, as small relays do, with a login:
// with tls = "opportunistic" (encrypted, unverified) and with "starttls"
// plus tls_ca (verified against the relay's own certificate), into a
// Maildir. With "starttls" alone the send fails for good, and the run
// says which certificate and what to set.
func TestDigestThroughLocalRelay(t *testing.T) {
	r := startRelay(t)
	feeds := slowSite(t, 0, "/ada")
	post(feeds, "/ada", "ada-1")
	smtpURL := fmt.Sprintf("smtp://%s@127.0.0.1:%d", relayUser, r.Port)
	start := time.Date(2026, 11, 21, 0, 5, 0, 0, time.UTC)
	for i, tt := range []struct {
		name, tls string
		checked   string // what check says of the connection
		delivered int    // in the Maildir after this case
	}{
		{"starttls without tls_ca", "tls = \"starttls\"\n", "email.tls_ca", 0},
		{"opportunistic", "tls = \"opportunistic\"\n", "encrypted, certificate not verified", 1},
		{"starttls with tls_ca", fmt.Sprintf("tls = \"starttls\"\ntls_ca = %q\n", r.CAFile), "encrypted, certificate verified", 2},
	} {
		dir := t.TempDir()
		cfg := writeConfig(t, dir, fmt.Sprintf("[fetch]\nallow_private_networks = true\n"+
			"[email]\nfrom = \"Digest <digest@example.org>\"\nsmtp = %q\n%s"+
			"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nemail = \"ada@example.org\"\nfeeds = [%q]\n", smtpURL, tt.tls, feeds.URL+"/ada"))
		env := []string{"FEEDDIGEST_SMTP_PASSWORD=" + relayPassword}
		code, stdout, stderr := feeddigest(t, dir, env, "check", "-config", cfg)
		if (code == 0) != (tt.delivered > 0) || !strings.Contains(stdout, tt.checked) ||
			(tt.delivered > 0 && !strings.Contains(stdout, "accepted for "+relayUser)) {
			t.Errorf("%s: check exits %d and says:\n%s%s", tt.name, code, stdout, stderr)
		}
		code, stdout, stderr = feeddigest(t, dir, env,
			"run", "-config", cfg, "-now", start.Add(time.Duration(i)*time.Hour).Format(time.RFC3339))
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", tt.name, code, stdout, stderr)
		}
		if tt.delivered == 0 {
			for _, want := range []string{"CN=relay.test", "email.tls_ca", "refused for good"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("%s: the run does not say %q:\n%s", tt.name, want, stdout)
				}
			}
			continue
		}
		msgs := r.Delivered(t, tt.delivered)
		if len(msgs) != tt.delivered {
			t.Fatalf("%s: %d messages in the Maildir, want %d", tt.name, len(msgs), tt.delivered)
		}
	}
	log := r.Log()
	if n := strings.Count(log, " X=TLS"); n < 2 {
		t.Errorf("exim logged %d messages received over TLS, want 2:\n%s", n, log)
	}
	if n := strings.Count(log, "A=plain:"+relayUser); n < 2 {
		t.Errorf("exim logged %d logins as %s, want 2:\n%s", n, relayUser, log)
	}
	for _, raw := range r.Delivered(t, 2) {
		msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if to := msg.Header.Get("To"); !strings.Contains(to, "ada@example.org") {
			t.Errorf("delivered a message to %q", to)
		}
	}
}
