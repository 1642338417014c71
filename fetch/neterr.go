package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
)

// NetKind names how a request failed on its way to or from the server:
// the one classification of network failures, made here, where the
// errors are made. The words are said elsewhere, keyed by the kind (a
// digest's problem line through Result.Problem, `check`, `run` and
// `status` through pipeline.PollErrorText, which adds advice), so that
// every place says the same thing of the same failure.
type NetKind string

const (
	NetNone        NetKind = ""
	NetUnknownHost NetKind = "unknown-host" // the DNS lookup of the host failed
	NetRefused     NetKind = "refused"      // nothing listens at the address (ECONNREFUSED)
	NetClosed      NetKind = "closed"       // reset or closed before any answer came
	NetCut         NetKind = "cut"          // reset or closed while the body was read
	NetTimeout     NetKind = "timeout"      // no answer (or no end of it) in time
	NetUnreachable NetKind = "unreachable"  // no route to the host or its network
	NetCertUnknown NetKind = "cert-unknown" // a certificate no trusted authority signed
	NetCertExpired NetKind = "cert-expired" // a certificate out of its dates
	NetCertHost    NetKind = "cert-host"    // a certificate for other names than the host
	NetTLS         NetKind = "tls"          // another failure of the TLS handshake
	NetOther       NetKind = "network"      // another network failure
)

// NetFailure is a network failure's kind and the facts its words need.
type NetFailure struct {
	Kind NetKind
	// Host is the server as the feed's URL names it (with its port when
	// the URL has one), or the name the DNS lookup failed for; "" when
	// the error does not say.
	Host string
	// Expired is when an expired certificate stopped being valid
	// (NetCertExpired); Names the names a certificate for other hosts is
	// for (NetCertHost).
	Expired time.Time
	Names   []string
	// Detail is the innermost error's own text, for NetTLS and NetOther,
	// whose words cannot say more without it.
	Detail string
}

// NetFailureOf classifies err; its Kind is NetNone when err is not a
// network failure (an HTTP status, a body that is not a feed, a private
// address refused, a cancelled pass).
func NetFailureOf(err error) NetFailure {
	kind := netKind(err)
	if kind == NetNone {
		return NetFailure{}
	}
	f := NetFailure{Kind: kind, Host: failedHost(err)}
	var dnsErr *net.DNSError
	var invalid x509.CertificateInvalidError
	var hostErr x509.HostnameError
	switch {
	case kind == NetUnknownHost && errors.As(err, &dnsErr) && dnsErr.Name != "":
		f.Host = dnsErr.Name
	case kind == NetCertExpired && errors.As(err, &invalid) && invalid.Cert != nil:
		f.Expired = invalid.Cert.NotAfter
	case kind == NetCertHost && errors.As(err, &hostErr) && hostErr.Certificate != nil:
		f.Names = certNames(hostErr.Certificate)
	case kind == NetTLS || kind == NetOther:
		f.Detail = innermost(err)
	}
	return f
}

// netKind is err's NetKind. The order matters: a DNS lookup that timed
// out is a failed lookup, a TLS handshake that timed out a timeout, and a
// caller's cancellation or a private address refused at the dial no
// network failure at all.
func netKind(err error) NetKind {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	var alert tls.AlertError
	var netErr interface{ Timeout() bool }
	var urlErr *url.Error
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, ErrPrivateAddress), errors.Is(err, ErrHostBusy):
		return NetNone
	case errors.As(err, &dnsErr):
		return NetUnknownHost
	case errors.As(err, &unknownAuthority):
		return NetCertUnknown
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return NetCertExpired
	case errors.As(err, &hostErr):
		return NetCertHost
	case errors.As(err, &certErr), errors.As(err, &invalid), errors.As(err, &recordErr), errors.As(err, &alert):
		return NetTLS
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return NetTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return NetRefused
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return NetUnreachable
	}
	// A connection reset or closed: before the answer, the http.Client's
	// error (a *url.Error) says so; after it, the body's read does. (Not
	// any io.ErrUnexpectedEOF: a parser says that of a truncated feed.)
	closed := errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	var opErr *net.OpError
	switch {
	case closed && errors.As(err, &urlErr):
		return NetClosed
	case closed && errors.Is(err, errReadBody):
		return NetCut
	case errors.As(err, &urlErr) && strings.Contains(urlErr.Err.Error(), "HTTPS client"):
		// "http: server gave HTTP response to HTTPS client": an https
		// URL whose server speaks plain HTTP.
		return NetTLS
	case errors.As(err, &opErr):
		return NetOther
	}
	return NetNone
}

// failedHost is the host of the URL the failed request was for, "" when
// err does not name one.
func failedHost(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if u, perr := url.Parse(urlErr.URL); perr == nil && u.Host != "" {
			return u.Host
		}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Addr != nil {
		return opErr.Addr.String()
	}
	return ""
}

// certNames are the names a certificate is for (at most three), its
// subject's common name when it names none.
func certNames(c *x509.Certificate) []string {
	names := append([]string(nil), c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = append(names, c.Subject.CommonName)
	}
	return names[:min(len(names), 3)]
}

// innermost is the text of the last error err wraps: the cause, without
// the request and dial that each add their address.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
