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
	AllowPrivateNetworks bool
	HeadAlways           bool // HEAD before every GET, even where it cannot pay

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
}

// Client polls feeds. It holds one http.Client and one Transport for the
// whole run, and the per-host limits. It is safe for concurrent use.
type Client struct {
	opts      Options
	http      *http.Client
	userAgent string

	mu    sync.Mutex
	hosts map[string]*hostGate

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
	c := &Client{opts: opts, hosts: map[string]*hostGate{}, parsing: semaphore.NewWeighted(ParseBudget)}
	c.userAgent = "feeddigest/" + Version
	if opts.Contact != "" {
		c.userAgent += " (+" + opts.Contact + ")"
	}
	plain := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
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
	lookup := lookupIP
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

// politeTransport waits for a host slot and a rate token before every
// request, redirects included, and frees the slot when the body is closed.
// Each request gets timeout from the moment it may go, body included.
type politeTransport struct {
	next    http.RoundTripper
	client  *Client
	timeout time.Duration
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	g := t.client.gate(host)
	ctx := req.Context()
	// The wait is bounded, though generously: a host that keeps its slots
	// busy that long (or a slot never given back) fails this poll as a
	// passing error, retried in a later run, rather than holding the run.
	wait, cancelWait := context.WithTimeout(ctx, t.client.opts.HostWait)
	defer cancelWait()
	select {
	case g.slots <- struct{}{}:
	case <-wait.Done():
		return nil, hostBusy(ctx, host, wait.Err())
	}
	release := sync.OnceFunc(func() { <-g.slots })
	if err := g.limiter.Wait(wait); err != nil {
		release()
		return nil, hostBusy(ctx, host, err)
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		release()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: func() { cancel(); release() }}
	return resp, nil
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
