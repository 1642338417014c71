package pipeline

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"feeddigest/fetch"
	"feeddigest/internal/feedtest"
	"feeddigest/internal/netfail"
	"feeddigest/locale"
	"feeddigest/render"
)

// TestPrivateAddressErrorSaysWhatToSet: fetch refuses a private address
// without naming the setting; the status page and the summary name it.
func TestPrivateAddressErrorSaysWhatToSet(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", feedtest.Entry{ID: "a-1", Title: "One", Published: at("2026-11-21T10:00:00Z")})
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a"), "")
		cfg.Fetch.AllowPrivateNetworks = false
		sum := runAt(t, cfg, "2026-11-22T00:05:00Z")
		const advice = "(set [fetch] allow_private_networks = true to allow)"
		if len(sum.FeedErrors) != 1 || !strings.HasSuffix(sum.FeedErrors[0], advice) {
			t.Errorf("summary: %q", sum.FeedErrors)
		}
		rows, err := Status(t.Context(), cfg, at("2026-11-22T00:10:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || !strings.Contains(rows[0].LastError, "refusing to connect to a private") || !strings.HasSuffix(rows[0].LastError, advice) {
			t.Errorf("status: %+v", rows)
		}
		if len(pub.Requests()) != 0 {
			t.Errorf("requests: %q", pub.Requests())
		}
	})
}

// TestNetworkFailuresAdvise: each kind of network failure, met on a real
// loopback socket (the DNS lookup asks a loopback server that knows no
// name), is shown to the operator in the words of the digest's problem
// line and what to do, never as Go's error (`Get "...": dial tcp ...`);
// other failures keep their own words.
func TestNetworkFailuresAdvise(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	resolver := netfail.Resolver(t, nil)
	tests := []struct {
		url     string
		timeout time.Duration
		want    string // HOST: the URL's host
	}{
		{"http://nosuch.invalid/feed.xml", 0, "could not find the host nosuch.invalid (DNS lookup failed): check the URL or your network"},
		{netfail.RefusedURL(t), 0, "connection refused by HOST: is the server running?"},
		{netfail.ResettingURL(t), 0, "HOST closed the connection before answering: it may be restarting, overloaded or turning this client away; it is tried again later"},
		{netfail.SilentURL(t), 300 * time.Millisecond, "HOST did not answer in time: the server may be down or slow; it is tried again later ([fetch] timeout sets how long to wait)"},
		{netfail.SelfSignedURL(t), 0, "the certificate of HOST is not signed by a known authority: the site must use a certificate from a known authority (a self-signed one is not trusted)"},
		{notFound.URL + "/feed.xml", 0, "HTTP 404 Not Found"},
	}
	now := at("2026-11-22T00:05:00Z")
	for _, tt := range tests {
		client := fetch.New(fetch.Options{AllowPrivateNetworks: true, Resolver: resolver, Timeout: tt.timeout})
		res := client.Poll(t.Context(), fetch.Request{URL: tt.url}, now)
		client.Close()
		u, _ := url.Parse(tt.url)
		want := strings.ReplaceAll(tt.want, "HOST", u.Host)
		got := PollErrorText(res.Err)
		if got != want {
			t.Errorf("%s: shown as %q, want %q (error %v)", tt.url, got, want, res.Err)
		}
		// The digest says it in its reader's words (here English), the
		// operator the same with more facts and advice.
		if words := render.ProblemText(locale.English(), res.Problem()); res.Status == 0 && !strings.HasPrefix(got, words) {
			t.Errorf("%s: the digest says %q, the operator is told %q: not the same words", tt.url, words, got)
		}
	}
}
