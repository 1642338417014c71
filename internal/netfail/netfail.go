// Package netfail makes the network fail, for tests, on real loopback
// sockets and without the network: a port nobody listens on, a server
// that resets each connection, one that never answers, a DNS server that
// knows no name, and HTTPS servers whose certificates a client cannot
// trust. Each is closed when its test ends.
package netfail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"feeddigest/internal/testcert"
)

// RefusedURL is an http URL of a loopback port that nobody listens on: a
// connection to it is refused.
func RefusedURL(t testing.TB) string {
	t.Helper()
	return "http://" + RefusedAddr(t) + "/feed.xml"
}

// RefusedAddr is a loopback address (127.0.0.1:port) that nobody listens
// on.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// ResettingURL is an http URL whose server reads each request and then
// resets the connection (SetLinger(0) and Close send an RST), before any
// answer.
func ResettingURL(t testing.TB) string {
	return serveTCP(t, func(c *net.TCPConn) {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		c.Read(make([]byte, 4096))
		c.SetLinger(0)
		c.Close()
	})
}

// SilentURL is an http URL whose server takes each connection and never
// answers, until the test ends.
func SilentURL(t testing.TB) string {
	done := make(chan struct{})
	url := serveTCP(t, func(c *net.TCPConn) {
		<-done
		c.Close()
	})
	// Cleanups run last first: the connections are let go before the
	// server waits for them.
	t.Cleanup(func() { close(done) })
	return url
}

// serveTCP serves each connection of a loopback listener with handle, on
// its own goroutine, until the test ends, and returns the listener's
// http URL.
func serveTCP(t testing.TB, handle func(*net.TCPConn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { handle(c.(*net.TCPConn)) })
		}
	})
	return "http://" + l.Addr().String() + "/feed.xml"
}

// Resolver is a resolver that asks only a DNS server of its own on
// loopback, which answers each name of names (a host name, fully
// qualified or not) with its IPv4 address and every other name with
// NXDOMAIN ("no such host"): a lookup that fails, or succeeds, without
// the network.
func Resolver(t testing.TB, names map[string]string) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string][4]byte{}
	for name, ip := range names {
		v4 := net.ParseIP(ip).To4()
		if v4 == nil {
			t.Fatalf("netfail.Resolver: %q is not an IPv4 address", ip)
		}
		known[dnsName(name)] = [4]byte(v4)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		pc.Close()
		wg.Wait()
	})
	wg.Go(func() { answerDNS(pc, known) })
	server := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", server)
	}}
}

func dnsName(name string) string {
	if name == "" || name[len(name)-1] != '.' {
		name += "."
	}
	return name
}

// answerDNS answers each query that comes to pc until it is closed.
func answerDNS(pc net.PacketConn, known map[string][4]byte) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if reply, ok := dnsReply(buf[:n], known); ok {
			pc.WriteTo(reply, from)
		}
	}
}

// dnsReply is the answer to the query q: an A record for a known name, no
// record (and no error) for its other types, NXDOMAIN for other names.
func dnsReply(q []byte, known map[string][4]byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil, false
	}
	question, err := p.Question()
	if err != nil {
		return nil, false
	}
	ip, ok := known[question.Name.String()]
	rcode := dnsmessage.RCodeSuccess
	if !ok {
		rcode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: rcode})
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(question) != nil || b.StartAnswers() != nil {
		return nil, false
	}
	if ok && question.Type == dnsmessage.TypeA {
		rh := dnsmessage.ResourceHeader{Name: question.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 60}
		if b.AResource(rh, dnsmessage.AResource{A: ip}) != nil {
			return nil, false
		}
	}
	reply, err := b.Finish()
	return reply, err == nil
}

// SelfSignedURL is an https URL of a server whose certificate (httptest's,
// for 127.0.0.1 and example.com) no authority a client trusts signed.
func SelfSignedURL(t testing.TB) string {
	return startTLS(t, nil)
}

// WrongHostURL is SelfSignedURL with the host name in place of
// 127.0.0.1: with a Resolver that gives name 127.0.0.1, a client reaches
// a server whose certificate is for other names.
func WrongHostURL(t testing.TB, name string) string {
	u := SelfSignedURL(t)
	return strings.Replace(u, "127.0.0.1", name, 1)
}

// startTLS starts an HTTPS server with the certificate cert (nil:
// httptest's) that answers 404 and keeps quiet about the handshakes its
// clients give up.
func startTLS(t testing.TB, cert *tls.Certificate) string {
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	if cert != nil {
		ts.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
	}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts.URL + "/feed.xml"
}

// ExpiredURL is an https URL of a server on 127.0.0.1 whose certificate,
// for 127.0.0.1, expired at expired.
func ExpiredURL(t testing.TB, expired time.Time) string {
	t.Helper()
	cert := testcert.Make(t, &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: expired.AddDate(-1, 0, 0), NotAfter: expired,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	})
	return startTLS(t, &cert.TLS)
}
