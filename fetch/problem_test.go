package fetch

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/internal/netfail"
)

// Every way a poll fails has a code the state keeps, with the facts its
// words need (the host of a network failure).
func TestProblemInPlainWords(t *testing.T) {
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
	}
	refused := netfail.RefusedURL(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name    string
		handler http.HandlerFunc
		url     string // instead of a server
		opts    Options
		private bool               // refuse loopback addresses
		want    domain.ProblemCode // Host "HOST": the test server's
	}{
		{name: "404", handler: status(404), want: domain.HTTPProblem(404)},
		{name: "410", handler: status(410), want: domain.HTTPProblem(410)},
		{name: "503", handler: status(503), want: domain.HTTPProblem(503)},
		{name: "500", handler: status(500), want: domain.HTTPProblem(500)},
		{name: "403", handler: status(403), want: domain.HTTPProblem(403)},
		{name: "429", handler: status(429), want: domain.HTTPProblem(429)},
		{name: "418", handler: status(418), want: domain.HTTPProblem(418)},
		{name: "connection refused", url: refused, want: domain.ProblemCode{Kind: domain.ProblemRefused, Host: strings.TrimPrefix(strings.TrimSuffix(refused, "/feed.xml"), "http://")}},
		{name: "slow", handler: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}, opts: Options{Timeout: 200 * time.Millisecond}, want: domain.ProblemCode{Kind: domain.ProblemTimeout, Host: "HOST"}},
		{name: "HTML page", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<!doctype html><title>Hello</title><p>No feed here."))
		}, want: domain.ProblemCode{Kind: domain.ProblemNotFeed}},
		{name: "garbage", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("\x00\x01 not xml at all {"))
		}, want: domain.ProblemCode{Kind: domain.ProblemNotFeed}},
		{name: "too large", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("<rss><channel><title>" + strings.Repeat("x", 4096) + "</title></channel></rss>"))
		}, opts: Options{MaxBody: 1024}, want: domain.ProblemCode{Kind: domain.ProblemTooLarge}},
		{name: "private address", handler: status(200), private: true, want: domain.ProblemCode{Kind: domain.ProblemPrivateAddress}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url
			if tt.handler != nil {
				_, ts := serve(t, tt.handler)
				url = ts.URL + "/feed"
			}
			c := testClient(tt.opts)
			if tt.private {
				opts := tt.opts
				opts.HostRate = 1000
				c = New(opts)
			}
			res := c.Poll(context.Background(), Request{URL: url}, testNow)
			want := tt.want
			if want.Host == "HOST" {
				want.Host = strings.TrimPrefix(strings.TrimSuffix(url, "/feed"), "http://")
			}
			if got := res.Problem(); got != want {
				t.Errorf("Problem() = %+v, want %+v (error: %v)", got, want, res.Err)
			}
		})
	}
	if got := (Result{}).Problem(); !got.IsZero() {
		t.Errorf("a poll that did not fail: %+v", got)
	}
}

// A feed whose reading two runs in a row died in is named for that, not
// as a feed that "could not be read" for no reason given.
func TestProblemOfAFeedRunsDiedReading(t *testing.T) {
	res := Result{Outcome: OutcomeBroken, Err: fmt.Errorf("%w, 2 reads in a row", ErrRunDied)}
	if got, want := res.Problem(), (domain.ProblemCode{Kind: domain.ProblemRunDied}); got != want {
		t.Errorf("Problem() = %+v, want %+v", got, want)
	}
}
