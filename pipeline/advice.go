package pipeline

import (
	"errors"
	"io"
	"net/url"
	"syscall"

	"feeddigest/fetch"
)

// PollErrorText is how a failed poll is shown (the status page, the run's
// summary, `check`): fetch's error and, where a setting would change the
// outcome, which one. fetch names no configuration keys; this package
// maps the configuration onto it.
func PollErrorText(err error) string {
	if errors.Is(err, fetch.ErrPrivateAddress) {
		return err.Error() + " (set [fetch] allow_private_networks = true to allow)"
	}
	if closedBeforeAnswering(err) {
		return ErrClosedBeforeAnswering.Error()
	}
	return err.Error()
}

// ErrClosedBeforeAnswering is how a request is shown whose connection the
// server closed or reset before any answer came: Go's own words for it
// (`Get "https://...": EOF`) name neither who closed it nor when, and
// repeat the address the row already shows.
var ErrClosedBeforeAnswering = errors.New("the server closed the connection before answering")

func closedBeforeAnswering(err error) bool {
	var urlErr *url.Error
	if !errors.As(err, &urlErr) {
		return false // a body cut short is a read error, not this
	}
	return errors.Is(urlErr.Err, io.EOF) || errors.Is(urlErr.Err, io.ErrUnexpectedEOF) || errors.Is(urlErr.Err, syscall.ECONNRESET)
}
