package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const emailHead = "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n[email]\nfrom = \"d@example.org\"\n"

// TestSMTPErrorsHideThePassword: however the smtp value is mangled, the
// error names the key but never the password.
func TestSMTPErrorsHideThePassword(t *testing.T) {
	for _, smtp := range []string{
		"smtp:digest:S3cr3t@mail.example.org",
		"smtps:digest:S3cr3t@mail.example.org:465",
		"digest:S3cr3t@mail.example.org",
		"smtp//digest:S3cr3t@mail.example.org",
		"smtp://digest:S3cr3t@mail.example.org",
		"imap://digest:S3cr3t@mail.example.org",
		"smtp://digest:S3cr3t@mail.example.org:99999",
		"smtp://digest:S3cr3t@mail.example.org:x",
		"smtp://mail.example.org/?password=S3cr3t",
		"smtp://mail.example.org/S3cr3t",
	} {
		_, err := Parse([]byte(emailHead+"smtp = \""+smtp+"\"\n"), "c.toml")
		if err == nil || !strings.Contains(err.Error(), "email.smtp") || !strings.Contains(err.Error(), "(line 6)") {
			t.Errorf("%q: err %v, want one naming email.smtp on line 6", smtp, err)
		}
		if err != nil && strings.Contains(err.Error(), "S3cr3t") {
			t.Errorf("%q: the error shows the password: %v", smtp, err)
		}
	}
}

func TestSMTPServerParsed(t *testing.T) {
	c, err := Parse([]byte(emailHead+"smtp = \" smtp://me%40example.org@[::1]:2525 \"\ntls = \"opportunistic\"\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := SMTPServer{Host: "::1", Port: 2525, User: "me@example.org"}
	if c.Email.SMTP == nil || *c.Email.SMTP != want || c.Email.TLS != TLSOpportunistic {
		t.Errorf("SMTP = %+v, TLS %q", c.Email.SMTP, c.Email.TLS)
	}
	if got := c.Email.SMTP.String(); got != "smtp://me@example.org@[::1]:2525" {
		t.Errorf("String() = %q", got)
	}
	if c.Fetch.Head != HeadAuto {
		t.Errorf("Head = %q", c.Fetch.Head)
	}
}

func TestTLSNoneNeedsNoUser(t *testing.T) {
	tests := []struct {
		smtp, tls string
		ok        bool
	}{
		{"smtp://digest@mail.example.org", "none", false},
		{"smtp://mail.example.org:25", "none", true},
		{"smtp://digest@mail.example.org", "opportunistic", true},
		{"smtp://digest@mail.example.org", "starttls", true},
		{"smtps://digest@mail.example.org", "none", true}, // smtps is always TLS
	}
	for _, tt := range tests {
		_, err := Parse([]byte(emailHead+"smtp = \""+tt.smtp+"\"\ntls = \""+tt.tls+"\"\n"), "c.toml")
		if (err == nil) != tt.ok {
			t.Errorf("%s with tls %q: err %v", tt.smtp, tt.tls, err)
		}
		if err != nil && !containsAll(err.Error(), []string{"email.tls", `"none"`, `"digest"`, "(line 7)"}) {
			t.Errorf("%s with tls %q: error %v does not say why", tt.smtp, tt.tls, err)
		}
	}
}

func TestUserNamesStartWithALetterOrDigit(t *testing.T) {
	for name, ok := range map[string]bool{"-": false, "--": false, "-ada": false, "ada-": true, "7": true, "a--b": true} {
		_, err := Parse([]byte("[[users]]\nname = \""+name+"\"\ntimezone = \"UTC\"\n"), "c.toml")
		if (err == nil) != ok {
			t.Errorf("name %q: err %v", name, err)
		}
		if err != nil && !containsAll(err.Error(), []string{`users[0]: name "` + name + `"`, "start with a letter or digit", "(line 2)"}) {
			t.Errorf("name %q: %v", name, err)
		}
	}
}

func TestErrorCount(t *testing.T) {
	_, err := Parse([]byte("x = 1\n"+okUser), "c.toml")
	e, ok := err.(*Error)
	if !ok || e.Count() != "1 error" {
		t.Errorf("one problem: %#v", err)
	}
	_, err = Parse([]byte("x = 1\ny = 2\n"+okUser), "c.toml")
	if e, ok := err.(*Error); !ok || e.Count() != "2 errors" || len(e.Problems) != 2 {
		t.Errorf("two problems: %#v", err)
	}
	_, err = Parse([]byte("x = \n"), "c.toml")
	if e, ok := err.(*Error); !ok || e.Count() != "1 error" {
		t.Errorf("syntax error: %#v", err)
	}
}

func TestUnsubscribeAddress(t *testing.T) {
	tests := []struct {
		value, wantErr, forAda string
	}{
		{"mailto:unsubscribe@example.org", "", "mailto:unsubscribe@example.org"},
		{"mailto:unsubscribe@example.org?subject=unsubscribe%20{user}", "", "mailto:unsubscribe@example.org?subject=unsubscribe%20ada"},
		{" https://example.org/unsubscribe?user={user} ", "", "https://example.org/unsubscribe?user=ada"},
		{"http://example.org/unsubscribe", "is not https", ""},
		{"ftp://example.org/unsubscribe", "is not a mailto: or https: address", ""},
		{"unsubscribe@example.org", "is not a mailto: or https: address", ""},
		{"mailto:", "names no valid address", ""},
		{"mailto:not an address", "has a space", ""},
		{"mailto:nobody", "names no valid address", ""},
		{"https:///unsubscribe", "names no host", ""},
		{"https://example.org/u?<x>", "angle brackets", ""},
		{"https://example.org/u/{name}", "braces other than {user}", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		c, err := Parse([]byte(emailHead+"unsubscribe = \""+tt.value+"\"\n"), "c.toml")
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.value, err)
			} else if got := c.Email.UnsubscribeFor("ada"); got != tt.forAda {
				t.Errorf("%q: for ada %q, want %q", tt.value, got, tt.forAda)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "email.unsubscribe") || !strings.Contains(err.Error(), tt.wantErr) ||
			!strings.Contains(err.Error(), "(line 6)") {
			t.Errorf("%q: err %v, want one naming email.unsubscribe on line 6 and saying %q", tt.value, err, tt.wantErr)
		}
	}
}

func TestSkipEmpty(t *testing.T) {
	c, err := Parse([]byte(emailHead), "c.toml")
	if err != nil || c.Email.SkipEmpty {
		t.Fatalf("default skip_empty = %v (%v), want false", c.Email.SkipEmpty, err)
	}
	c, err = Parse([]byte(emailHead+"skip_empty = true\n"), "c.toml")
	if err != nil || !c.Email.SkipEmpty {
		t.Errorf("skip_empty = true read as %v (%v)", c.Email.SkipEmpty, err)
	}
	_, err = Parse([]byte(emailHead+"skip_empty = \"yes\"\n"), "c.toml")
	if err == nil || !strings.Contains(err.Error(), "email.skip_empty: want true or false, got string") {
		t.Errorf("skip_empty = \"yes\": err %v", err)
	}
}

// email.tls = "tls" is implicit TLS on an smtp:// URL: port 465 unless
// the URL gives one.
func TestImplicitTLSMode(t *testing.T) {
	for _, tt := range []struct {
		smtp string
		port int
	}{{"smtp://mail.example.org", 465}, {"smtp://mail.example.org:2465", 2465}} {
		c, err := Parse([]byte(emailHead+"smtp = \""+tt.smtp+"\"\ntls = \"tls\"\n"), "c.toml")
		if err != nil {
			t.Fatal(err)
		}
		if srv := c.Email.SMTP; !srv.ImplicitTLS || srv.Port != tt.port || c.Email.TLS != TLSImplicit {
			t.Errorf("%s: %+v, TLS %q; want implicit TLS on %d", tt.smtp, srv, c.Email.TLS, tt.port)
		}
	}
}

// tls_ca is resolved against the config's folder and read when the
// config is: a missing file, one without a certificate, or a mode that
// verifies nothing are errors naming the key.
func TestTLSCA(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "relay.pem"), testCertPEM(t))
	writeFile(t, filepath.Join(dir, "junk.pem"), []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
	cfg := filepath.Join(dir, "c.toml")
	for _, tt := range []struct {
		tls, ca, wantErr string
	}{
		{"starttls", "relay.pem", ""},
		{"tls", "relay.pem", ""},
		{"", "relay.pem", ""},
		{"starttls", "missing.pem", "missing.pem"},
		{"starttls", "junk.pem", "no PEM certificate"},
		{"opportunistic", "relay.pem", "verifies no certificate"},
		{"none", "relay.pem", "verifies no certificate"},
	} {
		tlsLine := ""
		if tt.tls != "" {
			tlsLine = "tls = \"" + tt.tls + "\"\n"
		}
		c, err := Parse([]byte(emailHead+"smtp = \"smtp://mail.example.org\"\n"+tlsLine+"tls_ca = \""+tt.ca+"\"\n"), cfg)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), "email.tls_ca") || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("tls %q, tls_ca %q: err %v, want one naming email.tls_ca and %q", tt.tls, tt.ca, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("tls %q, tls_ca %q: %v", tt.tls, tt.ca, err)
		}
		if want := filepath.Join(dir, tt.ca); c.Email.TLSCA != want {
			t.Errorf("TLSCA = %q, want %q", c.Email.TLSCA, want)
		}
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// testCertPEM is a self-signed certificate, PEM.
func testCertPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relay.test"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
