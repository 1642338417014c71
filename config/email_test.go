package config

import (
	"strings"
	"testing"
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
