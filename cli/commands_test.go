package cli

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/config/opml"
	"feeddigest/internal/feedtest"
)

// checkServer serves a feed of each kind check must describe; anything
// else is 404.
func checkServer(t *testing.T) *feedtest.Server {
	ts := feedtest.Start(t)
	ts.Publish("/good", feedtest.Feed{Title: "Good Feed", TTL: 30,
		Entries: []feedtest.Entry{{ID: "1", Title: "One"}, {ID: "2", Title: "Two"}},
		Header:  http.Header{"ETag": {`"v1"`}, "Last-Modified": {"Sun, 22 Nov 2026 08:00:00 GMT"}, "Cache-Control": {"max-age=3600"}}})
	ts.Publish("/bare", feedtest.Feed{Format: feedtest.Atom, Title: "Bare", Entries: []feedtest.Entry{{ID: "urn:b:1", Title: "Only"}},
		NoValidators: true})
	ts.Publish("/ttl", feedtest.Feed{Title: "Slow", TTL: 120})
	ts.Respond("/page", feedtest.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html"}},
		Body: `<!doctype html><html><head><title>Home</title></head><body>Hello</body></html>`})
	ts.Redirect("/old", "/good", http.StatusMovedPermanently)
	ts.Respond("/busy", feedtest.Response{Status: http.StatusServiceUnavailable, RetryAfter: "120", Body: "busy"})
	return ts
}

func checkConfig(t *testing.T, ts *feedtest.Server, ada, grace []string) string {
	t.Helper()
	list := func(paths []string) string {
		q := make([]string, len(paths))
		for i, p := range paths {
			q[i] = fmt.Sprintf("%q", ts.URL+p)
		}
		return strings.Join(q, ", ")
	}
	// host_rate: the test server is one host, and politeness would slow the test.
	return writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\nhost_rate = 100.0\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%s]\n"+
		"[[users]]\nname = \"grace\"\ntimezone = \"UTC\"\nfeeds = [%s]\n", list(ada), list(grace)))
}

// block returns check's lines about one URL.
func block(out, url string) string {
	i := strings.Index(out, "  "+url+"\n")
	if i < 0 {
		return ""
	}
	rest := out[strings.LastIndexByte(out[:i], '\n')+1:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func TestCheckDescribesEachFeed(t *testing.T) {
	ts := checkServer(t)
	path := checkConfig(t, ts, []string{"/good", "/missing", "/page", "/bare"}, []string{"/good", "/old", "/busy", "/ttl"})
	before := listDir(t, filepath.Dir(path))
	code, stdout, stderr := runCLI("check", "-config", path)
	if code != 1 || !strings.Contains(stderr, "3 of 7 feeds failed") {
		t.Errorf("exit %d, stderr %q; want 1 and the count of failures", code, stderr)
	}
	tests := []struct {
		path string
		want []string
	}{
		{"/good", []string{"ok  ", "subscribers  ada, grace", "200 OK", "format       rss", "Good Feed", "entries      2",
			`ETag "v1"; Last-Modified Sun, 22 Nov 2026 08:00:00 GMT`, "Cache-Control max-age 1h; RSS ttl 30m"}},
		{"/bare", []string{"format       atom", "entries      1", "none: every poll downloads the whole feed", "freshness    none"}},
		{"/ttl", []string{"RSS ttl 2h", "entries      0"}},
		{"/missing", []string{"FAILED", "404 Not Found", "error        HTTP 404"}},
		{"/page", []string{"FAILED", "200 OK", "not a feed", "HTML page"}},
		{"/old", []string{"ok  ", "moved        permanently to " + ts.URL + "/good", "Good Feed"}},
		{"/busy", []string{"FAILED", "503 Service Unavailable", "retry after", "(in 2m)"}},
	}
	for _, tt := range tests {
		b := block(stdout, ts.URL+tt.path)
		for _, w := range tt.want {
			if !strings.Contains(b, w) {
				t.Errorf("%s: no %q in\n%s", tt.path, w, b)
			}
		}
	}
	if !strings.Contains(stdout, "7 feeds: 4 ok, 3 failed\n") {
		t.Errorf("no summary line:\n%s", stdout)
	}
	if after := listDir(t, filepath.Dir(path)); !slices.Equal(before, after) {
		t.Errorf("check wrote to the config's folder: %v -> %v", before, after)
	}
}

func TestCheckAllGoodExitsZero(t *testing.T) {
	ts := checkServer(t)
	path := checkConfig(t, ts, []string{"/good"}, []string{"/bare"})
	code, stdout, stderr := runCLI("check", "-config", path)
	if code != 0 || !strings.Contains(stdout, "2 feeds: 2 ok, 0 failed") || stderr != "" {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, name := range []string{"state.db", "site"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), name)); !os.IsNotExist(err) {
			t.Errorf("check created %s", name)
		}
	}
}

// check polls at most concurrency feeds at a time.
func TestCheckBoundsRequestsInFlight(t *testing.T) {
	ts := feedtest.Start(t)
	ts.SetLatency(30 * time.Millisecond)
	var feeds []string
	for i := range 12 {
		path := fmt.Sprintf("/f%d", i)
		ts.Add(path, feedtest.Entry{ID: fmt.Sprintf("f%d-1", i), Title: "Post"})
		feeds = append(feeds, fmt.Sprintf("%q", ts.URL+path))
	}
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\nconcurrency = 3\nper_host = 8\nhost_rate = 1000.0\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%s]\n", strings.Join(feeds, ", ")))
	if code, stdout, stderr := runCLI("check", "-config", path); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if peak := ts.PeakInFlight(); peak > 3 || peak < 2 {
		t.Errorf("peak %d requests in flight, want at most concurrency = 3 (and some overlap)", peak)
	}
	if n := len(ts.Requests()); n != 12 {
		t.Errorf("%d requests, want one per feed", n)
	}
}

func TestCheckBadConfigPolls(t *testing.T) {
	ts := feedtest.Start(t)
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\nconcurency = 2\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL))
	code, _, stderr := runCLI("check", "-config", path)
	if polled := ts.Requests(); code == 0 || !strings.Contains(stderr, `unknown key "fetch.concurency"`) || len(polled) != 0 {
		t.Errorf("exit %d, polled %v, stderr %q", code, polled, stderr)
	}
}

func TestCheckRefusesPrivateAddressesByDefault(t *testing.T) {
	ts := checkServer(t)
	path := writeConfig(t, fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/good"))
	code, stdout, _ := runCLI("check", "-config", path)
	if code != 1 || !strings.Contains(stdout, "allow_private_networks") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

const importConfig = `# Our digest.
state = "state.db" # beside this file

[[users]]
name = "ada" # the first
timezone = "Europe/London"
# Ada's reading.
feeds = [
  "https://go.dev/blog/feed.atom", # Go
]

[[users]]
name = "bob"
timezone = "UTC"
`

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImportAddsFeedsAndKeepsComments(t *testing.T) {
	path := writeConfig(t, importConfig)
	subs := writeFile(t, t.TempDir(), "subs.opml", `<?xml version="1.0"?>
<opml version="2.0"><head><title>x</title></head><body>
  <outline text="Go" xmlUrl="https://go.dev/blog/feed.atom"/>
  <outline text="Science">
    <outline text="Guardian" xmlUrl="https://www.theguardian.com/science/rss"/>
    <outline text="Files" xmlUrl="ftp://files.example.org/feed.xml"/>
  </outline>
  <outline text="xkcd" xmlUrl="https://xkcd.com/atom.xml"/>
  <outline text="script" xmlUrl="javascript:alert(1)"/>
</body></opml>`)
	code, stdout, stderr := runCLI("import", "-config", path, "-user", "ada", subs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"added 2 feeds to ada", "+ https://www.theguardian.com/science/rss  (Guardian, in Science)", "+ https://xkcd.com/atom.xml  (xkcd)",
		"skipped 3 outlines:", `- "Go" (https://go.dev/blog/feed.atom): already in ada's feeds`,
		`- "Files" (ftp://files.example.org/feed.xml): scheme "ftp": only http and https`, `- "script" (javascript:alert(1)): scheme "javascript"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	b, _ := os.ReadFile(path)
	want := strings.Replace(importConfig, "# Go\n", "# Go\n  { url = \"https://www.theguardian.com/science/rss\", title = \"Guardian\", folder = \"Science\" },\n"+
		"  { url = \"https://xkcd.com/atom.xml\", title = \"xkcd\" },\n", 1)
	if string(b) != want {
		t.Errorf("config now:\n%s\nwant:\n%s", b, want)
	}
}

func TestImportBadOPMLChangesNothing(t *testing.T) {
	for name, doc := range map[string]string{
		"broken": `<opml><body><outline xmlUrl="https://a.example/f">`,
		"rss":    `<rss version="2.0"><channel><title>not a list</title></channel></rss>`,
	} {
		t.Run(name, func(t *testing.T) {
			path := writeConfig(t, importConfig)
			subs := writeFile(t, filepath.Dir(path), "subs.opml", doc)
			before := listDir(t, filepath.Dir(path))
			code, stdout, stderr := runCLI("import", "-config", path, "-user", "ada", subs)
			if code == 0 || !strings.Contains(stderr, "subs.opml") || stdout != "" {
				t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if b, _ := os.ReadFile(path); string(b) != importConfig {
				t.Errorf("config changed:\n%s", b)
			}
			if after := listDir(t, filepath.Dir(path)); !slices.Equal(before, after) {
				t.Errorf("files changed: %v -> %v", before, after)
			}
		})
	}
}

func TestImportUsageErrors(t *testing.T) {
	path := writeConfig(t, importConfig)
	subs := writeFile(t, t.TempDir(), "subs.opml", `<opml><body/></opml>`)
	if code, _, stderr := runCLI("import", "-config", path, "-user", "carol", subs); code != 1 || !strings.Contains(stderr, `no user named "carol" (users: ada, bob)`) {
		t.Errorf("unknown user: exit %d %q", code, stderr)
	}
	if code, _, _ := runCLI("import", "-config", path, "-user", "ada"); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	// Flags may follow the file.
	if code, stdout, stderr := runCLI("import", subs, "-config", path, "-user", "ada"); code != 0 || !strings.Contains(stdout, "nothing to import") {
		t.Errorf("flags after the file: exit %d %q %q", code, stdout, stderr)
	}
}

func TestExportOneUser(t *testing.T) {
	path := writeConfig(t, importConfig)
	code, stdout, stderr := runCLI("export", "-config", path, "-user", "ada")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`<opml version="2.0">`, "<title>feeddigest subscriptions of ada</title>", "<dateCreated>",
		`<outline type="rss" text="https://go.dev/blog/feed.atom" xmlUrl="https://go.dev/blog/feed.atom"/>`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "state.db")); !os.IsNotExist(err) {
		t.Error("export created the state file")
	}
}

func TestExportAllUsersAsFolders(t *testing.T) {
	path := writeConfig(t, "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\", \"https://b.example/f\"]\n"+
		"[[users]]\nname = \"grace\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\", \"https://c.example/f\"]\n")
	code, stdout, stderr := runCLI("export", "-config", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := opml.Parse(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	// Each feed once, in the folder of the first user that has it:
	// readers such as rss2email refuse a file that lists a feed twice.
	want := []opml.Outline{
		{XMLURL: "https://a.example/f", Category: "ada"},
		{XMLURL: "https://b.example/f", Category: "ada"},
		{XMLURL: "https://c.example/f", Category: "grace"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("export:\n%s\nparsed %+v", stdout, got)
	}
	if !strings.Contains(stderr, "1 feed of several users listed once") || !strings.Contains(stderr, "https://a.example/f (under ada; also grace's)") {
		t.Errorf("export does not say which feeds it listed once:\n%s", stderr)
	}
}

// import warns of each feed on a loopback or private address, which the
// next run refuses unless the config allows private networks.
func TestImportWarnsOfPrivateAddresses(t *testing.T) {
	subs := writeFile(t, t.TempDir(), "subs.opml", `<opml version="2.0"><body>
  <outline text="Home" xmlUrl="http://127.0.0.1:8080/feed"/>
  <outline text="NAS" xmlUrl="http://[fd00::1]/feed"/>
  <outline text="Public" xmlUrl="https://93.184.215.14/feed"/>
</body></opml>`)
	for _, allow := range []bool{false, true} {
		path := writeConfig(t, importConfig+fmt.Sprintf("[fetch]\nallow_private_networks = %v\n", allow))
		code, stdout, stderr := runCLI("import", "-config", path, "-user", "bob", subs)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		warned := strings.Count(stdout, "warning: ")
		if allow && warned != 0 || !allow && (warned != 2 ||
			!strings.Contains(stdout, "warning: http://127.0.0.1:8080/feed is on a private address (127.0.0.1)") ||
			!strings.Contains(stdout, "http://[fd00::1]/feed") || !strings.Contains(stdout, "allow_private_networks = true")) {
			t.Errorf("allow_private_networks = %v:\n%s", allow, stdout)
		}
	}
}

func TestExportTitlesFromState(t *testing.T) {
	ts := feedServer(t)
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/feed"))
	if code, _, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	code, stdout, stderr := runCLI("export", "-config", path, "-user", "ada")
	if code != 0 || !strings.Contains(stdout, `text="T" title="T" xmlUrl="`+ts.URL+`/feed"`) {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestExportThenImportRoundTrip(t *testing.T) {
	path := writeConfig(t, importConfig)
	subs := writeFile(t, t.TempDir(), "more.opml", `<opml><body>
<outline text="a" xmlUrl="https://a.example/feed"/><outline text="b" xmlUrl="https://b.example/feed?x=1&amp;y=2"/></body></opml>`)
	if code, _, stderr := runCLI("import", "-config", path, "-user", "ada", subs); code != 0 {
		t.Fatal(stderr)
	}
	code, exported, stderr := runCLI("export", "-config", path, "-user", "ada")
	if code != 0 {
		t.Fatal(stderr)
	}
	file := writeFile(t, t.TempDir(), "ada.opml", exported)
	if code, _, stderr := runCLI("import", "-config", path, "-user", "bob", file); code != 0 {
		t.Fatal(stderr)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ada, _ := cfg.User("ada")
	bob, _ := cfg.User("bob")
	if len(ada.Feeds) != 3 || !slices.Equal(ada.Feeds, bob.Feeds) {
		t.Errorf("ada %+v, bob %+v", ada.Feeds, bob.Feeds)
	}
}

// A config of one user (named after the login, as init writes it:
// "root" on many machines) exports without a folder of that name: its
// feeds without a folder are top-level outlines, its folders folders;
// and importing the file gives back the same feeds, titles and folders.
func TestExportOfTheOnlyUserMakesUpNoFolder(t *testing.T) {
	feeds := `feeds = [
  { url = "https://a.example/feed", title = "Alpha" },
  { url = "https://b.example/feed", title = "Bravo", folder = "News" },
  { url = "https://c.example/feed", title = "Charlie" },
  { url = "https://d.example/feed", title = "Delta", folder = "Tech/Go" },
  { url = "https://e.example/feed", title = "Echo", folder = "News" },
]
`
	path := writeConfig(t, "[[users]]\nname = \"root\"\ntimezone = \"UTC\"\n"+feeds)
	code, exported, stderr := runCLI("export", "-config", path)
	if code != 0 || stderr != "" {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if strings.Contains(exported, `text="root"`) || !strings.Contains(exported, "<title>feeddigest subscriptions of root</title>") {
		t.Errorf("the only user's feeds are wrapped in a folder of their name:\n%s", exported)
	}
	got, err := opml.Parse(strings.NewReader(exported))
	if err != nil {
		t.Fatal(err)
	}
	want := []opml.Outline{
		{XMLURL: "https://a.example/feed", Title: "Alpha"},
		{XMLURL: "https://b.example/feed", Title: "Bravo", Category: "News"},
		{XMLURL: "https://e.example/feed", Title: "Echo", Category: "News"},
		{XMLURL: "https://c.example/feed", Title: "Charlie"},
		{XMLURL: "https://d.example/feed", Title: "Delta", Category: "Tech/Go"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("export:\n%s\nparsed %+v\nwant %+v", exported, got, want)
	}

	// The round trip: imported into an empty list, the same feeds.
	other := writeConfig(t, "[[users]]\nname = \"root\"\ntimezone = \"UTC\"\nfeeds = []\n")
	file := writeFile(t, t.TempDir(), "root.opml", exported)
	if code, stdout, stderr := runCLI("import", "-config", other, file); code != 0 {
		t.Fatalf("import: exit %d: %s%s", code, stdout, stderr)
	}
	before, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	after, err := config.Load(other)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := before.User("root")
	a, _ := after.User("root")
	bySite := func(subs []config.Subscription) map[string]config.Subscription {
		m := map[string]config.Subscription{}
		for _, s := range subs {
			m[s.URL] = s
		}
		return m
	}
	if len(a.Feeds) != len(b.Feeds) || !maps.Equal(bySite(a.Feeds), bySite(b.Feeds)) {
		t.Errorf("imported back %+v, want %+v", a.Feeds, b.Feeds)
	}
}
