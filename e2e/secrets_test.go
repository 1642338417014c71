package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/netfail"
	"feeddigest/sqlite"
)

// The secrets a private feed's URL carries, as a paid newsletter's does.
const (
	secretUser     = "ada-login"
	secretPassword = "Hunter2pw"
	secretToken    = "SECRETtoken42"
)

// privateFeedServer serves a feed that gives relative links (resolved
// against the feed's URL), a permanent redirect to a URL carrying the
// token, and one to another origin; anything else is 404.
func privateFeedServer(t *testing.T) *feedtest.Server {
	ts := feedtest.Start(t)
	ts.Publish("/feed", feedtest.Feed{Title: "Members only", SiteURL: "/", Entries: []feedtest.Entry{ // oldest first
		{ID: "2", Title: "Second", Link: "#p2", Body: "World"},
		{ID: "1", Title: "First", Link: "post/1", Body: "Hello"},
	}})
	ts.Redirect("/old", "/feed?token="+secretToken, http.StatusMovedPermanently)
	elsewhere := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)
	ts.Redirect("/elsewhere", elsewhere+"/feed?token="+secretToken, http.StatusMovedPermanently)
	return ts
}

// withSecrets puts the user info and the token into a feed URL.
func withSecrets(base, path string) string {
	return strings.Replace(base, "://", "://"+secretUser+":"+secretPassword+"@", 1) + path + "?token=" + secretToken
}

func TestCredentialsInFeedURLsAreNeverShown(t *testing.T) {
	ts := privateFeedServer(t)
	feeds := []string{
		withSecrets(ts.URL, "/feed"),
		withSecrets(ts.URL, "/missing"),                        // 404
		withSecrets("http://"+netfail.RefusedAddr(t), "/feed"), // connection refused
		withSecrets(ts.URL, "/old"),                            // moved, to a URL with the token
		withSecrets(ts.URL, "/elsewhere"),                      // moved to another origin: pending
	}
	quoted := make([]string, len(feeds))
	for i, f := range feeds {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	dir := t.TempDir()
	cfgPath := writeConfig(t, dir, "[fetch]\nallow_private_networks = true\nhost_rate = 100.0\n"+
		"[email]\nfrom = \"Digest <digest@example.org>\"\noutbox = \"outbox\"\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nemail = \"ada@example.org\"\nfeeds = ["+strings.Join(quoted, ", ")+"]\n")
	secrets := []string{secretUser, secretPassword, secretToken}
	noSecrets := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				i := strings.Index(text, s)
				t.Errorf("%s shows %q: …%s…", what, s, text[max(0, i-80):min(len(text), i+40)])
			}
		}
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := feeddigest(t, dir, nil, args...)
		if code != 0 && args[0] != "check" {
			t.Fatalf("%s: exit %d\n%s", args[0], code, stderr)
		}
		return stdout, stderr
	}

	stdout, stderr := run("run", "-config", cfgPath, "-now", "2026-11-22T00:05:00Z", "-json", "-v")
	noSecrets("run -json stdout", stdout)
	noSecrets("run -v stderr", stderr)
	for _, want := range []string{"404", "connection refused", "/feed?token=…", "***@127.0.0.1"} {
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("the run's output does not say %q:\n%s\n%s", want, stdout, stderr)
		}
	}
	stdout, stderr = run("status", "-config", cfgPath, "-now", "2026-11-22T00:10:00Z")
	noSecrets("status stdout", stdout)
	noSecrets("status stderr", stderr)
	if !strings.Contains(stdout, "http://***@127.0.0.1") || !strings.Contains(stdout, "?token=…") {
		t.Errorf("status does not show the feeds, redacted:\n%s", stdout)
	}
	stdout, stderr = run("check", "-config", cfgPath)
	noSecrets("check stdout", stdout)
	noSecrets("check stderr", stderr)

	var published int
	for _, folder := range []string{"site", "outbox"} {
		filepath.Walk(filepath.Join(dir, folder), func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			published++
			noSecrets(path, string(b))
			return nil
		})
	}
	page, _ := os.ReadFile(filepath.Join(dir, "site", "ada", "2026-11-22.html"))
	status, _ := os.ReadFile(filepath.Join(dir, "site", "status.html"))
	for _, want := range []string{"First", "moved for good", "redirects to another site"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the digest page does not show %q", want)
		}
	}
	if !bytes.Contains(status, []byte("http://***@127.0.0.1")) {
		t.Errorf("status.html does not list the feeds, redacted:\n%s", status)
	}
	if published < 5 {
		t.Errorf("%d files in the site and outbox, want pages, feed.xml, status and an email", published)
	}

	// The state and export keep every URL exactly as written.
	opml, _ := run("export", "-config", cfgPath)
	st, err := sqlite.OpenReader(context.Background(), filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored, err := st.Feeds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	inState := map[string]bool{}
	for _, f := range stored {
		inState[f.URL] = true
	}
	for _, f := range feeds {
		if !strings.Contains(opml, `xmlUrl="`+f+`"`) {
			t.Errorf("export lost %s:\n%s", f, opml)
		}
		if !inState[f] {
			t.Errorf("the state does not keep %s as written", f)
		}
	}
}
