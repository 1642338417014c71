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

	"feeddigest/domain"
	"feeddigest/internal/redact"
	"feeddigest/parse"
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

	// Learned server behaviour (see headPays and trust.go).
	Answers304         bool // has answered a conditional request with 304
	RefusesHEAD        bool // no HEAD: refused or failed (any answer but 2xx/304), no validators that tell, or stale
	IgnoresConditional bool // answered a conditional GET with the stored body, its validators unchanged
	Distrust           domain.Distrust

	// LastGet is when a GET of the feed last had an answer (a body or a
	// 304); zero when never. HEADs alone never stand for longer than
	// ConfirmEvery after it.
	LastGet time.Time
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
	Status   int         // last HTTP status, 0 without a response
	Err      error       // why it failed, nil on success
	Feed     *parse.Feed // parsed feed (OutcomeFresh)
	Partial  bool        // 226 IM Used: a delta, merge, never treat absent entries as removed
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

	// What was learned about the server. Distrust only grows: a
	// validator found lying is never trusted again.
	Answers304         bool
	RefusesHEAD        bool
	IgnoresConditional bool
	Distrust           domain.Distrust
	// ValidatorsDropped: a conditional request was answered 400, 413 or
	// 431, so the stored validators are forgotten, whatever the poll's
	// outcome (ETag and LastModified are "" then).
	ValidatorsDropped bool
	// LastGet is the request's, or now when a GET of this poll had an
	// answer (a body or a 304).
	LastGet time.Time

	Requests int
	Bytes    int64 // body bytes received on the wire
}

// HasValidators says whether validators are stored, trusted or not.
func (r Request) HasValidators() bool { return r.ETag != "" || r.LastModified != "" }

// newResult is a poll's Result before any answer: what the request knew.
func newResult(req Request) Result {
	return Result{ETag: req.ETag, LastModified: req.LastModified, BodyHash: req.BodyHash, BodyError: req.BodyError,
		Answers304: req.Answers304, RefusesHEAD: req.RefusesHEAD, IgnoresConditional: req.IgnoresConditional,
		Distrust: req.Distrust, LastGet: req.LastGet}
}

// Poll polls one feed at now: Fetch, then Read. It never returns an
// error: failures are in the Result.
func (c *Client) Poll(ctx context.Context, req Request, now time.Time) Result {
	return c.Read(ctx, c.Fetch(ctx, req, now))
}

// Fetched is a poll whose requests are done. Either its result is final,
// or a body waits to be parsed (BodyWaiting), the work a hostile body can
// make kill the process: the caller may first record that it is about to
// read it, then Read it. A waiting body holds a turn of the client's
// ParseBudget, so every Fetched must be given to Read, or Abandoned.
type Fetched struct {
	req     Request
	now     time.Time
	head    headVerdict
	res     Result
	body    *fetchedBody // the body waiting to be read
	release func()       // its parse turn
	done    bool
}

// fetchedBody is a GET's answer to be parsed: a feed, or an HTML page.
type fetchedBody struct {
	body        []byte
	contentType string
	url         *url.URL // after redirects: what relative links resolve against
	hash        string
	trace       *redirectTrace
	release     func() // its parse turn
}

// Fetch sends a poll's requests at now: a conditional GET, after a HEAD
// only where that can save a body (see headPays). When the answer has a
// new body, it waits for its parse turn and returns with the body
// waiting; Read parses it.
func (c *Client) Fetch(ctx context.Context, req Request, now time.Time) *Fetched {
	req = req.onClock(now)
	f := &Fetched{req: req, now: now, head: headSkipped, res: newResult(req)}
	if _, err := url.Parse(req.URL); err != nil {
		f.res.fail(OutcomeBroken, 0, fmt.Errorf("bad feed URL: %w", err))
		return f.finish()
	}
	if c.headPays(req) {
		f.head = c.head(ctx, req, now, &f.res)
	}
	if f.head == headDone {
		return f.finish()
	}
	body := c.download(ctx, req, now, &f.res, f.head)
	if body == nil {
		return f.finish()
	}
	f.body, f.release = body, body.release
	return f
}

// BodyWaiting says whether a body waits to be parsed by Read.
func (f *Fetched) BodyWaiting() bool { return f.body != nil }

// Read finishes the poll: it parses the waiting body, if any, into the
// Result. When the body is an HTML page announcing a feed, the feed is
// fetched and parsed too, the page's parse turn given back first. The
// Result's error messages have the user info and query values of every
// URL hidden (they are shown and stored for people to read; see redact).
func (c *Client) Read(ctx context.Context, f *Fetched) Result {
	if f.body != nil {
		c.read(ctx, f)
		f.finish()
	}
	return f.result()
}

// Abandon gives a waiting body's parse turn back without reading it: the
// poll fails with ErrNotParsed and err, and keeps no hash of the body.
func (f *Fetched) Abandon(err error) Result {
	if f.body != nil {
		f.body = nil
		f.release()
		f.res.fail(OutcomeBroken, f.res.Status, fmt.Errorf("%w: %w", ErrNotParsed, err))
		f.finish()
	}
	return f.result()
}

func (f *Fetched) result() Result {
	res := f.res
	res.Err = redact.Error(res.Err)
	return res
}

// finish settles what the whole poll says, once.
func (f *Fetched) finish() *Fetched {
	if f.done {
		return f
	}
	f.done = true
	res := &f.res
	if f.head == headSaysChanged && res.Outcome == OutcomeUnchanged && res.Status != http.StatusNotModified {
		// HEAD's validators said changed, the body said not: they do
		// not tell here, and a HEAD would only add a request.
		res.RefusesHEAD = true
	}
	res.stillBroken()
	res.finishHints(f.req)
	return f
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
// conditional GETs and a trusted validator can still be compared, so never
// on a first poll, to a server that sends no validators (or none left to
// trust), or to one whose HEAD cannot help (refused, failed, answered
// without validators that tell, or found stale). When the last GET is
// ConfirmEvery old the HEAD is still sent, but the GET follows whatever it
// says: that GET confirms (or corrects) what the HEADs said, and a HEAD
// that says "unchanged" just before a GET that brings a changed body is
// caught lying there and then (see judgeHead). HeadAlways asks HEAD first
// all the same, but not of a server whose HEAD cannot help.
func (c *Client) headPays(req Request) bool {
	if req.RefusesHEAD {
		return false
	}
	return c.opts.HeadAlways || req.Conditional() && req.IgnoresConditional
}

// headVerdict is what a HEAD said about the GET to follow.
type headVerdict int

const (
	headSkipped     headVerdict = iota // no HEAD sent
	headDone                           // the HEAD's answer ends the poll
	headSaysSame                       // "unchanged", but the GET follows to confirm it
	headSaysChanged                    // other validators than the stored ones: GET
	headNoHelp                         // refused, failed, or no validators: GET
)

// head sends the conditional HEAD. Only a 304 or a trusted validator
// equal to the stored one says "unchanged", and it ends the poll only
// while the last GET is recent enough; otherwise the GET follows.
//
// A HEAD is a hint, never a verdict: any other answer than 2xx or 304 (a
// CDN rule, a framework without HEAD) is not taken as the feed's status,
// since the GET may well work. After a 404, 405, 410, 5xx or any other
// the GET follows at once; a 429 is honoured as any 429 is (Retry-After,
// back-off), the GET waiting for the poll it allows. Either way the server
// gets no HEAD again.
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
		res.Answers304 = true
		if !req.confirmed(now) {
			return headSaysSame
		}
		res.Status, res.Outcome = status, OutcomeUnchanged
		res.keepValidators(resp, now)
		res.readCacheHint(resp, now)
		res.notePermanentRedirect(req, trace)
		return headDone
	case status >= 200 && status < 300:
		return res.headValidators(req, resp, trace, now)
	case status == http.StatusTooManyRequests:
		res.RefusesHEAD = true
		res.httpFailure(resp, now)
		return headDone
	}
	res.RefusesHEAD = true
	return headNoHelp
}

// headValidators reads the validators of a 2xx answer to the HEAD: a
// trusted one equal to the stored one says "unchanged", another one
// "changed"; none at all means the HEAD can never help.
func (res *Result) headValidators(req Request, resp *http.Response, trace *redirectTrace, now time.Time) headVerdict {
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	unchanged, tells := req.sameByTrusted(etag, lm)
	switch {
	case tells && unchanged && !req.confirmed(now):
		return headSaysSame
	case tells && unchanged:
		// A trusted validator sent, conditional request ignored:
		// nothing changed.
		res.Status, res.Outcome = resp.StatusCode, OutcomeUnchanged
		if req.Conditional() {
			res.IgnoresConditional = true
		}
		res.readCacheHint(resp, now)
		res.notePermanentRedirect(req, trace)
		return headDone
	case tells:
		return headSaysChanged
	case etag == "" && lm == "":
		res.RefusesHEAD = true // nothing to compare, ever
	}
	return headNoHelp
}

// download sends the conditional GET and settles in res every answer
// with no new body to read; a new body is returned, to be parsed. head
// is what a HEAD before it in the same poll said.
func (c *Client) download(ctx context.Context, req Request, now time.Time, res *Result, head headVerdict) *fetchedBody {
	resp, trace, err := c.do(ctx, http.MethodGet, req)
	if err != nil {
		res.failNet(err)
		return nil
	}
	res.Requests += len(trace.hops) + 1
	res.Status = resp.StatusCode
	if req.Conditional() && refusesConditional(resp.StatusCode) {
		// The validators sent back are what the server cannot take (a
		// header too large for it, or conditional requests at all): they
		// are dropped, and the same GET is made without them at once.
		resp.Body.Close()
		return c.unconditional(ctx, req, now, res)
	}
	// Closing frees the host's and the run's slots, which a feed the
	// page links to on the same host will need: the body is done with
	// before any discovery.
	defer resp.Body.Close()
	body, ok := c.readAnswer(resp, req, now, res)
	if !ok {
		if res.Outcome == OutcomeUnchanged && req.Conditional() {
			// A 304 to the stored validators: the target has the feed.
			res.notePermanentRedirect(req, trace)
		}
		return nil
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if !res.Partial {
		res.judge(req, resp.Header, hash)
		if head == headSaysSame {
			res.judgeHead(req, resp.Header, hash)
		}
	}
	if hash == req.BodyHash && !res.Partial {
		res.Outcome = OutcomeUnchanged
		res.notePermanentRedirect(req, trace)
		return nil
	}
	final, _ := url.Parse(req.URL)
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL
	}
	// The body's parse turn is waited for before the body is closed, in
	// the request's slots: so the bodies read and waiting for their turn
	// are at most one a request in flight (Concurrency), however many
	// polls are under way.
	release, err := c.parseTurn(ctx, body)
	if err != nil {
		res.fail(OutcomeBroken, res.Status, err)
		return nil
	}
	return &fetchedBody{body: body, contentType: resp.Header.Get("Content-Type"), url: final, hash: hash, trace: trace,
		release: release}
}

// readAnswer settles every answer but 200 and 226 in res, and reads the
// body of those; ok says there is a body to look at.
func (c *Client) readAnswer(resp *http.Response, req Request, now time.Time, res *Result) (body []byte, ok bool) {
	switch {
	case resp.StatusCode == http.StatusNotModified:
		res.Outcome, res.LastGet = OutcomeUnchanged, now
		if req.Conditional() {
			res.Answers304, res.IgnoresConditional = true, false
		}
		res.keepValidators(resp, now)
		res.readCacheHint(resp, now)
		return nil, false
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusIMUsed:
	default:
		res.httpFailure(resp, now)
		return nil, false
	}
	body, wire, err := readBody(resp, c.opts.MaxBody)
	res.Bytes += wire
	if err != nil {
		res.fail(classify(err), resp.StatusCode, err)
		return nil, false
	}
	res.LastGet = now
	res.readCacheHint(resp, now)
	res.keepValidators(resp, now)
	res.Partial = resp.StatusCode == http.StatusIMUsed
	return body, true
}

// read reads the waiting body in its turn (parse.Read). An HTML page is
// a feed by the feed it announces, polled in the same poll once the turn
// is given back, or else by the h-feed in it.
func (c *Client) read(ctx context.Context, f *Fetched) {
	page, req, res := f.body, f.req, &f.res
	f.body = nil
	parsed, err := parse.Read(page.body, page.contentType, page.url)
	f.release()
	if err == nil && len(parsed.FeedLinks) > 0 {
		c.pollDiscovered(ctx, req, f.now, res, page, parsed.FeedLinks[0])
		return
	}
	res.readBody(req, page, parsed.Feed, err)
}

// readBody settles a body read: its feed, or what is wrong with it.
func (res *Result) readBody(req Request, b *fetchedBody, feed *parse.Feed, err error) {
	if err != nil {
		res.brokenBody(b.hash, err)
		return
	}
	res.Outcome, res.Feed, res.BodyHash, res.BodyError = OutcomeFresh, feed, b.hash, ""
	res.notePermanentRedirect(req, b.trace)
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
	// Only trusted validators are sent back: a server that honours them
	// would otherwise answer 304 by one that stayed the same while the
	// feed changed.
	if etag := req.sentETag(); etag != "" {
		hr.Header["If-None-Match"] = []string{etag}
	}
	if lm := req.sentLastModified(); lm != "" {
		hr.Header["If-Modified-Since"] = []string{lm}
	}
	if req.Conditional() {
		hr.Header.Set("A-IM", "feed")
	}
	resp, err := c.http.Do(hr)
	return resp, trace, err
}

// AcceptFeeds names the feed types, most specific first.
const AcceptFeeds = "application/atom+xml, application/rss+xml, application/feed+json, " +
	"application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.5, */*;q=0.1"

// keepValidators keeps the answer's validators, exactly as received; one
// over MaxValidator is not kept, nor a Last-Modified later than the
// answer's own clock (see wrongClock), nor then the stored one of its
// kind, which the answer says is stale.
func (res *Result) keepValidators(resp *http.Response, now time.Time) {
	if v, ok := resp.Header["Etag"]; ok && len(v) > 0 && v[0] != "" {
		res.ETag = keptValidator(v[0])
	}
	if v, ok := resp.Header["Last-Modified"]; ok && len(v) > 0 && v[0] != "" {
		res.LastModified = keptValidator(v[0])
		if wrongClock(v[0], resp.Header, now) {
			res.LastModified = ""
		}
	}
}

func keptValidator(v string) string {
	if len(v) > MaxValidator {
		return ""
	}
	return v
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
		errors.Is(err, ErrTooLarge), errors.Is(err, parse.ErrNotFeed):
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
