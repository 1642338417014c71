package render

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/locale"
	"feeddigest/parse"
)

// TestEveryProblemHasWords: every code package fetch gives a feed's
// problem (fetch.Result.Problem, kept in the state) is worded by the
// catalogues, in the reader's language: a new kind of problem needs its
// message (reason.* in locale/messages) and its line in render/words.go.
func TestEveryProblemHasWords(t *testing.T) {
	errs := []error{
		&fetch.ErrStatus{Code: 404}, &fetch.ErrStatus{Code: 410}, &fetch.ErrStatus{Code: 401}, &fetch.ErrStatus{Code: 403},
		&fetch.ErrStatus{Code: 429}, &fetch.ErrStatus{Code: 500}, &fetch.ErrStatus{Code: 503}, &fetch.ErrStatus{Code: 418},
		fetch.ErrRunDied, fetch.ErrPrivateAddress, fetch.ErrTooLarge, parse.ErrTooManyNodes, fetch.ErrTooManyRedirects,
		parse.ErrNotFeed, fetch.ErrStillBroken, parse.ErrTooDeep, fetch.ErrEncoding, fetch.ErrHostBusy, context.DeadlineExceeded,
		&net.DNSError{Err: "no such host", Name: "nowhere.example"},
		&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, x509.HostnameError{Host: "a.example"},
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")},
		&url.Error{Op: "Get", URL: "https://a.example/", Err: errors.New("EOF")},
		errors.New("something else"),
	}
	ja, err := locale.Match("ja")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		code := fetch.Result{Err: e}.Problem()
		_, plain := reasons[code.Kind]
		_, network := networkReasons[code.Kind]
		if !plain && !network && code.Kind != domain.ProblemHTTP {
			t.Errorf("%v: fetch's problem %+v has no words in the catalogues", e, code)
		}
		if got := reasonText(ja, code, "", time.UTC); got == reasonText(locale.English(), code, "", time.UTC) {
			t.Errorf("%v: %q is not worded in Japanese", e, got)
		}
	}
}

// TestNetworkFailuresInTheReadersLanguage: each network failure fetch
// names is worded in the reader's language with its facts (the server,
// the day a certificate expired, its names, what the network said), and
// in English in the words the operator is told too (pipeline's
// PollErrorText says them through ProblemText), whether the state keeps
// its code or, from an older version, those same words, which it wrote.
func TestNetworkFailuresInTheReadersLanguage(t *testing.T) {
	expired := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	failures := []struct {
		fetch.NetFailure
		english string
	}{
		{fetch.NetFailure{Kind: fetch.NetUnknownHost, Host: "nowhere.example"}, "could not find the host nowhere.example (DNS lookup failed)"},
		{fetch.NetFailure{Kind: fetch.NetRefused, Host: "127.0.0.1:8000"}, "connection refused by 127.0.0.1:8000"},
		{fetch.NetFailure{Kind: fetch.NetClosed, Host: "a.example"}, "a.example closed the connection before answering"},
		{fetch.NetFailure{Kind: fetch.NetCut, Host: "a.example"}, "a.example cut the connection while sending the feed"},
		{fetch.NetFailure{Kind: fetch.NetTimeout, Host: "a.example"}, "a.example did not answer in time"},
		{fetch.NetFailure{Kind: fetch.NetTimeout}, "the server did not answer in time"},
		{fetch.NetFailure{Kind: fetch.NetUnreachable, Host: "10.1.2.3"}, "could not reach 10.1.2.3 (no route to it)"},
		{fetch.NetFailure{Kind: fetch.NetCertUnknown, Host: "a.example"}, "the certificate of a.example is not signed by a known authority"},
		{fetch.NetFailure{Kind: fetch.NetCertExpired, Host: "a.example"}, "the certificate of a.example has expired"},
		{fetch.NetFailure{Kind: fetch.NetCertExpired, Host: "a.example", Expired: expired}, "the certificate of a.example expired on 20 Nov 2026"},
		{fetch.NetFailure{Kind: fetch.NetCertHost, Host: "a.example"}, "the certificate of a.example is for another site"},
		{fetch.NetFailure{Kind: fetch.NetCertHost, Host: "a.example", Names: []string{"b.example", "c.example"}},
			"the certificate of a.example is for another site (b.example, c.example)"},
		{fetch.NetFailure{Kind: fetch.NetTLS, Host: "a.example", Detail: "remote error: tls: handshake failure"},
			"could not set up a secure connection with a.example (remote error: tls: handshake failure)"},
		{fetch.NetFailure{Kind: fetch.NetOther, Host: "a.example", Detail: "socket: too many open files"},
			"could not connect to a.example (socket: too many open files)"},
	}
	ja, err := locale.Match("ja")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failures {
		words := f.english
		// As the state keeps it now, and as an older version kept it.
		for _, kept := range []struct {
			code   domain.ProblemCode
			legacy string
		}{{f.Code(), ""}, {domain.ProblemCode{}, words}} {
			if got := reasonText(locale.English(), kept.code, kept.legacy, time.UTC); got != words {
				t.Errorf("%s (%+v): English %q", words, kept.code, got)
			}
			got := reasonText(ja, kept.code, kept.legacy, time.UTC)
			if got == words || strings.Contains(got, "the server") || (f.Host != "" && !strings.Contains(got, f.Host)) {
				t.Errorf("%s (%+v): Japanese %q", words, kept.code, got)
			}
			for _, fact := range append(f.Names, f.Detail) {
				if !strings.Contains(got, fact) {
					t.Errorf("%s (%+v): Japanese %q lacks %q", words, kept.code, got, fact)
				}
			}
			if !f.Expired.IsZero() && !strings.Contains(got, "2026年11月20日") {
				t.Errorf("%s (%+v): Japanese %q lacks the day", words, kept.code, got)
			}
		}
	}
}
