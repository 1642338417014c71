package render

import (
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/locale"
)

// A feed's problem is kept as a code with its facts and worded here; the
// words an older version kept instead are shown as they were (those it
// wrote itself read as the code they stood for).
func TestProblemCodesInWords(t *testing.T) {
	expired := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		code   domain.ProblemCode
		legacy string
		want   string
	}{
		{code: domain.HTTPProblem(404), want: "not found (404)"},
		{code: domain.HTTPProblem(410), want: "gone (410)"},
		{code: domain.HTTPProblem(403), want: "access refused (403)"},
		{code: domain.HTTPProblem(429), want: "too many requests (429)"},
		{code: domain.HTTPProblem(503), want: "server error (503)"},
		{code: domain.HTTPProblem(418), want: "error (418)"},
		{code: domain.ProblemCode{Kind: domain.ProblemNotFeed}, want: "not a feed"},
		{code: domain.ProblemCode{Kind: domain.ProblemRunDied}, want: "stopped the program while being read"},
		{code: domain.ProblemCode{Kind: domain.ProblemRefused, Host: "127.0.0.1:8000"}, want: "connection refused by 127.0.0.1:8000"},
		{code: domain.ProblemCode{Kind: domain.ProblemRefused}, want: "connection refused by the server"},
		{code: domain.ProblemCode{Kind: domain.ProblemUnknownHost, Host: "go.dev"}, want: "could not find the host go.dev (DNS lookup failed)"},
		{code: domain.ProblemCode{Kind: domain.ProblemTimeout}, want: "the server did not answer in time"},
		{code: domain.ProblemCode{Kind: domain.ProblemCertExpired, Host: "a.example", Expired: expired}, want: "the certificate of a.example expired on 20 Nov 2026"},
		{code: domain.ProblemCode{Kind: domain.ProblemCertExpired, Host: "a.example"}, want: "the certificate of a.example has expired"},
		{code: domain.ProblemCode{Kind: domain.ProblemTLS, Host: "a.example", Detail: "remote error: tls: handshake failure"}, want: "could not set up a secure connection with a.example (remote error: tls: handshake failure)"},
		{code: domain.ProblemCode{Kind: "a-kind-of-a-newer-version", Host: "a.example"}, want: "could not be read"},
		// The code wins over words kept beside it.
		{code: domain.HTTPProblem(500), legacy: "timed out", want: "server error (500)"},
		{code: domain.ProblemCode{Kind: domain.ProblemTLS, Host: "a.example"}, want: "could not connect securely"},
		// A row of an older version: its words.
		{legacy: "not found (404)", want: "not found (404)"},
		{legacy: "could not connect: unknown host", want: "could not connect: unknown host"},
		{legacy: "timed out", want: "timed out"},
		{legacy: "connection refused by a.example:81", want: "connection refused by a.example:81"},
		{legacy: "something else (12)", want: "something else (12)"},
		{legacy: "", want: "could not be read"},
	}
	for _, tt := range tests {
		if got := reasonText(locale.English(), tt.code, tt.legacy, time.UTC); got != tt.want {
			t.Errorf("%+v %q: %q, want %q", tt.code, tt.legacy, got, tt.want)
		}
	}
	fr, err := locale.Match("fr")
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[domain.ProblemCode]string{
		domain.HTTPProblem(404):                               "introuvable (404)",
		{Kind: domain.ProblemRefused, Host: "127.0.0.1:8000"}: "connexion refusée par 127.0.0.1:8000",
	} {
		if got := reasonText(fr, code, "", time.UTC); got != want {
			t.Errorf("in French %+v: %q, want %q", code, got, want)
		}
	}
	// An older version's English words, read as their code, in French.
	if got, want := reasonText(fr, domain.ProblemCode{}, "server error (503)", time.UTC), "erreur du serveur (503)"; got != want {
		t.Errorf("in French, kept as words: %q, want %q", got, want)
	}
}

// Every kind of problem has words of its own in every language, which
// name the host where the code has one (and its facts).
func TestEveryProblemKindHasItsWords(t *testing.T) {
	kinds := []domain.ProblemKind{domain.ProblemRunDied, domain.ProblemPrivateAddress, domain.ProblemTooLarge,
		domain.ProblemTooManyRedirects, domain.ProblemNotFeed}
	for kind := range networkReasons {
		kinds = append(kinds, kind)
	}
	for _, lang := range locale.Offered() {
		l, err := locale.Match(lang.Tag)
		if err != nil {
			t.Fatal(err)
		}
		unreadable := l.T("reason.unreadable")
		for _, kind := range kinds {
			code := domain.ProblemCode{Kind: kind, Host: "host.example", Expired: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Detail: "EOF"}
			got := reasonText(l, code, "", time.UTC)
			_, network := networkReasons[kind]
			if got == unreadable || network && !strings.Contains(got, "host.example") {
				t.Errorf("%s: %s: %q", lang.Tag, kind, got)
			}
		}
	}
}
