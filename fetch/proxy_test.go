package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// forwardProxy is an HTTP forward proxy on loopback that answers every
// proxied GET itself with a feed (it reaches nothing), refuses CONNECT,
// and records what it was asked for.
type forwardProxy struct {
	mu   sync.Mutex
	seen []string
	feed []byte
}

func (p *forwardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Method == http.MethodConnect {
		p.seen = append(p.seen, "CONNECT "+r.Host)
		http.Error(w, "no tunnels here", http.StatusForbidden)
		return
	}
	p.seen = append(p.seen, r.Method+" "+r.URL.String())
	w.Header().Set("Content-Type", "application/rss+xml")
	w.Write(p.feed)
}

func (p *forwardProxy) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// startProxy serves a forward proxy on 127.0.0.1 and names it in the
// environment (HTTP_PROXY, HTTPS_PROXY), as an installation would.
func startProxy(t *testing.T) *forwardProxy {
	p := &forwardProxy{feed: readTestdata(t, "rss.xml")}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy"} {
		t.Setenv(name, "")
	}
	t.Setenv("HTTP_PROXY", ts.URL)
	t.Setenv("HTTPS_PROXY", ts.URL)
	return p
}

// testNames resolves the .test names of these tests (RFC 6761: never real).
func testNames(_ context.Context, host string) ([]net.IP, error) {
	names := map[string][]string{
		"feed.test":    {"93.184.215.14"},
		"private.test": {"10.1.2.3"},
		"meta.test":    {"169.254.169.254"},
		"mixed.test":   {"93.184.215.14", "192.168.1.1"},
		"v6.test":      {"fd00::1"},
	}
	addrs, ok := names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var ips []net.IP
	for _, a := range addrs {
		ips = append(ips, net.ParseIP(a))
	}
	return ips, nil
}

func TestProxyChecksTheTargetNotTheProxy(t *testing.T) {
	proxy := startProxy(t)
	c := New(Options{HostRate: 1000, lookupIP: testNames})
	defer c.Close()
	refused := []struct{ url, names string }{
		{"http://10.0.0.1/feed", "10.0.0.1"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254"},
		{"http://192.168.1.1/feed", "192.168.1.1"},
		{"http://[fd00::1]/feed", "fd00::1"},
		{"http://private.test/feed", "10.1.2.3 (private.test)"},
		{"http://meta.test/feed", "169.254.169.254 (meta.test)"},
		{"http://mixed.test/feed", "192.168.1.1 (mixed.test)"},
		{"http://v6.test:8080/feed", "fd00::1 (v6.test)"},
		{"https://10.0.0.1/feed", "10.0.0.1"},
		{"https://private.test/feed", "10.1.2.3 (private.test)"},
	}
	proxyAt := strings.TrimPrefix(httpProxyFromEnv(t), "http://")
	for _, tt := range refused {
		res := c.Poll(context.Background(), Request{URL: tt.url}, testNow)
		if !errors.Is(res.Err, ErrPrivateAddress) || res.Outcome != OutcomeBroken || !strings.Contains(res.Err.Error(), tt.names) ||
			strings.Contains(res.Err.Error(), proxyAt) {
			t.Errorf("%s: outcome %v, err %v; want refused naming %s, not the proxy", tt.url, res.Outcome, res.Err, tt.names)
		}
	}
	if asked := proxy.asked(); len(asked) != 0 {
		t.Errorf("private targets reached the proxy: %v", asked)
	}

	// Public targets go through the proxy on loopback: the proxy's own
	// address is not what is checked.
	for _, url := range []string{"http://feed.test/feed", "http://93.184.215.14/feed"} {
		if res := c.Poll(context.Background(), Request{URL: url}, testNow); res.Outcome != OutcomeFresh {
			t.Errorf("%s through the proxy: outcome %v, err %v", url, res.Outcome, res.Err)
		}
	}
	res := c.Poll(context.Background(), Request{URL: "https://feed.test/feed"}, testNow)
	if res.Err == nil || errors.Is(res.Err, ErrPrivateAddress) {
		t.Errorf("https through a proxy that refuses tunnels: %v", res.Err)
	}
	want := []string{"GET http://feed.test/feed", "GET http://93.184.215.14/feed", "CONNECT feed.test:443"}
	if asked := proxy.asked(); fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("the proxy was asked %v, want %v", asked, want)
	}
}

func TestProxyTargetsAllowedWhenPrivateNetworksAre(t *testing.T) {
	proxy := startProxy(t)
	c := New(Options{HostRate: 1000, AllowPrivateNetworks: true, lookupIP: testNames})
	defer c.Close()
	if res := c.Poll(context.Background(), Request{URL: "http://10.0.0.1/feed"}, testNow); res.Outcome != OutcomeFresh {
		t.Errorf("outcome %v, err %v", res.Outcome, res.Err)
	}
	if asked := proxy.asked(); len(asked) != 1 {
		t.Errorf("the proxy was asked %v", asked)
	}
}

// Without a proxy for a target (NO_PROXY), the dialer's check applies as
// before, also to an address that happens to be the proxy's.
func TestNoProxyTargetsAreCheckedAtDial(t *testing.T) {
	startProxy(t)
	target := httptest.NewServer(conditionalFeed(readTestdata(t, "rss.xml"), "", ""))
	defer target.Close()
	t.Setenv("NO_PROXY", "127.0.0.1")
	c := New(Options{HostRate: 1000, lookupIP: testNames})
	defer c.Close()
	if res := c.Poll(context.Background(), Request{URL: target.URL + "/feed"}, testNow); !errors.Is(res.Err, ErrPrivateAddress) {
		t.Errorf("a loopback target outside the proxy: %v, want refused", res.Err)
	}
	proxyURL := strings.TrimPrefix(httpProxyFromEnv(t), "http://")
	if res := c.Poll(context.Background(), Request{URL: "http://" + proxyURL + "/feed"}, testNow); !errors.Is(res.Err, ErrPrivateAddress) {
		t.Errorf("the proxy's own address as a target: %v, want refused", res.Err)
	}
}

func httpProxyFromEnv(t *testing.T) string {
	t.Helper()
	u, err := proxyFromEnvironment()(&url.URL{Scheme: "http", Host: "feed.test"})
	if err != nil || u == nil {
		t.Fatalf("no proxy: %v", err)
	}
	return u.String()
}
