package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
)

func TestRedirectToPrivateAddressRefused(t *testing.T) {
	var private recorder
	private.handler = conditionalFeed(readTestdata(t, "rss.xml"), `"v"`, "")
	inside := listenOn(t, "127.0.0.2", &private)
	var public recorder
	public.handler = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inside.URL+"/feed", http.StatusMovedPermanently)
	}
	outside := listenOn(t, "127.0.0.1", &public)

	// All test servers are on loopback: here 127.0.0.1 plays a public
	// address and 127.0.0.2 a private one.
	onlyDotTwo := func(ip net.IP) bool { return ip.Equal(net.IPv4(127, 0, 0, 2)) }
	c := New(Options{HostRate: 1000, privateAddr: onlyDotTwo})

	res := c.Poll(context.Background(), Request{URL: outside.URL + "/feed"}, testNow)
	if !errors.Is(res.Err, ErrPrivateAddress) || res.Outcome != OutcomeBroken {
		t.Errorf("outcome %v err %v, want the redirect's target refused", res.Outcome, res.Err)
	}
	if got := public.methods(); got != "GET" {
		t.Errorf("the public server saw %q, want one GET", got)
	}
	if got := private.methods(); got != "" {
		t.Errorf("the private server was reached: %q", got)
	}
	if res.PermanentURL != "" {
		t.Errorf("a refused target must not become the feed's URL: %q", res.PermanentURL)
	}

	// The same client polls the public server directly: the rule, not a
	// broken setup, refused the redirect.
	direct := New(Options{HostRate: 1000, privateAddr: onlyDotTwo})
	public.handler = conditionalFeed(readTestdata(t, "rss.xml"), `"v"`, "")
	if res := direct.Poll(context.Background(), Request{URL: outside.URL + "/feed"}, testNow); res.Outcome != OutcomeFresh {
		t.Errorf("public address: outcome %v err %v", res.Outcome, res.Err)
	}
}

func TestIsPrivate(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"::1", true},
		{"0.0.0.0", true},
		{"::", true},
		{"0.1.2.3", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.168.1.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"169.254.0.1", true},
		{"fe80::1", true},
		{"fc00::1", true},
		{"fd12:3456:789a::1", true},
		{"100.64.0.1", true}, // carrier-grade NAT
		{"100.127.255.255", true},
		{"224.0.0.1", true},
		{"ff02::1", true},
		{"255.255.255.255", true},
		{"240.0.0.1", true},
		{"::ffff:127.0.0.1", true}, // IPv4-mapped forms count as their IPv4
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},

		{"8.8.8.8", false},
		{"93.184.216.34", false},
		{"172.32.0.1", false},
		{"172.15.255.255", false},
		{"100.63.255.255", false},
		{"100.128.0.1", false},
		{"169.255.0.1", false},
		{"2001:4860:4860::8888", false},
		{"2606:4700:4700::1111", false},
		{"::ffff:8.8.8.8", false},
	}
	for _, tt := range tests {
		checkPrivate(t, tt.ip, tt.want)
	}
	if err := refusePrivate("localhost:80", isPrivate); !errors.Is(err, ErrPrivateAddress) {
		t.Errorf("an address that is not an IP must be refused: %v", err)
	}
}
