package pipeline

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"feeddigest/fetch"
	"feeddigest/internal/feedtest"
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

// TestDroppedConnectionInWords: a server that takes the request and
// closes the connection without a word is said to have done so, not
// shown as Go's `Get "...": EOF`; other failures keep their own words.
func TestDroppedConnectionInWords(t *testing.T) {
	drop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer drop.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()

	client := fetch.New(fetch.Options{AllowPrivateNetworks: true})
	defer client.Close()
	now := at("2026-11-22T00:05:00Z")
	res := client.Poll(t.Context(), fetch.Request{URL: drop.URL + "/feed"}, now)
	if got := PollErrorText(res.Err); got != ErrClosedBeforeAnswering.Error() {
		t.Errorf("dropped connection shown as %q (error %v)", got, res.Err)
	}
	res = client.Poll(t.Context(), fetch.Request{URL: notFound.URL + "/feed"}, now)
	if got := PollErrorText(res.Err); got == ErrClosedBeforeAnswering.Error() || !strings.Contains(got, "404") {
		t.Errorf("404 shown as %q", got)
	}
}
