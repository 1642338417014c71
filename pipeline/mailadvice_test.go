package pipeline

import (
	"errors"
	"strings"
	"testing"

	"feeddigest/mail"
)

// A send that fails for the configuration says what to set; the failure
// stays a *mail.Error, sorted as before.
func TestMailAdviceNamesTheKeys(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"certificate, system roots", &mail.Error{Err: &mail.CertificateError{Host: "127.0.0.1", Err: errors.New("unknown authority")}},
			`set email.tls_ca to its certificate (a PEM file), or email.tls = "opportunistic"`},
		{"certificate, tls_ca", &mail.Error{Err: &mail.CertificateError{Host: "127.0.0.1", CAFile: "relay.pem", Err: errors.New("unknown authority")}},
			"check that email.tls_ca is the relay's current certificate"},
		{"login without STARTTLS", &mail.Error{Err: mail.ErrLoginNeedsTLS}, "drop the user from email.smtp"},
		{"anything else", &mail.Error{Err: errors.New("535 no")}, ""},
	} {
		got := MailAdvice(tt.err)
		var failure *mail.Error
		if !errors.As(got, &failure) {
			t.Errorf("%s: %v is no longer a *mail.Error", tt.name, got)
		}
		if tt.want == "" && got != tt.err || tt.want != "" && !strings.Contains(got.Error(), tt.want) {
			t.Errorf("%s: %q, want it to say %q", tt.name, got, tt.want)
		}
	}
}
