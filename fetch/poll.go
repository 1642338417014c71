package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/internal/redact"
)

// Request says what is known of a feed before polling it.
type Request struct {
	URL          string
	ETag         string // stored exactly as received, "" when none
	LastModified string // stored exactly as received, "" when none
	BodyHash     string // hash of the last body received
	// BodyError is set when the body the validators and hash describe was
	// not a usable feed: what was wrong with it.
	BodyError string
	TTL       time.Duration

	// Learned server behaviour (see headPays).
	Answers304         bool // has answered a conditional request with 304
	RefusesHEAD        bool // HEAD cannot help: refused (405/501), or no validators that tell
	IgnoresConditional bool // answered a conditional GET in full with the stored validators or body

	// BeforeParse, when set, is called before a body of this poll is
	// parsed, the work that a hostile body can make kill the process; an
	// error fails the poll. (The caller records the attempt, so that a
	// run that dies reading a feed is known to the next.)
	BeforeParse func() error
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

	// BodyError is set when the body that ETag, LastModified and BodyHash
	// describe is not a usable feed: what is wrong with it. Such a body's
	// validators and hash are kept like any other, so that the next poll
	// is conditional; its 304 (or the same body again) then fails with
	// ErrStillBroken without a download. "" once a usable body came.
	BodyError string

	// Validators to store: exactly as received, or the stored ones when the
	// answer carried none.
	ETag         string
	LastModified string

	RetryAfter time.Time     // from a 429/503
	Hint       time.Duration // publisher freshness hint, 0 when none
	HintSource string

	PermanentURL  string // a 301/308 chain from the polled URL led here
	OriginChanged bool   // ...and to another scheme or host

	// DiscoveredURL is set when the polled URL was an HTML page announcing
	// a feed (<link rel="alternate">) and that feed answered well: Feed,
	// validators and BodyHash are then the feed's, never the page's, and the
	// feed should be polled at this URL directly from now on. (After a
	// 301/308 from the announced URL, it is the redirect's target.)
	DiscoveredURL string

	// What was learned about the server.
	Answers304         bool
	RefusesHEAD        bool
	IgnoresConditional bool

	Requests int
	Bytes    int64 // body bytes received on the wire
}

// HasValidators says whether a conditional request can be made.
func (r Request) HasValidators() bool { return r.ETag != "" || r.LastModified != "" }

// Poll polls one feed at now: a conditional GET, after a HEAD only where
// that can save a body (see headPays). It never returns an error: failures
// are in the Result, their messages with the user info and query values
// of every URL hidden (they are shown and stored for people to read; see
// redact).
func (c *Client) Poll(ctx context.Context, req Request, now time.Time) Result {
	res := c.poll(ctx, req, now)
	res.Err = redact.Error(res.Err)
	return res
}

func (c *Client) poll(ctx context.Context, req Request, now time.Time) Result {
	res := Result{ETag: req.ETag, LastModified: req.LastModified, BodyHash: req.BodyHash, BodyError: req.BodyError,
		Answers304: req.Answers304, RefusesHEAD: req.RefusesHEAD, IgnoresConditional: req.IgnoresConditional}
	if _, err := url.Parse(req.URL); err != nil {
		res.fail(OutcomeBroken, 0, fmt.Errorf("bad feed URL: %w", err))
		return res
	}
	head := headSkipped
	if c.headPays(req) {
		head = c.head(ctx, req, now, &res)
	}
	if head != headDone {
		c.get(ctx, req, now, &res)
		if head == headSaysChanged && res.Outcome == OutcomeUnchanged && res.Status != http.StatusNotModified {
			// HEAD's validators said changed, the body said not: they do
			// not tell here, and a HEAD would only add a request.
			res.RefusesHEAD = true
		}
	}
	res.stillBroken()
	res.finishHints(req)
	return res
}

// ErrStillBroken means the server answered that the feed's body is still
// the one found not to be a usable feed (a 304, or the same body again).
var ErrStillBroken = errors.New("unchanged, still not a usable feed")

// stillBroken turns "unchanged" into a failure when what is unchanged is a
// broken body: the feed stays in the penalty box, with the error it had.
func (res *Result) stillBroken() {
	if res.Outcome == OutcomeUnchanged && res.BodyError != "" {
		res.fail(OutcomeBroken, res.Status, fmt.Errorf("%w: %s", ErrStillBroken, res.BodyError))
	}
}

// brokenBody fails the poll on a body that is not a usable feed, keeping
// its hash (and the validators already kept) for the next poll.
func (res *Result) brokenBody(hash string, err error) {
	res.fail(OutcomeBroken, res.Status, err)
	if !res.Partial {
		res.BodyHash, res.BodyError = hash, err.Error()
	}
}

// headPays: the conditional GET is the whole poll where the server
// answers it (a 304, or the new body): one request, changed or not. A HEAD
// first saves a body only where the server has shown it ignores
// conditional GETs and its validators can still be compared, so never on
// a first poll, to a server that sends no validators, or to one whose HEAD
// cannot help (refused, or answered without validators that tell).
// HeadAlways asks HEAD first all the same.
func (c *Client) headPays(req Request) bool {
	if c.opts.HeadAlways {
		return true
	}
	return req.HasValidators() && req.IgnoresConditional && !req.RefusesHEAD
}

// headVerdict is what a HEAD said about the GET to follow.
type headVerdict int

const (
	headSkipped     headVerdict = iota // no HEAD sent
	headDone                           // the HEAD's answer ends the poll
	headSaysChanged                    // other validators than the stored ones: GET
	headNoHelp                         // refused, no validators, or another status: GET
)

// head sends the conditional HEAD.
func (c *Client) head(ctx context.Context, req Request, now time.Time, res *Result) headVerdict {
	resp, trace, err := c.do(ctx, http.MethodHead, req)
	if err != nil {
		res.failNet(err)
		return headDone
	}
	resp.Body.Close()
	res.Requests += len(trace.hops) + 1
	switch status := resp.StatusCode; {
	case status == http.StatusNotModified:
		res.Status, res.Outcome, res.Answers304 = status, OutcomeUnchanged, true
		res.keepValidators(resp)
		res.readCacheHint(resp, now)
		res.notePermanentRedirect(req, trace)
		return headDone
	case status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented:
		res.RefusesHEAD = true
		return headNoHelp
	case status >= 200 && status < 300:
		if validatorsMatch(req, resp) {
			// Validators sent, conditional request ignored: nothing changed.
			res.Status, res.Outcome, res.IgnoresConditional = status, OutcomeUnchanged, true
			res.readCacheHint(resp, now)
			res.notePermanentRedirect(req, trace)
			return headDone
		}
		if resp.Header.Get("ETag") == "" && resp.Header.Get("Last-Modified") == "" {
			res.RefusesHEAD = true // nothing to compare, ever
			return headNoHelp
		}
		return headSaysChanged
	case status == http.StatusGone || status == http.StatusTooManyRequests || status >= 500:
		// Answers a GET would get too: do not ask twice.
		res.httpFailure(resp, now)
		return headDone
	}
	return headNoHelp
}

func validatorsMatch(req Request, resp *http.Response) bool {
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	return (req.ETag != "" && etag == req.ETag) || (req.LastModified != "" && lm == req.LastModified)
}

func (c *Client) get(ctx context.Context, req Request, now time.Time, res *Result) {
	if page := c.getFeed(ctx, req, now, res); page != nil {
		c.fromPage(ctx, req, now, res, page)
	}
}

// htmlPage is a GET answer that was an HTML page rather than a feed.
type htmlPage struct {
	body        []byte
	contentType string
	url         *url.URL // after redirects: what relative links resolve against
	hash        string
	trace       *redirectTrace
}

// getFeed sends the conditional GET and parses a feed into res. An HTML
// page is returned instead, for the caller to look into; res is final
// otherwise.
func (c *Client) getFeed(ctx context.Context, req Request, now time.Time, res *Result) *htmlPage {
	resp, trace, err := c.do(ctx, http.MethodGet, req)
	if err != nil {
		res.failNet(err)
		return nil
	}
	res.Requests += len(trace.hops) + 1
	res.Status = resp.StatusCode
	body, ok := c.readAnswer(resp, req, now, res)
	// Closing frees the host slot, which a feed the page links to on the
	// same host will need: the body is done with before any discovery.
	resp.Body.Close()
	if !ok {
		if res.Outcome == OutcomeUnchanged && req.HasValidators() {
			// A 304 to the stored validators: the target has the feed.
			res.notePermanentRedirect(req, trace)
		}
		return nil
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if hash == req.BodyHash && !res.Partial {
		if req.HasValidators() {
			// The stored body again, in full, to a conditional GET.
			res.IgnoresConditional = true
		}
		res.Outcome = OutcomeUnchanged
		res.notePermanentRedirect(req, trace)
		return nil
	}
	final, _ := url.Parse(req.URL)
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL
	}
	contentType := resp.Header.Get("Content-Type")
	feed, err := c.parse(ctx, req, body, contentType, final.String())
	if errors.Is(err, ErrNotParsed) {
		res.fail(OutcomeBroken, res.Status, err)
		return nil
	}
	if err != nil {
		if errors.Is(err, ErrNotFeed) && isHTML(body, contentType) {
			return &htmlPage{body: body, contentType: contentType, url: final, hash: hash, trace: trace}
		}
		res.brokenBody(hash, err)
		return nil
	}
	res.Outcome, res.Feed, res.BodyHash, res.BodyError = OutcomeFresh, feed, hash, ""
	res.notePermanentRedirect(req, trace)
	return nil
}

// readAnswer settles every answer but 200 and 226 in res, and reads the
// body of those; ok says there is a body to look at.
func (c *Client) readAnswer(resp *http.Response, req Request, now time.Time, res *Result) (body []byte, ok bool) {
	switch {
	case resp.StatusCode == http.StatusNotModified:
		res.Outcome = OutcomeUnchanged
		if req.HasValidators() {
			res.Answers304, res.IgnoresConditional = true, false
		}
		res.keepValidators(resp)
		res.readCacheHint(resp, now)
		return nil, false
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusIMUsed:
	default:
		res.httpFailure(resp, now)
		return nil, false
	}
	if validatorsMatch(req, resp) && req.HasValidators() {
		res.IgnoresConditional = true
	}
	body, wire, err := readBody(resp, c.opts.MaxBody)
	res.Bytes += wire
	if err != nil {
		res.fail(classify(err), resp.StatusCode, err)
		return nil, false
	}
	res.readCacheHint(resp, now)
	res.keepValidators(resp)
	res.Partial = resp.StatusCode == http.StatusIMUsed
	return body, true
}

// fromPage handles an HTML page: the feed it announces is polled in the
// same Poll; without one, an h-feed in the page is the feed.
func (c *Client) fromPage(ctx context.Context, req Request, now time.Time, res *Result, page *htmlPage) {
	links, feed, err := c.readPage(ctx, req, page)
	switch {
	case errors.Is(err, ErrNotParsed):
		res.fail(OutcomeBroken, res.Status, err)
		return
	case err != nil:
		res.brokenBody(page.hash, err)
		return
	}
	if len(links) > 0 {
		c.pollDiscovered(ctx, req, now, res, page, links[0])
		return
	}
	if feed != nil {
		res.Outcome, res.Feed, res.BodyHash, res.BodyError = OutcomeFresh, feed, page.hash, ""
		res.notePermanentRedirect(req, page.trace)
		return
	}
	res.brokenBody(page.hash, fmt.Errorf("%w: an HTML page with no feed link", ErrNotFeed))
}

// readPage reads the feeds a page announces, else its h-feed, in a parse
// turn (see parseTurn) given back before any announced feed is polled.
func (c *Client) readPage(ctx context.Context, req Request, page *htmlPage) (links []string, feed *Feed, err error) {
	release, err := c.parseTurn(ctx, req, page.body)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(htmlUTF8(page.body, page.contentType)))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: unreadable HTML page: %w", ErrNotFeed, err)
	}
	if links = feedLinks(doc, page.url); len(links) > 0 {
		return links, nil, nil
	}
	return nil, hFeed(doc, page.url), nil
}

// pollDiscovered GETs the feed a page announced. The stored validators and
// hash go with it, because they are the feed's: a Result of a discovery
// carries the feed's, never the page's, so that polling the page URL again
// (before the caller switches to DiscoveredURL) still asks the feed whether
// it changed. What the page's answer said (validators, freshness) is about
// the page and is dropped; only the request count and bytes add up.
func (c *Client) pollDiscovered(ctx context.Context, req Request, now time.Time, res *Result, page *htmlPage, feedURL string) {
	if feedURL == page.url.String() || feedURL == req.URL {
		res.brokenBody(page.hash, fmt.Errorf("%w: an HTML page naming itself as its feed", ErrNotFeed))
		return
	}
	feedReq := req
	feedReq.URL = feedURL
	sub := Result{ETag: req.ETag, LastModified: req.LastModified, BodyHash: req.BodyHash, BodyError: req.BodyError,
		Answers304: req.Answers304, RefusesHEAD: res.RefusesHEAD, IgnoresConditional: req.IgnoresConditional}
	if other := c.getFeed(ctx, feedReq, now, &sub); other != nil {
		// No second round of discovery: a page linking to a page is a
		// broken link, not a trail to follow.
		sub.brokenBody(other.hash, fmt.Errorf("%w: the feed link leads to another HTML page", ErrNotFeed))
	}
	sub.Requests += res.Requests
	sub.Bytes += res.Bytes
	if sub.Err != nil {
		sub.Err = fmt.Errorf("feed %s announced by the page: %w", feedURL, sub.Err)
	} else {
		sub.DiscoveredURL = feedURL
		if sub.PermanentURL != "" {
			sub.DiscoveredURL = sub.PermanentURL
		}
	}
	// PermanentURL speaks of the polled URL, the page.
	sub.PermanentURL, sub.OriginChanged = "", false
	if sub.Err == nil {
		sub.notePermanentRedirect(req, page.trace)
	}
	*res = sub
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

// notePermanentRedirect records where a 301/308 chain led, once its target
// has shown it serves the feed: a parsed feed, the stored body again, or
// an answer that the stored validators still hold (304, or equal ones).
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
	case errors.Is(err, ErrHostBusy), errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr):
		return OutcomeNetError
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return OutcomeNetError
	}
	return OutcomeBroken
}
