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
	// InDoubt: a message's data ended and no answer came (the
	// connection broke or timed out): the server may have taken it, and
	// sending it again may deliver it twice.
	InDoubt bool
}

// messageError is the failure of one message, at one step of its
// conversation.
type messageError struct {
	step    string
	err     error
	inDoubt bool // the data ended without an answer
}

func (e *messageError) Error() string { return e.step + ": " + e.err.Error() }
func (e *messageError) Unwrap() error { return e.err }

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

// failure sorts an error of go-mail or of a message (messageError).
func failure(err error) *Error {
	var msgErr *messageError
	if !errors.As(err, &msgErr) {
		return &Error{Err: err, Temporary: temporary(err), BeforeMessages: true}
	}
	f := &Error{Err: err, Temporary: true}
	for _, e := range flatten(err) {
		if errors.As(e, &msgErr) {
			f.Temporary = f.Temporary && temporary(msgErr.err)
			f.InDoubt = f.InDoubt || msgErr.inDoubt
		}
	}
	return f
}

// flatten lists the errors err joins, or err alone.
func flatten(err error) []error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()
	}
	return []error{err}
}

// temporary says whether err may pass: a 4xx answer, or no answer (the
// connection failed, broke off or timed out). A 5xx answer, and an error
// of our own (a message without sender), are permanent.
func temporary(err error) bool {
	var reply *textproto.Error
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
