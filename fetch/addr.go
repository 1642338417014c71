package fetch

import (
	"context"
	"net"
	"net/netip"
)

// isPrivate says an address is not on the public internet: loopback,
// RFC 1918 / RFC 4193 private, link-local (cloud metadata lives at
// 169.254.169.254), unspecified (0.0.0.0 reaches the local host on
// Linux), multicast, "this network" 0/8, reserved 240/4 and broadcast,
// and carrier-grade NAT. IPv6 forms that carry an IPv4 address count as
// that address: IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d (a
// NAT64 gateway turns it into a connection to a.b.c.d) and 6to4
// 2002:aabb:ccdd::. Refused whole: the deprecated IPv4-compatible
// ::a.b.c.d, the local-use NAT64 prefix 64:ff9b:1::/48, and site-local
// fec0::/10, none of which is public.
func isPrivate(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
		if v4[0] == 0 || v4[0] >= 240 {
			return true
		}
	} else if addr, ok := netip.AddrFromSlice(ip); !ok {
		return true // not an address at all
	} else if embedded, ok := embeddedIPv4(addr); ok {
		return isPrivate(embedded)
	} else if localOnlyIPv6(addr) {
		return true
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() ||
		isSharedAddressSpace(ip)
}

var (
	nat64         = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052
	nat64Local    = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215
	sixToFour     = netip.MustParsePrefix("2002::/16")      // RFC 3056
	ipv4Compat    = netip.MustParsePrefix("::/96")          // RFC 4291, deprecated
	siteLocalIPv6 = netip.MustParsePrefix("fec0::/10")      // RFC 3879, deprecated
)

// embeddedIPv4 is the IPv4 address a NAT64 or 6to4 address leads to.
func embeddedIPv4(addr netip.Addr) (net.IP, bool) {
	b := addr.As16()
	switch {
	case nat64.Contains(addr):
		return net.IPv4(b[12], b[13], b[14], b[15]).To4(), true
	case sixToFour.Contains(addr):
		return net.IPv4(b[2], b[3], b[4], b[5]).To4(), true
	}
	return nil, false
}

func localOnlyIPv6(addr netip.Addr) bool {
	return nat64Local.Contains(addr) || ipv4Compat.Contains(addr) || siteLocalIPv6.Contains(addr)
}

// isSharedAddressSpace is 100.64.0.0/10 (carrier-grade NAT), private in practice.
func isSharedAddressSpace(ip net.IP) bool {
	v4 := ip.To4()
	return v4 != nil && v4[0] == 100 && v4[1]&0xC0 == 64
}

// PrivateAddress is the first address host (a name or an IP) resolves to
// that a feed may not be polled on unless private networks are allowed;
// ok false when it has none, or cannot be resolved now. For advice only
// (import's warning): the check that counts is made at each connection.
func PrivateAddress(ctx context.Context, host string) (ip net.IP, ok bool) {
	if ip := net.ParseIP(host); ip != nil {
		return ip, isPrivate(ip)
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, false
	}
	for _, a := range addrs {
		if isPrivate(a.IP) {
			return a.IP, true
		}
	}
	return nil, false
}
