package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"

	"feeddigest/parse"
)

// ErrRunDied is the failure recorded for a feed whose reading was cut
// short twice in a row: the runs reading it died, perhaps of this very
// feed (package pipeline records it, see its suspected).
var ErrRunDied = errors.New("a previous run died while reading this feed")

// Problem says in plain words, for the reader of a digest, why a poll
// failed: "not found (404)", "server error (503)", "could not connect",
// "timed out", "not a feed", "too large", "gone (410)", "refused:
// private address", "stopped the program while being read". "" when the poll did not fail.
func (r Result) Problem() string {
	err := r.Err
	if err == nil {
		return ""
	}
	var status *ErrStatus
	if errors.As(err, &status) {
		return statusProblem(status.Code)
	}
	var netErr net.Error
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var urlErr *url.Error
	switch {
	case errors.Is(err, ErrRunDied):
		return "stopped the program while being read"
	case errors.Is(err, ErrPrivateAddress):
		return "refused: private address"
	case errors.Is(err, ErrTooLarge), errors.Is(err, parse.ErrTooManyNodes), errors.Is(err, parse.ErrTooFragmented):
		return "too large"
	case errors.Is(err, ErrTooManyRedirects):
		return "too many redirects"
	case errors.Is(err, parse.ErrNotFeed), errors.Is(err, ErrStillBroken), errors.Is(err, parse.ErrTooDeep),
		errors.Is(err, parse.ErrTooManyNamespaces), errors.Is(err, ErrEncoding), r.BodyError != "":
		return "not a feed"
	case errors.Is(err, ErrHostBusy), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.As(err, &dnsErr):
		return "could not connect: unknown host"
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority), errors.As(err, &hostname):
		return "could not connect securely"
	case errors.As(err, &netErr), errors.As(err, &urlErr):
		return "could not connect"
	}
	return "could not be read"
}

// statusProblem names an HTTP status that is not success.
func statusProblem(code int) string {
	switch {
	case code == 404:
		return "not found (404)"
	case code == 410:
		return "gone (410)"
	case code == 401 || code == 403:
		return fmt.Sprintf("access refused (%d)", code)
	case code == 429:
		return "too many requests (429)"
	case code >= 500:
		return fmt.Sprintf("server error (%d)", code)
	}
	return fmt.Sprintf("error (%d)", code)
}
