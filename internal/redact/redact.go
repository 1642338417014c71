// Package redact hides the secrets a feed URL may carry (a user name and
// password, a token in the query string, as private feeds of paid
// newsletters use) wherever a URL is shown to a person or published: the
// status page is often a public site, and logs end up in CI. The state
// and `export` keep URLs exactly as written; only what is shown passes
// through here.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Hidden parts of a URL read as these.
const (
	hiddenUser  = "***"
	hiddenValue = "…"
)

// URL returns s with its user info replaced by "***" and every query value
// by "…": https://ada:pw@example.org/feed?token=abc&x=1 becomes
// https://***@example.org/feed?token=…&x=…. A parameter without a value
// may be the secret itself, so it is hidden whole. Scheme, host, path and
// fragment stay, so a person still recognises the feed. Any string is
// accepted (a URL that does not parse is redacted all the same), and
// redacting twice changes nothing more.
func URL(s string) string {
	rest, out := s, ""
	if i := schemeEnd(s); i > 0 {
		out, rest = rest[:i], rest[i:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			out += hiddenUser
			rest = rest[at:]
		}
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return out + rest
	}
	out += rest[:q+1]
	rest = rest[q+1:]
	fragment := ""
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		rest, fragment = rest[:h], rest[h:]
	}
	return out + query(rest) + fragment
}

// schemeEnd is the length of s's leading "scheme://" (or "//", as in a
// scheme-relative URL), 0 when it has none.
func schemeEnd(s string) int {
	if strings.HasPrefix(s, "//") {
		return 2
	}
	i := strings.Index(s, "://")
	if i <= 0 {
		return 0
	}
	for j, c := range s[:i] {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return 0
		}
	}
	return i + 3
}

// query hides the values of a raw query string, keeping its keys.
func query(raw string) string {
	if raw == "" {
		return ""
	}
	params := strings.Split(raw, "&")
	for i, p := range params {
		switch key, _, ok := strings.Cut(p, "="); {
		case ok:
			params[i] = key + "=" + hiddenValue
		case p != "":
			params[i] = hiddenValue
		}
	}
	return strings.Join(params, "&")
}

// urlInText finds URLs in free text, such as an error message: a scheme,
// "://", then everything up to white space or a quote.
var urlInText = regexp.MustCompile("(?i)[a-z][a-z0-9+.-]*://[^\\s\"'<>`]+")

// Text redacts every URL in s (see URL): for messages that may quote one,
// as Go's *url.Error does ("Get \"https://…\": dial tcp: ...").
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, URL)
}

// Error returns err with the URLs in its message redacted (see Text).
// errors.Is and errors.As still see err and everything it wraps.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if safe := Text(msg); safe != msg {
		return &redactedError{err: err, msg: safe}
	}
	return err
}

type redactedError struct {
	err error
	msg string
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Base is u without user info and query, as a base for resolving the
// relative links a feed gives: a link resolved against the feed's own URL
// would otherwise carry its credentials (user info always, the query for a
// link that is only a fragment) into the pages readers see. nil stays nil.
func Base(u *url.URL) *url.URL {
	if u == nil {
		return nil
	}
	b := *u
	b.User, b.RawQuery, b.ForceQuery = nil, "", false
	return &b
}
