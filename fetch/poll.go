package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Request says what is known of a feed before polling it.
type Request struct {
	URL          string
	ETag         string // stored exactly as received, "" when none
	LastModified string // stored exactly as received, "" when none
	BodyHash     string // hash of the last body parsed
	TTL          time.Duration

	// Learned server behaviour.
	Answers304  bool // has answered a conditional request with 304
	RefusesHEAD bool // answered HEAD with 405 or 501
}

// Outcome sorts a poll's result.
type Outcome int

const (
	OutcomeFresh     Outcome = iota // a new body, parsed into Feed
	OutcomeUnchanged                // 304, validators equal, or body hash equal
	OutcomeGone                     // 410
	OutcomeHTTPError                // another non-success status
	OutcomeNetError                 // timeout, connection, DNS: a passing failure
	OutcomeBroken                   // parse error, too large, bad redirect, refused address
)

// Result is everything one poll saw.
type Result struct {
	Outcome  Outcome
	Status   int   // last HTTP status, 0 without a response
	Err      error // why it failed, nil on success
	Feed     *Feed // parsed feed (OutcomeFresh)
	Partial  bool  // 226 IM Used: a delta, merge, never treat absent entries as removed
	BodyHash string

	// Validators to store: exactly as received, or the stored ones when the
	// answer carried none.
	ETag         string
	LastModified string

	RetryAfter time.Time     // from a 429/503
	Hint       time.Duration // publisher freshness hint, 0 when none
	HintSource string

	PermanentURL  string // a 301/308 chain from the polled URL led here
	OriginChanged bool   // ...and to another scheme or host

	// What was learned about the server.
	Answers304         bool
	RefusesHEAD        bool
	IgnoresConditional bool

	Requests int
	Bytes    int64 // body bytes received on the wire
}

// HasValidators says whether a conditional request can be made.
func (r Request) HasValidators() bool { return r.ETag != "" || r.LastModified != "" }

// Poll polls one feed at now: HEAD first where it can save a body, then a
// conditional GET. It never returns an error: failures are in the Result.
func (c *Client) Poll(ctx context.Context, req Request, now time.Time) Result {
	res := Result{ETag: req.ETag, LastModified: req.LastModified, BodyHash: req.BodyHash,
		Answers304: req.Answers304, RefusesHEAD: req.RefusesHEAD}
	if _, err := url.Parse(req.URL); err != nil {
		res.fail(OutcomeBroken, 0, fmt.Errorf("bad feed URL: %w", err))
		return res
	}
	if c.headPays(req) {
		if done := c.head(ctx, req, now, &res); done {
			res.finishHints(req)
			return res
		}
	}
	c.get(ctx, req, now, &res)
	res.finishHints(req)
	return res
}

// headPays: HEAD only helps where it can save a body. It cannot on a first
// poll (nothing to be conditional on), once the server has shown it
// answers conditional GETs with 304, or where HEAD is refused.
func (c *Client) headPays(req Request) bool {
	if c.opts.HeadAlways {
		return true
	}
	return req.HasValidators() && !req.Answers304 && !req.RefusesHEAD
}

// head sends the conditional HEAD; done says the poll is over.
func (c *Client) head(ctx context.Context, req Request, now time.Time, res *Result) (done bool) {
	resp, trace, err := c.do(ctx, http.MethodHead, req)
	if err != nil {
		res.failNet(err)
		return true
	}
	resp.Body.Close()
	res.Requests += len(trace.hops) + 1
	switch status := resp.StatusCode; {
	case status == http.StatusNotModified:
		res.Status, res.Outcome, res.Answers304 = status, OutcomeUnchanged, true
		res.keepValidators(resp)
		res.readCacheHint(resp, now)
		return true
	case status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented:
		res.RefusesHEAD = true
		return false
	case status >= 200 && status < 300:
		if validatorsMatch(req, resp) {
			// Validators sent, conditional request ignored: nothing changed.
			res.Status, res.Outcome, res.IgnoresConditional = status, OutcomeUnchanged, true
			res.readCacheHint(resp, now)
			return true
		}
		return false
	case status == http.StatusGone || status == http.StatusTooManyRequests || status >= 500:
		// Answers a GET would get too: do not ask twice.
		res.httpFailure(resp, now)
		return true
	}
	return false
}

func validatorsMatch(req Request, resp *http.Response) bool {
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	return (req.ETag != "" && etag == req.ETag) || (req.LastModified != "" && lm == req.LastModified)
}

func (c *Client) get(ctx context.Context, req Request, now time.Time, res *Result) {
	resp, trace, err := c.do(ctx, http.MethodGet, req)
	if err != nil {
		res.failNet(err)
		return
	}
	defer resp.Body.Close()
	res.Requests += len(trace.hops) + 1
	res.Status = resp.StatusCode
	switch {
	case resp.StatusCode == http.StatusNotModified:
		res.Outcome = OutcomeUnchanged
		if req.HasValidators() {
			res.Answers304 = true
		}
		res.keepValidators(resp)
		res.readCacheHint(resp, now)
		return
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusIMUsed:
	default:
		res.httpFailure(resp, now)
		return
	}
	if validatorsMatch(req, resp) && req.HasValidators() {
		res.IgnoresConditional = true
	}
	body, wire, err := readBody(resp, c.opts.MaxBody)
	res.Bytes += wire
	if err != nil {
		res.fail(classify(err), resp.StatusCode, err)
		return
	}
	res.readCacheHint(resp, now)
	res.keepValidators(resp)
	res.Partial = resp.StatusCode == http.StatusIMUsed
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if hash == req.BodyHash && !res.Partial {
		res.Outcome = OutcomeUnchanged
		return
	}
	base := req.URL
	if final := resp.Request.URL; final != nil {
		base = final.String()
	}
	feed, err := Parse(body, resp.Header.Get("Content-Type"), base)
	if err != nil {
		res.fail(OutcomeBroken, resp.StatusCode, err)
		return
	}
	res.Outcome, res.Feed, res.BodyHash = OutcomeFresh, feed, hash
	res.notePermanentRedirect(req, trace)
}

// do sends one request with the conditional headers and request hygiene
// of a well-behaved reader: no cookie, no Referer, nothing appended.
func (c *Client) do(ctx context.Context, method string, req Request) (*http.Response, *redirectTrace, error) {
	trace := &redirectTrace{}
	ctx = context.WithValue(ctx, traceKey{}, trace)
	hr, err := http.NewRequestWithContext(ctx, method, req.URL, nil)
	if err != nil {
		return nil, trace, err
	}
	hr.Header.Set("User-Agent", c.userAgent)
	hr.Header.Set("Accept", AcceptFeeds)
	hr.Header.Set("Accept-Encoding", AcceptEncoding)
	if req.ETag != "" {
		hr.Header["If-None-Match"] = []string{req.ETag}
	}
	if req.LastModified != "" {
		hr.Header["If-Modified-Since"] = []string{req.LastModified}
	}
	if req.HasValidators() {
		hr.Header.Set("A-IM", "feed")
	}
	resp, err := c.http.Do(hr)
	return resp, trace, err
}

// AcceptFeeds names the feed types, most specific first.
const AcceptFeeds = "application/atom+xml, application/rss+xml, application/feed+json, " +
	"application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.5, */*;q=0.1"

func (res *Result) keepValidators(resp *http.Response) {
	if v, ok := resp.Header["Etag"]; ok && len(v) > 0 && v[0] != "" {
		res.ETag = v[0]
	}
	if v, ok := resp.Header["Last-Modified"]; ok && len(v) > 0 && v[0] != "" {
		res.LastModified = v[0]
	}
}

func (res *Result) notePermanentRedirect(req Request, trace *redirectTrace) {
	target := trace.permanentTarget()
	if target == nil {
		return
	}
	from, err := url.Parse(req.URL)
	if err != nil {
		return
	}
	res.PermanentURL = target.String()
	res.OriginChanged = !sameOrigin(from, target)
}

// ErrStatus is an HTTP status that is not success.
type ErrStatus struct {
	Code int
}

func (e *ErrStatus) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.Code, http.StatusText(e.Code))
}

func (res *Result) httpFailure(resp *http.Response, now time.Time) {
	res.Status = resp.StatusCode
	res.Err = &ErrStatus{Code: resp.StatusCode}
	res.Outcome = OutcomeHTTPError
	if resp.StatusCode == http.StatusGone {
		res.Outcome = OutcomeGone
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		if at, ok := RetryAfter(resp.Header.Get("Retry-After"), now); ok {
			res.RetryAfter = at
		}
	}
}

func (res *Result) fail(o Outcome, status int, err error) {
	res.Outcome, res.Status, res.Err = o, status, err
}

func (res *Result) failNet(err error) {
	res.fail(classify(err), 0, err)
}

// classify separates passing network failures from lasting problems.
func classify(err error) Outcome {
	var netErr interface{ Timeout() bool }
	switch {
	case errors.Is(err, ErrPrivateAddress), errors.Is(err, ErrTooManyRedirects),
		errors.Is(err, ErrTooLarge), errors.Is(err, ErrNotFeed):
		return OutcomeBroken
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr):
		return OutcomeNetError
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return OutcomeNetError
	}
	return OutcomeBroken
}
