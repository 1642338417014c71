package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"golang.org/x/net/http/httpproxy"
)

// With HTTP_PROXY or HTTPS_PROXY set, the connection goes to the proxy and
// the dial-time address check (refusePrivate in the dialer's Control) sees
// only the proxy: it would refuse a proxy on loopback, the usual place for
// one, and let every private target through a proxy elsewhere. So, for a
// request that goes through a proxy, the target is resolved here and
// checked before the request is sent, and the dial to the proxy itself is
// not checked. (The proxy resolves the name again: a name whose answer
// changes between the two lookups can still lead it elsewhere; what a
// proxy may reach is finally the proxy's own rules.)

// proxyFromEnvironment reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY (and their
// lower-case forms) now, as http.ProxyFromEnvironment does once per process.
func proxyFromEnvironment() func(*url.URL) (*url.URL, error) {
	return httpproxy.FromEnvironment().ProxyFunc()
}

// proxyDialKey marks a request's context with the address of the proxy it
// goes through: the one address dialled without the private-address check.
type proxyDialKey struct{}

// proxyGuard checks the target of every request that goes through a
// proxy, before it goes.
type proxyGuard struct {
	next    http.RoundTripper
	proxy   func(*url.URL) (*url.URL, error)
	check   bool // refuse private targets
	private func(net.IP) bool
	lookup  func(ctx context.Context, host string) ([]net.IP, error)
}

func (g *proxyGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	proxy, err := g.proxy(req.URL)
	if err != nil || proxy == nil {
		// Direct (or a proxy setting the Transport will refuse itself):
		// the dialer checks the address it connects to.
		return g.next.RoundTrip(req)
	}
	if g.check {
		if err := g.refusePrivateTarget(req.Context(), req.URL.Hostname()); err != nil {
			return nil, err
		}
	}
	ctx := context.WithValue(req.Context(), proxyDialKey{}, proxyAddr(proxy))
	return g.next.RoundTrip(req.WithContext(ctx))
}

// refusePrivateTarget refuses a host that is, or resolves to, an address
// that is not public: any of its addresses, since the proxy may pick any.
func (g *proxyGuard) refusePrivateTarget(ctx context.Context, host string) error {
	ips := []net.IP{net.ParseIP(host)}
	if ips[0] == nil {
		var err error
		if ips, err = g.lookup(ctx, host); err != nil {
			return &net.OpError{Op: "lookup", Net: "ip", Err: err}
		}
	}
	for _, ip := range ips {
		if g.private(ip) {
			if ip.String() == host {
				return fmt.Errorf("%w: %s", ErrPrivateAddress, host)
			}
			return fmt.Errorf("%w: %s (%s)", ErrPrivateAddress, ip, host)
		}
	}
	return nil
}

// lookupIP looks hosts up with r, nil being the system's resolver.
func lookupIP(r *net.Resolver) func(ctx context.Context, host string) ([]net.IP, error) {
	return func(ctx context.Context, host string) ([]net.IP, error) {
		if r == nil {
			r = net.DefaultResolver
		}
		return r.LookupIP(ctx, "ip", host)
	}
}

// proxyAddr is the host:port the Transport dials for a proxy URL.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// guardedDial dials a proxy as it is, and anything else with checked.
func guardedDial(plain, checked *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if proxy, _ := ctx.Value(proxyDialKey{}).(string); proxy != "" && proxy == addr {
			return plain.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
}
