package mail_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/internal/smtptest"
	"feeddigest/mail"
	"feeddigest/render"
	"github.com/emersion/go-sasl"
)

const testFrom = "Digest <digest@example.org>"

// digestEmail is the digest email render builds for ada on date, with
// one entry, "Hello world".
func digestEmail(t *testing.T, date string) *mail.Message {
	t.Helper()
	built, err := time.Parse(time.DateOnly, date)
	if err != nil {
		t.Fatal(err)
	}
	d := render.Digest{
		User: "ada", Email: "ada@example.org", Date: date, Location: time.UTC, BuiltAt: built.Add(5 * time.Minute),
		Groups: []render.FeedGroup{{
			FeedURL: "https://blog.example.org/feed.xml", FeedName: "Example Blog", SiteURL: "https://blog.example.org/",
			Entries: []domain.Entry{{Title: "Hello world", Link: "https://blog.example.org/posts/hello",
				Content: "<p>First post.</p>", FirstSeen: built}},
		}},
	}
	draft, err := render.DigestEmail(d, testFrom, "https://example.org/digest/")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ComposeDigest(draft)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func messageBytes(t *testing.T, msg *mail.Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSendOverSMTP(t *testing.T) {
	sink := smtptest.Start(t)
	port := sink.Port()
	msg := digestEmail(t, "2020-11-22")
	// Opportunistic STARTTLS: the test server offers none, so plain SMTP.
	s, err := mail.NewSender("127.0.0.1", port, "", "", false, mail.WithTimeout(5*time.Second), mail.WithHELO("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	got := sink.Messages()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	if got[0].From != "digest@example.org" || strings.Join(got[0].To, ",") != "ada@example.org" {
		t.Errorf("envelope from %q to %q", got[0].From, got[0].To)
	}
	h, parts := smtptest.ReadAlternative(t, got[0].Data)
	if h.Get("Message-Id") != "<digest-2020-11-22-ada@example.org>" || h.Get("Auto-Submitted") != "auto-generated" {
		t.Errorf("headers lost in transit: %v", h)
	}
	if !strings.Contains(parts["text/plain"], "Hello world") {
		t.Error("plain part lost in transit")
	}
	// The server has the message byte for byte as built: nothing added,
	// nothing lost (compose_test checks those bytes).
	if want := messageBytes(t, msg); !bytes.Equal(got[0].Data, want) {
		t.Errorf("message changed in transit:\n%s\nwant:\n%s", got[0].Data, want)
	}

	sink.Stop()
	if err := s.Send(context.Background(), msg); err == nil {
		t.Error("Send to a stopped server reported success")
	}
}

func TestSendWithoutTLSOption(t *testing.T) {
	sink := smtptest.Start(t)
	port := sink.Port()
	s, err := mail.NewSender("127.0.0.1", port, "", "", false, mail.WithoutTLS())
	if err != nil {
		t.Fatal(err)
	}
	a, b := digestEmail(t, "2020-11-22"), digestEmail(t, "2020-11-23")
	if err := s.Send(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	if n := len(sink.Messages()); n != 2 {
		t.Errorf("server received %d messages, want 2", n)
	}
	if err := s.Send(context.Background()); err != nil {
		t.Errorf("sending nothing: %v", err)
	}
}

func TestSendKeepsPasswordOffPlainConnections(t *testing.T) {
	sink := smtptest.Start(t, smtptest.OfferAuth(sasl.Plain))
	port := sink.Port()
	s, err := mail.NewSender("127.0.0.1", port, "ada", "secret", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), digestEmail(t, "2020-11-22")); err == nil {
		t.Error("sent with AUTH PLAIN over an unencrypted connection")
	}
	if n := len(sink.Messages()); n != 0 {
		t.Errorf("server received %d messages", n)
	}
}

func TestRequiredTLSRefusesAPlainServer(t *testing.T) {
	sink := smtptest.Start(t)
	port := sink.Port()
	s, err := mail.NewSender("127.0.0.1", port, "", "", false, mail.WithRequiredTLS(), mail.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), digestEmail(t, "2020-11-22")); err == nil {
		t.Error("sent to a server without STARTTLS although TLS is required")
	}
	if n := len(sink.Messages()); n != 0 {
		t.Errorf("server received %d messages", n)
	}
}

func TestSendFailuresAreSorted(t *testing.T) {
	tests := []struct {
		name                      string
		setup                     func(*smtptest.Server)
		temporary, beforeMessages bool
	}{
		{"server down", (*smtptest.Server).Stop, true, true},
		{"login refused (535)", func(s *smtptest.Server) { s.RefuseLogins(true) }, false, true},
		{"DATA deferred (451)", func(s *smtptest.Server) { s.SetFailing(true) }, true, false},
		{"DATA refused (554)", func(s *smtptest.Server) { s.SetRejecting(true) }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := smtptest.Start(t, smtptest.OfferSTARTTLS(smtptest.NewSelfSigned(t, time.Now())), smtptest.OfferAuth(smtptest.CRAMMD5))
			port := sink.Port()
			tt.setup(sink)
			s, err := mail.NewSender("127.0.0.1", port, "ada", "secret", false, mail.WithTimeout(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Send(context.Background(), digestEmail(t, "2020-11-22"))
			var failure *mail.Error
			if !errors.As(err, &failure) {
				t.Fatalf("Send: %v, want a *mail.Error", err)
			}
			if failure.Temporary != tt.temporary || failure.BeforeMessages != tt.beforeMessages {
				t.Errorf("%v: temporary %v, before messages %v; want %v, %v", err, failure.Temporary, failure.BeforeMessages, tt.temporary, tt.beforeMessages)
			}
		})
	}
}

// A login is never sent unencrypted, not even CRAM-MD5's digest: with a
// user and opportunistic TLS, a server without STARTTLS is refused
// before AUTH, for good, with a message that says what to change.
func TestLoginRefusedOnPlainConnections(t *testing.T) {
	sink := smtptest.Start(t, smtptest.OfferAuth(smtptest.CRAMMD5))
	s, err := mail.NewSender("127.0.0.1", sink.Port(), "ada", "secret", false, mail.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), digestEmail(t, "2020-11-22"))
	var failure *mail.Error
	if !errors.As(err, &failure) || !errors.Is(err, mail.ErrLoginNeedsTLS) || failure.Temporary || !failure.BeforeMessages {
		t.Fatalf("Send: %v (%+v), want a permanent ErrLoginNeedsTLS before any message", err, failure)
	}
	if sink.Logins() != 0 || len(sink.Messages()) != 0 {
		t.Errorf("%d logins, %d messages; want none", sink.Logins(), len(sink.Messages()))
	}
}

// Opportunistic TLS is what mail servers mean by it: a relay's
// self-signed certificate encrypts the connection, unverified, and the
// login goes over it.
func TestOpportunisticTLSAcceptsASelfSignedRelay(t *testing.T) {
	cert := smtptest.NewSelfSigned(t, time.Now())
	sink := smtptest.Start(t, smtptest.OfferSTARTTLS(cert), smtptest.OfferAuth(sasl.Plain))
	for _, user := range []string{"", "ada"} {
		s, err := mail.NewSender("127.0.0.1", sink.Port(), user, "secret", false, mail.WithTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(context.Background(), digestEmail(t, "2020-11-22")); err != nil {
			t.Fatalf("user %q: %v", user, err)
		}
	}
	msgs := sink.Messages()
	if len(msgs) != 2 || !msgs[0].Encrypted || !msgs[1].Encrypted || sink.Logins() != 1 {
		t.Errorf("%d messages (%+v), %d logins; want 2 encrypted, 1 login", len(msgs), msgs, sink.Logins())
	}
}

// Required TLS verifies: a self-signed relay is refused, for good, with
// a message naming the certificate and email.tls_ca; trusted by its own
// certificate through TrustedCA, it is used.
func TestRequiredTLSVerifiesAgainstTrustedCA(t *testing.T) {
	cert := smtptest.NewSelfSigned(t, time.Now())
	sink := smtptest.Start(t, smtptest.OfferSTARTTLS(cert))
	s, err := mail.NewSender("127.0.0.1", sink.Port(), "", "", false, mail.WithRequiredTLS(), mail.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), digestEmail(t, "2020-11-22"))
	var failure *mail.Error
	var certErr *mail.CertificateError
	if !errors.As(err, &failure) || !errors.As(err, &certErr) || failure.Temporary || !failure.BeforeMessages {
		t.Fatalf("Send: %v, want a permanent *mail.CertificateError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "CN=relay.test") || !strings.Contains(msg, "system's trusted roots") {
		t.Errorf("message %q names neither the certificate nor what it was checked against", msg)
	}

	caFile := filepath.Join(t.TempDir(), "relay.pem")
	if err := os.WriteFile(caFile, cert.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	trust, err := mail.TrustedCA(caFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err = mail.NewSender("127.0.0.1", sink.Port(), "", "", false, mail.WithRequiredTLS(), trust, mail.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), digestEmail(t, "2020-11-22")); err != nil {
		t.Fatal(err)
	}
	if msgs := sink.Messages(); len(msgs) != 1 || !msgs[0].Encrypted {
		t.Errorf("messages %+v, want one, encrypted", msgs)
	}
}

func TestTrustedCANeedsACertificate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "relay.pem")
	if err := os.WriteFile(file, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := mail.TrustedCA(file); !errors.Is(err, mail.ErrNoCertificate) {
		t.Errorf("TrustedCA: %v, want ErrNoCertificate", err)
	}
	if _, err := mail.TrustedCA(file + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TrustedCA of a missing file: %v, want ErrNotExist", err)
	}
}

// Probe holds the conversation up to the login and sends nothing.
func TestProbeSendsNothing(t *testing.T) {
	cert := smtptest.NewSelfSigned(t, time.Now())
	sink := smtptest.Start(t, smtptest.OfferSTARTTLS(cert), smtptest.OfferAuth(sasl.Plain))
	s, err := mail.NewSender("127.0.0.1", sink.Port(), "ada", "secret", false, mail.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := (mail.Probe{Encrypted: true, LoggedIn: true}); p != want || sink.Logins() != 1 || len(sink.Messages()) != 0 {
		t.Errorf("probe %+v, %d logins, %d messages; want %+v, 1 login, none", p, sink.Logins(), len(sink.Messages()), want)
	}
	sink.RefuseLogins(true)
	if _, err := s.Probe(context.Background()); err == nil {
		t.Error("probe with a refused login succeeded")
	}
}
