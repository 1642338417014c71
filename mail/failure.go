package mail

import (
	"errors"
	"io"
	"net"
	"net/textproto"
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
