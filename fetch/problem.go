package fetch

import (
	"errors"
	"strings"

	"feeddigest/domain"
	"feeddigest/parse"
)

// ErrRunDied is the failure recorded for a feed whose reading was cut
// short twice in a row: the runs reading it died, perhaps of this very
// feed (package pipeline records it, see its suspected).
var ErrRunDied = errors.New("a previous run died while reading this feed")

// Problem is why a poll failed, as a code with its facts for the state to
// keep: an HTTP status, a body that is not a feed, too large, a network
// failure by its kind (NetFailureOf) with its host... Its words are said
// when a digest is written, in its reader's language (package render).
// The zero code when the poll did not fail.
func (r Result) Problem() domain.ProblemCode {
	err := r.Err
	if err == nil {
		return domain.ProblemCode{}
	}
	var status *ErrStatus
	if errors.As(err, &status) {
		return domain.HTTPProblem(status.Code)
	}
	kind := domain.ProblemUnreadable
	switch {
	case errors.Is(err, ErrRunDied):
		kind = domain.ProblemRunDied
	case errors.Is(err, ErrPrivateAddress):
		kind = domain.ProblemPrivateAddress
	case errors.Is(err, ErrTooLarge), errors.Is(err, parse.ErrTooManyNodes), errors.Is(err, parse.ErrTooFragmented):
		kind = domain.ProblemTooLarge
	case errors.Is(err, ErrTooManyRedirects):
		kind = domain.ProblemTooManyRedirects
	case errors.Is(err, parse.ErrNotFeed), errors.Is(err, ErrStillBroken), errors.Is(err, parse.ErrTooDeep),
		errors.Is(err, parse.ErrTooManyNamespaces), errors.Is(err, ErrEncoding), r.BodyError != "":
		kind = domain.ProblemNotFeed
	case errors.Is(err, ErrHostBusy):
		kind = domain.ProblemTimeout
	default:
		if f := NetFailureOf(err); f.Kind != NetNone {
			return f.Code()
		}
	}
	return domain.ProblemCode{Kind: kind}
}

// Code is the failure as the state keeps it: the kinds are spelled the
// same (domain.ProblemKind's network kinds).
func (f NetFailure) Code() domain.ProblemCode {
	return domain.ProblemCode{Kind: domain.ProblemKind(f.Kind), Host: f.Host, Expired: f.Expired,
		Names: strings.Join(f.Names, ", "), Detail: f.Detail}
}
