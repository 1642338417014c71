package fetch

import (
	"errors"
	"net"
	"net/netip"
	"testing"
)

// IPv6 forms that lead to, or stand for, addresses off the public
// internet (issue 10), beside public ones of the same forms.
func TestIsPrivateIPv6Forms(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"64:ff9b::10.0.0.1", true},  // NAT64, RFC 6052
		{"64:ff9b::a9fe:a9fe", true}, // 169.254.169.254
		{"64:ff9b::127.0.0.1", true},
		{"64:ff9b::192.168.1.1", true},
		{"64:ff9b::8.8.8.8", false},   // what IPv6-only networks use to reach 8.8.8.8
		{"64:ff9b:1::10.0.0.1", true}, // local-use NAT64, RFC 8215
		{"64:ff9b:1:ffff::8.8.8.8", true},
		{"::10.0.0.1", true}, // IPv4-compatible, deprecated
		{"::169.254.169.254", true},
		{"::127.0.0.1", true},
		{"::8.8.8.8", true},
		{"fec0::1", true}, // site-local, deprecated
		{"feff:ffff::1", true},
		{"2002:0a00:0001::1", true}, // 6to4 of 10.0.0.1
		{"2002:a9fe:a9fe::", true},  // 6to4 of 169.254.169.254
		{"2002:0808:0808::1", false},
		{"ff00::1", true},
		{"2001:db8::1", false}, // documentation: not routed, but not a local network either
		{"2a00:1450:4001:81c::200e", false},
	}
	for _, tt := range tests {
		checkPrivate(t, tt.ip, tt.want)
	}
}

// notPublic is an independent statement of isPrivate's rule, as prefix
// lists, for the fuzz test to compare against.
var notPublicV4 = prefixes("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.168.0.0/16", "224.0.0.0/4", "240.0.0.0/4")

var notPublicV6 = prefixes("::/96", "64:ff9b:1::/48", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8")

func prefixes(list ...string) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range list {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
}

func notPublic(addr netip.Addr) bool {
	if addr.Is4In6() {
		addr = addr.Unmap()
	}
	if addr.Is6() {
		b := addr.As16()
		if netip.MustParsePrefix("64:ff9b::/96").Contains(addr) {
			addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		} else if netip.MustParsePrefix("2002::/16").Contains(addr) {
			addr = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		}
	}
	list := notPublicV6
	if addr.Is4() {
		list = notPublicV4
	}
	for _, p := range list {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

func FuzzIsPrivate(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "8.8.8.8", "64:ff9b::10.0.0.1", "64:ff9b::8.8.8.8", "::ffff:127.0.0.1",
		"2002:0a00:0001::1", "fec0::1", "::1.2.3.4", "2606:4700::1111", "fe80::1"} {
		f.Add([]byte(net.ParseIP(s)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ip := net.IP(b)
		got := isPrivate(ip)
		addr, ok := netip.AddrFromSlice(b)
		if !ok {
			if !got {
				t.Fatalf("%x is not an address, and was taken as public", b)
			}
			return
		}
		if want := notPublic(addr); got != want {
			t.Fatalf("isPrivate(%s) = %v, want %v", addr, got, want)
		}
	})
}

// checkPrivate says whether isPrivate takes ip for a local network's
// address, and refusePrivate refuses it, as want says.
func checkPrivate(t *testing.T, ip string, want bool) {
	t.Helper()
	addr := net.ParseIP(ip)
	if addr == nil {
		t.Fatalf("bad test address %q", ip)
	}
	if got := isPrivate(addr); got != want {
		t.Errorf("isPrivate(%s) = %v, want %v", ip, got, want)
	}
	err := refusePrivate(net.JoinHostPort(ip, "443"), isPrivate)
	if refused := errors.Is(err, ErrPrivateAddress); refused != want {
		t.Errorf("refusePrivate(%s) = %v", ip, err)
	}
}
