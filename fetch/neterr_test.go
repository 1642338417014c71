package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/netfail"
)

// Each way a request fails on the network is classified by its kind, with
// the host it failed for and the facts its words need, against a real
// loopback socket (the DNS lookup too: its server is a loopback one, so
// no test needs the network). The words are said from the code, in
// package render (a digest's problem line) and pipeline (the operator's).
func TestNetFailureKinds(t *testing.T) {
	expired := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	resolver := netfail.Resolver(t, map[string]string{"wrong-host.test": "127.0.0.1"})
	hostOf := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return u.Host
	}
	tests := []struct {
		name    string
		url     string
		timeout time.Duration
		want    NetFailure // its Host: the URL's
	}{
		{"no such host", "http://nosuch.invalid/feed.xml", 0, NetFailure{Kind: NetUnknownHost}},
		{"nothing listens", netfail.RefusedURL(t), 0, NetFailure{Kind: NetRefused}},
		{"reset before answering", netfail.ResettingURL(t), 0, NetFailure{Kind: NetClosed}},
		{"closed before answering", closingURL(t), 0, NetFailure{Kind: NetClosed}},
		{"never answers", netfail.SilentURL(t), 300 * time.Millisecond, NetFailure{Kind: NetTimeout}},
		{"self-signed certificate", netfail.SelfSignedURL(t), 0, NetFailure{Kind: NetCertUnknown}},
		{"expired certificate", netfail.ExpiredURL(t, expired), 0, NetFailure{Kind: NetCertExpired, Expired: expired}},
		{"certificate for another host", netfail.WrongHostURL(t, "wrong-host.test"), 0,
			NetFailure{Kind: NetCertHost, Names: []string{"example.com", "*.example.com", "127.0.0.1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testClient(Options{Resolver: resolver, Timeout: tt.timeout})
			defer c.Close()
			res := c.Poll(t.Context(), Request{URL: tt.url}, testNow)
			f := NetFailureOf(res.Err)
			want := tt.want
			want.Host = hostOf(tt.url)
			if f.Kind != want.Kind || f.Host != want.Host || !f.Expired.Equal(want.Expired) || !slices.Equal(f.Names, want.Names) || f.Detail != "" {
				t.Errorf("failure %+v, want %+v (error: %v)", f, want, res.Err)
			}
			if got := res.Problem(); got != f.Code() || string(got.Kind) != string(f.Kind) || got.Host != f.Host {
				t.Errorf("the digest's problem is kept as %+v, want %+v", got, f.Code())
			}
			if res.Outcome != OutcomeNetError {
				t.Errorf("outcome %v, want a passing network error", res.Outcome)
			}
		})
	}
}

// Failures that are not the network's have no network kind, whatever
// they wrap: a parser's truncated input, a cancelled pass, a private
// address refused at the dial, an HTTP status.
func TestNotNetFailures(t *testing.T) {
	for _, err := range []error{
		nil,
		fmt.Errorf("json: %w", errors.New("unexpected end")),
		fmt.Errorf("parse: %w", fmt.Errorf("decode: %w", eofOutsideARequest())),
		&url.Error{Op: "Get", URL: "https://a.example/feed", Err: context.Canceled},
		&url.Error{Op: "Get", URL: "https://a.example/feed", Err: &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("%w: 10.0.0.1", ErrPrivateAddress)}},
		&ErrStatus{Code: 503},
	} {
		if f := NetFailureOf(err); f.Kind != NetNone {
			t.Errorf("%v: kind %q, want none", err, f.Kind)
		}
	}
}

// eofOutsideARequest is an io.EOF wrapped by neither a request nor a
// body's read.
func eofOutsideARequest() error {
	_, err := strings.NewReader("").Read(nil)
	return fmt.Errorf("short: %w", err)
}

// A connection cut while the body is read is said to be, apart from one
// closed before any answer.
func TestNetFailureCutBody(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		conn.Read(make([]byte, 4096))
		conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: 5000\r\n\r\n<rss><channel>"))
		conn.(*net.TCPConn).SetLinger(0)
		conn.Close()
	}()
	c := testClient(Options{})
	defer c.Close()
	res := c.Poll(t.Context(), Request{URL: "http://" + l.Addr().String() + "/feed.xml"}, testNow)
	f := NetFailureOf(res.Err)
	if f.Kind != NetCut || f.Host != l.Addr().String() {
		t.Errorf("kind %q, host %q; want %q, %q (error: %v)", f.Kind, f.Host, NetCut, l.Addr(), res.Err)
	}
}

// closingURL is an http URL whose server takes each request and closes
// its connection without a word (Go says `Get "…": EOF`).
func closingURL(t *testing.T) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/feed.xml"
}
