package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// With HTTP_PROXY set (a proxy on loopback, as usual), a run refuses the
// private targets before they reach the proxy, naming the target, and
// fetches the public ones through it: the proxy's own loopback address is
// not held against every feed.
func TestRunThroughAProxyRefusesPrivateTargets(t *testing.T) {
	bin := binary(t)
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write(goodFeed("proxied"))
	}))
	defer proxy.Close()
	public := "http://93.184.215.14/feed"
	private := []string{"http://10.0.0.1/feed", "http://169.254.169.254/latest/meta-data/", "http://192.168.1.1/feed"}
	dir := t.TempDir()
	var feeds []string
	for _, u := range append([]string{public}, private...) {
		feeds = append(feeds, fmt.Sprintf("%q", u))
	}
	config := writeConfig(t, dir, `state = "state.db"
site_dir = "site"
[email]
from = "Digest <digest@example.org>"
outbox = "outbox"
[[users]]
name = "ada"
timezone = "UTC"
feeds = [`+strings.Join(feeds, ", ")+`]
`)
	cmd := command(bin, nil, "run", "-config", config, "-now", "2026-11-22T00:05:00Z")
	var env []string
	for _, kv := range cmd.Env {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains([]string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"}, strings.ToUpper(name)) {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HTTP_PROXY="+proxy.URL, "HTTPS_PROXY="+proxy.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"GET " + public}; !slices.Equal(asked, want) {
		t.Errorf("the proxy was asked %v, want %v", asked, want)
	}
	page, err := os.ReadFile(filepath.Join(dir, "site", "ada", "2026-11-22.html"))
	if err != nil || !strings.Contains(string(page), "site.example/proxied-1") {
		t.Errorf("the public feed, fetched through the proxy, is not in the digest: %v", err)
	}
	status, err := command(bin, nil, "status", "-config", config, "-now", "2026-11-22T00:10:00Z").CombinedOutput()
	if err != nil {
		t.Fatalf("status: %v\n%s", err, status)
	}
	proxyAt := strings.TrimPrefix(proxy.URL, "http://")
	for _, line := range strings.Split(string(status), "\n") {
		for _, u := range private {
			if strings.HasPrefix(line, u) && (!strings.Contains(line, "refusing to connect") || strings.Contains(line, proxyAt)) {
				t.Errorf("status of %s: %q, want refused naming the target", u, line)
			}
		}
	}
	if strings.Count(string(status), "refusing to connect") != len(private) {
		t.Errorf("status:\n%s", status)
	}
}
