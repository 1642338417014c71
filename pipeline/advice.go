package pipeline

import (
	"errors"

	"feeddigest/fetch"
	"feeddigest/locale"
	"feeddigest/render"
)

// PollErrorText is how a failed poll is shown to the operator (the status
// page and command, the run's summary, `check`): a network failure in the
// words a digest's problem line uses (render.ProblemText, in English: the
// operator's words are English) and what to
// do about it, fetch's own error else, and, where a setting would change
// the outcome, which one. fetch names no configuration keys; this
// package maps the configuration onto it.
func PollErrorText(err error) string {
	if errors.Is(err, fetch.ErrPrivateAddress) {
		return err.Error() + " (set [fetch] allow_private_networks = true to allow)"
	}
	if f := fetch.NetFailureOf(err); f.Kind != fetch.NetNone {
		words := render.ProblemText(locale.English(), f.Code())
		if advice := netAdvice[f.Kind]; advice != "" {
			return words + ": " + advice
		}
		return words
	}
	return err.Error()
}

// netAdvice is what an operator can do about each kind of network
// failure, said after its words.
var netAdvice = map[fetch.NetKind]string{
	fetch.NetUnknownHost: "check the URL or your network",
	fetch.NetRefused:     "is the server running?",
	fetch.NetClosed:      "it may be restarting, overloaded or turning this client away; it is tried again later",
	fetch.NetCut:         "it may be restarting or overloaded; it is tried again later",
	fetch.NetTimeout:     "the server may be down or slow; it is tried again later ([fetch] timeout sets how long to wait)",
	fetch.NetUnreachable: "check your network",
	fetch.NetCertUnknown: "the site must use a certificate from a known authority (a self-signed one is not trusted)",
	fetch.NetCertExpired: "the site must renew it",
	fetch.NetCertHost:    "check the URL's host name",
	fetch.NetTLS:         "check that the URL's scheme (http or https) is the one the server speaks",
	fetch.NetOther:       "check the URL or your network",
}
