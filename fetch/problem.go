package fetch

import (
	"errors"
	"fmt"
	"strings"

	"feeddigest/parse"
)

// ErrRunDied is the failure recorded for a feed whose reading was cut
// short twice in a row: the runs reading it died, perhaps of this very
// feed (package pipeline records it, see its suspected).
var ErrRunDied = errors.New("a previous run died while reading this feed")

// Problem says in plain words, for the reader of a digest, why a poll
// failed: "not found (404)", "server error (503)", "connection refused
// by example.org", "not a feed", "too large", "gone (410)", "refused:
// private address", "stopped the program while being read". A network
// failure is said in the words of NetFailure.Words, which `check`, `run`
// and `status` say too. "" when the poll did not fail.
func (r Result) Problem() string {
	err := r.Err
	if err == nil {
		return ""
	}
	var status *ErrStatus
	if errors.As(err, &status) {
		return statusProblem(status.Code)
	}
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
	case errors.Is(err, ErrHostBusy):
		return "timed out"
	}
	if f := NetFailureOf(err); f.Kind != NetNone {
		return f.Words()
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

// Words say a network failure in plain words, with its host: "could not
// find the host go.dev (DNS lookup failed)", "connection refused by
// 127.0.0.1:8000". One phrase per kind, the same wherever the failure is
// shown: a digest's problem line says it as it is, and `check`, `run` and
// `status` add what to do (pipeline.PollErrorText).
func (f NetFailure) Words() string {
	host := f.Host
	if host == "" {
		host = "the server"
	}
	switch f.Kind {
	case NetUnknownHost:
		return "could not find the host " + host + " (DNS lookup failed)"
	case NetRefused:
		return "connection refused by " + host
	case NetClosed:
		return host + " closed the connection before answering"
	case NetCut:
		return host + " cut the connection while sending the feed"
	case NetTimeout:
		return host + " did not answer in time"
	case NetUnreachable:
		return "could not reach " + host + " (no route to it)"
	case NetCertUnknown:
		return "the certificate of " + host + " is not signed by a known authority"
	case NetCertExpired:
		if f.Expired.IsZero() {
			return "the certificate of " + host + " has expired"
		}
		return "the certificate of " + host + " expired on " + f.Expired.UTC().Format("2 Jan 2006")
	case NetCertHost:
		if len(f.Names) == 0 {
			return "the certificate of " + host + " is for another site"
		}
		return "the certificate of " + host + " is for another site (" + strings.Join(f.Names, ", ") + ")"
	case NetTLS:
		return "could not set up a secure connection with " + host + " (" + f.Detail + ")"
	case NetOther:
		return "could not connect to " + host + " (" + f.Detail + ")"
	}
	return ""
}
