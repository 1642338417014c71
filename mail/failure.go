package mail

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"syscall"

	gomail "github.com/wneessen/go-mail"
)

// Error is a failed delivery, sorted for the caller's retry policy.
type Error struct {
	Err error
	// Temporary: trying again later may succeed. The connection failed,
	// timed out or broke off, or the server answered 4xx. A 5xx answer
	// (a refused login, sender, recipient or message) and a refusal on
	// our side (no STARTTLS where it is required, no AUTH mechanism safe
	// to use) are permanent: repeating them cannot help, and repeated
	// failed logins can get the account locked.
	Temporary bool
	// BeforeMessages: the failure came before any message was handed
	// over (connecting, TLS, the login), so every message would fail the
	// same way until something changes.
	BeforeMessages bool
}

func (e *Error) Error() string { return "mail: smtp: " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// CertificateError: the server's certificate did not verify, a matter
// of configuration, not of waiting. Its message names the certificate
// and what it was checked against.
type CertificateError struct {
	Host    string
	Subject string // the certificate's subject and issuer, "" if none was seen
	Issuer  string
	CAFile  string // the tls_ca it was checked against, "" for the system's roots
	Err     error
}

func (e *CertificateError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the certificate of %s", e.Host)
	if e.Subject != "" {
		fmt.Fprintf(&b, " (%s, issued by %s)", e.Subject, e.Issuer)
	}
	against := "the system's trusted roots"
	if e.CAFile != "" {
		against = "the trusted certificates in " + e.CAFile
	}
	fmt.Fprintf(&b, " does not verify against %s: %v", against, e.Err)
	return b.String()
}

func (e *CertificateError) Unwrap() error { return e.Err }

// ErrLoginNeedsTLS: a user name is set but the server offers no
// STARTTLS, and a password is never sent unencrypted.
var ErrLoginNeedsTLS = errors.New("the server offers no STARTTLS, and a login is never sent unencrypted")

// failure sorts an error of go-mail, naming the configuration problems.
func (s *Sender) failure(err error) *Error {
	var verr *tls.CertificateVerificationError
	switch {
	case errors.As(err, &verr):
		cerr := &CertificateError{Host: s.host, CAFile: s.cfg.caFile, Err: verr.Err}
		if len(verr.UnverifiedCertificates) > 0 {
			leaf := verr.UnverifiedCertificates[0]
			cerr.Subject, cerr.Issuer = leaf.Subject.String(), leaf.Issuer.String()
		}
		return &Error{Err: cerr, BeforeMessages: true}
	case s.login && !s.cfg.requireTLS && strings.Contains(err.Error(), "does not support STARTTLS"):
		return &Error{Err: fmt.Errorf("%w (%v)", ErrLoginNeedsTLS, err), BeforeMessages: true}
	}
	return failure(err)
}

// failure sorts an error of go-mail.
func failure(err error) *Error {
	var sendErr *gomail.SendError
	before := !errors.As(err, &sendErr)
	return &Error{Err: err, Temporary: temporary(err, sendErr), BeforeMessages: before}
}

func temporary(err error, sendErr *gomail.SendError) bool {
	if sendErr != nil {
		switch {
		case sendErr.IsTemp():
			return true
		case sendErr.ErrorCode() >= 500:
			return false
		}
		switch sendErr.Reason {
		case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
			return false // the message itself cannot be sent
		}
		return true // no reply at all: the connection broke off
	}
	var reply *textproto.Error // the greeting, EHLO, STARTTLS or AUTH refused
	if errors.As(err, &reply) {
		return reply.Code < 500
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
