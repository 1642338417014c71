// Package fetch polls feeds the way the best-behaved readers do:
// conditional HEAD-then-GET, validators echoed byte for byte and trusted
// only while they tell the truth, bodies hashed and decoded under a size
// limit, Retry-After and freshness hints read, redirects and moves
// followed, per-host politeness, proxies, and no requests to private
// addresses unless allowed. It holds the HTTP conversation only: reading
// a body is the parse package's (parse.Read), and when the body is an
// HTML page announcing a feed, fetch polls that feed in the same poll
// (discover.go). A poll is two calls the caller drives, Fetch (the
// requests) and Read (the reading, in a parse turn: turn.go), so that it
// can record that a body is about to be read. It returns what it saw;
// deciding what that means for the next poll is the schedule package's
// job.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/semaphore"
	"golang.org/x/time/rate"
)

// Version is the program version named in the User-Agent.
var Version = "0.1.0"

// DefaultHostBurst is how many requests a host's token bucket lets go at
// once before host_rate paces them: the config has no key for it.
const DefaultHostBurst = 4

// Options configure a Client; zero values take the documented defaults (docs/design.md).
type Options struct {
	Contact              string        // URL named in the User-Agent
	Timeout              time.Duration // each request, body included, from when it may go (default 30s)
	MaxBody              int64         // bytes after decompression (default 10 MB)
	PerHost              int           // requests in flight to one host (default 2)
	HostRate             float64       // requests per second to one host (default 1)
	HostBurst            int           // token bucket burst (default DefaultHostBurst)
	HostWait             time.Duration // longest wait for a host's slot and token (default 10 min)
	Concurrency          int           // requests in flight over all hosts (default 16)
	AllowPrivateNetworks bool
	HeadAlways           bool // HEAD before every GET, even where it cannot pay
	// Resolver looks up the feeds' hosts; nil is the system's. Tests give
	// one of their own (internal/netfail.Resolver), so that a host that
	// does not exist fails the same way without the network.
	Resolver *net.Resolver

	// privateAddr replaces isPrivate, for tests only: every test server
	// is on loopback, so testing "refused after a redirect" needs a rule
	// that calls one loopback address public and another private.
	privateAddr func(net.IP) bool
	// lookupIP replaces the system resolver for the targets of proxied
	// requests, for tests only.
	lookupIP func(ctx context.Context, host string) ([]net.IP, error)
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 10 << 20
	}
	if o.PerHost <= 0 {
		o.PerHost = 2
	}
	if o.HostRate <= 0 {
		o.HostRate = 1
	}
	if o.HostBurst <= 0 {
		o.HostBurst = DefaultHostBurst
	}
	if o.HostWait <= 0 {
		o.HostWait = 10 * time.Minute
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
}

// Client polls feeds. It holds one http.Client and one Transport for the
// whole run, the per-host limits and the run's bound on requests in
// flight. It is safe for concurrent use.
type Client struct {
	opts      Options
	http      *http.Client
	userAgent string

	mu    sync.Mutex
	hosts map[string]*hostGate
	// requests holds a slot per request in flight over all hosts
	// (Concurrency), taken only once the request may go to its host.
	requests chan struct{}
	// What the requests wait for, under mu (see RateBound): a token of
	// their host's bucket, or a slot of the run; rateBound is closed when
	// the run may have become rate-bound.
	awaitingToken, awaitingSlot int
	rateBound                   chan struct{}

	parsing *semaphore.Weighted // ParseBudget
}

// hostGate is one host's politeness: a slot per request in flight and a
// token bucket for the request rate.
type hostGate struct {
	slots   chan struct{}
	limiter *rate.Limiter
}

// New builds a Client.
func New(opts Options) *Client {
	opts.defaults()
	c := &Client{opts: opts, hosts: map[string]*hostGate{}, requests: make(chan struct{}, opts.Concurrency),
		rateBound: make(chan struct{}), parsing: semaphore.NewWeighted(ParseBudget)}
	c.userAgent = "feeddigest/" + Version
	if opts.Contact != "" {
		c.userAgent += " (+" + opts.Contact + ")"
	}
	plain := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Resolver: opts.Resolver}
	dialer := *plain
	private := isPrivate
	if opts.privateAddr != nil {
		private = opts.privateAddr
	}
	if !opts.AllowPrivateNetworks {
		// Control runs on the address actually dialled, after DNS, for
		// every connection, those of redirects included. A proxy is
		// dialled without it, its requests' targets checked instead
		// (proxy.go).
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			return refusePrivate(address, private)
		}
	}
	proxy := proxyFromEnvironment()
	lookup := lookupIP(opts.Resolver)
	if opts.lookupIP != nil {
		lookup = opts.lookupIP
	}
	transport := &http.Transport{
		Proxy:                 func(req *http.Request) (*url.URL, error) { return proxy(req.URL) },
		DialContext:           guardedDial(plain, &dialer),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   opts.PerHost,
		MaxConnsPerHost:       opts.PerHost + 1,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true, // we ask for and decode encodings ourselves, under a size limit
	}
	c.http = &http.Client{
		// No http.Client.Timeout: it would also run while a request waits
		// for its host's slot and token, and a run with many feeds on one
		// host would see them time out for being polite. politeTransport
		// starts the timeout once the request may go.
		Transport: &politeTransport{client: c, timeout: opts.Timeout, next: &proxyGuard{next: transport, proxy: proxy,
			check: !opts.AllowPrivateNetworks, private: private, lookup: lookup}},
		CheckRedirect: checkRedirect,
	}
	return c
}

// UserAgent is the User-Agent the client sends.
func (c *Client) UserAgent() string { return c.userAgent }

func (c *Client) gate(host string) *hostGate {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.hosts[host]
	if !ok {
		g = &hostGate{
			slots:   make(chan struct{}, c.opts.PerHost),
			limiter: rate.NewLimiter(rate.Limit(c.opts.HostRate), c.opts.HostBurst),
		}
		c.hosts[host] = g
	}
	return g
}

// politeTransport waits for its turn (see Client.turn) before every
// request, redirects included, and gives the turn back when the body is
// closed. Each request gets timeout from the moment it may go, body
// included.
type politeTransport struct {
	next    http.RoundTripper
	client  *Client
	timeout time.Duration
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	release, err := t.client.turn(req.Context(), req.URL.Hostname())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		release()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: func() { cancel(); release() }}
	return resp, nil
}

// turn waits until a request may go to host: one of the host's slots,
// a token of its bucket, and one of the run's request slots, taken in
// that order, so that a request waiting for its host holds none of the
// run's slots, which bound requests in flight, not requests waiting to be
// allowed. The token is taken last, as the request goes: one taken and
// then held while the run's slots are busy would let the host's bucket
// refill meanwhile, and the host be hit by the held requests and a full
// burst at once. Release gives the slots back.
//
// Only the wait for the host counts against HostWait (a host that keeps
// its slots busy that long, or a slot never given back, fails this poll
// as a passing error, retried in a later run, rather than holding the
// run); the wait for the run's own slots does not, which the requests in
// flight free within their timeout, and which is no fault of the feed.
func (c *Client) turn(ctx context.Context, host string) (release func(), err error) {
	g := c.gate(host)
	deadline := time.Now().Add(c.opts.HostWait)
	wait, cancelWait := context.WithDeadline(ctx, deadline)
	defer cancelWait()
	select {
	case g.slots <- struct{}{}:
	case <-wait.Done():
		return nil, hostBusy(ctx, host, wait.Err())
	}
	for {
		if err := c.awaitToken(ctx, g, deadline); err != nil {
			<-g.slots
			return nil, hostBusy(ctx, host, err)
		}
		asked := time.Now()
		if err := c.awaitSlot(ctx); err != nil {
			<-g.slots
			return nil, err
		}
		deadline = deadline.Add(time.Since(asked))
		if g.limiter.Allow() {
			return sync.OnceFunc(func() { <-c.requests; <-g.slots }), nil
		}
		// Another request to the host took the token while this one
		// waited for a slot of the run: it waits for the next token
		// without holding the slot.
		<-c.requests
	}
}

// errNoTokenInTime means the host's bucket holds no token before the
// wait's deadline.
var errNoTokenInTime = errors.New("no rate token before the deadline")

// awaitToken waits until the host's bucket holds a token, without taking
// it. A token that comes after deadline is refused at once, not waited
// for until the deadline.
func (c *Client) awaitToken(ctx context.Context, g *hostGate, deadline time.Time) error {
	for {
		now := time.Now()
		tokens := g.limiter.TokensAt(now)
		if tokens >= 1 {
			return nil
		}
		delay := time.Duration((1 - tokens) / float64(g.limiter.Limit()) * float64(time.Second))
		if now.Add(delay).After(deadline) {
			return errNoTokenInTime
		}
		c.waiting(&c.awaitingToken, +1)
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
		c.waiting(&c.awaitingToken, -1)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// awaitSlot waits for a slot of the run.
func (c *Client) awaitSlot(ctx context.Context) error {
	select {
	case c.requests <- struct{}{}:
		return nil
	default:
	}
	c.waiting(&c.awaitingSlot, +1)
	defer c.waiting(&c.awaitingSlot, -1)
	select {
	case c.requests <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waiting counts a request in or out of a wait (one of the await
// counters), and says when the run may have become rate-bound.
func (c *Client) waiting(counter *int, delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	*counter += delta
	if c.awaitingToken > 0 && c.awaitingSlot == 0 {
		close(c.rateBound)
		c.rateBound = make(chan struct{})
	}
}

// RateBound says whether the run is bound by its hosts' rates: requests
// wait for their hosts' tokens while none waits for a slot of the run, so
// that requests to other hosts would go at once. The channel is closed
// when that may have become so, for a caller to ask again. A run works
// more hosts at once only while it is (see pipeline's claim loops):
// bound by its own slots, it would hold hosts that other runs sharing
// the pass could poll.
func (c *Client) RateBound() (bool, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.awaitingToken > 0 && c.awaitingSlot == 0, c.rateBound
}

// ErrHostBusy means a request waited longer than HostWait for its turn
// at the host (a slot and a rate token).
var ErrHostBusy = errors.New("waited too long for a turn at the host")

// hostBusy explains a failed wait: the caller's cancellation as it is,
// else ErrHostBusy.
func hostBusy(ctx context.Context, host string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w %s: %w", ErrHostBusy, host, err)
}

type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// ErrPrivateAddress means a feed's host resolved to an address that the
// client refuses unless Options.AllowPrivateNetworks is set.
var ErrPrivateAddress = errors.New("refusing to connect to a private, loopback, link-local or unspecified address")

// refusePrivate refuses an address (host:port, host an IP) that private
// says is not public.
func refusePrivate(address string, private func(net.IP) bool) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || private(ip) {
		return fmt.Errorf("%w: %s", ErrPrivateAddress, host)
	}
	return nil
}

// ErrTooManyRedirects means a chain of more than MaxRedirects, or a loop.
var ErrTooManyRedirects = errors.New("too many redirects")

// MaxRedirects is the longest redirect chain followed.
const MaxRedirects = 5

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("%w (more than %d)", ErrTooManyRedirects, MaxRedirects)
	}
	for _, prev := range via {
		if prev.URL.String() == req.URL.String() {
			return fmt.Errorf("%w: loop at %s", ErrTooManyRedirects, req.URL)
		}
	}
	// net/http adds a Referer on redirects; a feed reader sends none.
	req.Header.Del("Referer")
	if trace, ok := req.Context().Value(traceKey{}).(*redirectTrace); ok && req.Response != nil {
		trace.hops = append(trace.hops, hop{status: req.Response.StatusCode, to: req.URL})
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to unsupported scheme %q", req.URL.Scheme)
	}
	return nil
}

type traceKey struct{}

// redirectTrace records the redirects one request followed.
type redirectTrace struct{ hops []hop }

type hop struct {
	status int
	to     *url.URL
}

// permanentTarget is where the leading run of permanent redirects (301,
// 308) leads; "" when the first hop was temporary or there was none.
func (t *redirectTrace) permanentTarget() *url.URL {
	var target *url.URL
	for _, h := range t.hops {
		if h.status != http.StatusMovedPermanently && h.status != http.StatusPermanentRedirect {
			break
		}
		target = h.to
	}
	return target
}

// sameOrigin compares scheme and host.
func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Host == b.Host
}

// Closed makes the client drop idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }
