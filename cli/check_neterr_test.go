package cli

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"feeddigest/fetch"
	"feeddigest/internal/netfail"
)

// `check` says each network failure in words with advice, each met on a
// real loopback socket: nothing listening, a reset before the answer, no
// answer in the configured timeout, a self-signed certificate. Never Go's
// error (`Get "…": dial tcp …: connect: connection refused`).
func TestCheckSaysNetworkFailuresInWords(t *testing.T) {
	feeds := map[string]string{
		"refused":     netfail.RefusedURL(t),
		"reset":       netfail.ResettingURL(t),
		"silent":      netfail.SilentURL(t),
		"self-signed": netfail.SelfSignedURL(t),
	}
	wants := map[string]string{
		"refused":     "connection refused by HOST: is the server running?",
		"reset":       "HOST closed the connection before answering: it may be restarting, overloaded or turning this client away; it is tried again later",
		"silent":      "HOST did not answer in time: the server may be down or slow; it is tried again later ([fetch] timeout sets how long to wait)",
		"self-signed": "the certificate of HOST is not signed by a known authority: the site must use a certificate from a known authority (a self-signed one is not trusted)",
	}
	// The timeout is long enough for a TLS handshake under -race on a
	// loaded machine (500 ms was not, in CI): only the silent server
	// should run out of it.
	var list []string
	for _, u := range feeds {
		list = append(list, fmt.Sprintf("%q", u))
	}
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\ntimeout = \"2s\"\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%s]\n",
		strings.Join(list, ", ")))
	code, stdout, stderr := runCLI("check", "-config", path)
	if code != 1 || !strings.Contains(stderr, "4 of 4 feeds failed") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	for name, u := range feeds {
		host := hostOf(t, u)
		want := "error        " + strings.ReplaceAll(wants[name], "HOST", host)
		if b := block(stdout, u); !strings.Contains(strings.Join(strings.Fields(b), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("%s: no %q in\n%s", name, want, b)
		}
	}
	for _, goErr := range []string{`Get "`, "dial tcp", "connect:", "read tcp", "x509:"} {
		if strings.Contains(stdout, goErr) {
			t.Errorf("check shows Go's error (%q):\n%s", goErr, stdout)
		}
	}
}

// A host that does not exist: check's block for it, from a real lookup
// (of a DNS server on loopback that knows no name: no network needed).
func TestCheckSaysAnUnknownHostInWords(t *testing.T) {
	client := fetch.New(fetch.Options{Resolver: netfail.Resolver(t, nil)})
	defer client.Close()
	const feed = "https://nosuch.invalid/feed.xml"
	now := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)
	var buf bytes.Buffer
	writeCheck(&buf, feedCheck{url: feed, subscribers: []string{"ada"}, res: client.Poll(t.Context(), fetch.Request{URL: feed}, now)}, now, 0)
	want := "  error        could not find the host nosuch.invalid (DNS lookup failed): check the URL or your network\n"
	if !strings.Contains(buf.String(), want) || strings.Contains(buf.String(), "lookup nosuch.invalid") {
		t.Errorf("want %q in\n%s", want, buf.String())
	}
}

func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
