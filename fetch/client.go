// Package fetch polls feeds the way the best-behaved readers do:
// conditional HEAD-then-GET, validators echoed byte for byte, bodies
// hashed and decoded under a size limit, Retry-After and freshness hints
// read, per-host politeness, and no requests to private addresses unless
// allowed. It returns what it saw; deciding what that means for the next
// poll is the schedule package's job.
package fetch

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"golang.org/x/time/rate"
)

// Version is the program version named in the User-Agent.
var Version = "0.1.0"

// Options configure a Client; zero values take the defaults of DESIGN.md.
type Options struct {
	Contact              string        // URL named in the User-Agent
	Timeout              time.Duration // whole request, body included (default 30s)
	MaxBody              int64         // bytes after decompression (default 10 MB)
	PerHost              int           // requests in flight to one host (default 2)
	HostRate             float64       // requests per second to one host (default 1)
	HostBurst            int           // token bucket burst (default 4)
	AllowPrivateNetworks bool
	HeadAlways           bool // HEAD before every GET, even where it cannot pay
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
		o.HostBurst = 4
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
	c := &Client{opts: opts, hosts: map[string]*hostGate{}}
	c.userAgent = "feeddigest/" + Version
	if opts.Contact != "" {
		c.userAgent += " (+" + opts.Contact + ")"
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !opts.AllowPrivateNetworks {
		dialer.Control = refusePrivate
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
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
		Transport:     &politeTransport{next: transport, client: c},
		Timeout:       opts.Timeout,
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
type politeTransport struct {
	next   http.RoundTripper
	client *Client
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	g := t.client.gate(req.URL.Hostname())
	ctx := req.Context()
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := sync.OnceFunc(func() { <-g.slots })
	if err := g.limiter.Wait(ctx); err != nil {
		release()
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
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

// ErrPrivateAddress means a feed's host resolved to an address that
// feeddigest does not poll unless allow_private_networks is set.
var ErrPrivateAddress = errors.New("refusing to connect to a private, loopback, link-local or unspecified address (set [fetch] allow_private_networks = true to allow)")

// refusePrivate runs on the address actually dialled, after DNS, for
// every connection including those of redirects.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || isPrivate(ip) {
		return fmt.Errorf("%w: %s", ErrPrivateAddress, host)
	}
	return nil
}

func isPrivate(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() ||
		isSharedAddressSpace(ip)
}

// isSharedAddressSpace is 100.64.0.0/10 (carrier-grade NAT), private in practice.
func isSharedAddressSpace(ip net.IP) bool {
	v4 := ip.To4()
	return v4 != nil && v4[0] == 100 && v4[1]&0xC0 == 64
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
