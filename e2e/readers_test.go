package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// feedparserIDs prints what Python's feedparser reads of a feed.xml:
// whether it was well formed, the feed's id, its self link, and the
// entries' ids.
const feedparserIDs = `
import feedparser, json, sys
d = feedparser.parse(sys.argv[1])
self = [l["href"] for l in d.feed.get("links", []) if l.get("rel") == "self"]
print(json.dumps({"bozo": int(bool(d.bozo)), "id": d.feed.get("id", ""), "self": self,
                  "entries": [e.get("id", "") for e in d.entries]}))
`

type parsedFeed struct {
	Bozo    int      `json:"bozo"`
	ID      string   `json:"id"`
	Self    []string `json:"self"`
	Entries []string `json:"entries"`
}

// Two installations with a user of the same name, without site_url,
// publish ids that feedparser reads as different; with site_url the ids
// are the site's URLs and the feed names itself (rel="self").
func TestFeedparserSeesUniqueIDs(t *testing.T) {
	python := requirePython(t, "feedparser")
	feeds := slowSite(t, 0, "/ada")
	post(feeds, "/ada", "ada-1")
	read := func(siteURL string) parsedFeed {
		t.Helper()
		dir := t.TempDir()
		cfg := "[fetch]\nallow_private_networks = true\n"
		if siteURL != "" {
			cfg = fmt.Sprintf("site_url = %q\n", siteURL) + cfg
		}
		cfg += fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", feeds.URL+"/ada")
		path := writeConfig(t, dir, cfg)
		if code, _, stderr := feeddigest(t, dir, nil, "run", "-config", path, "-now", "2026-11-21T00:05:00Z"); code != 0 {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		var f parsedFeed
		out := runPython(t, python, feedparserIDs, filepath.Join(dir, "site", "ada", "feed.xml"))
		if err := json.Unmarshal([]byte(out), &f); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if f.Bozo != 0 || f.ID == "" || len(f.Entries) != 1 || f.Entries[0] == "" {
			t.Fatalf("feedparser read %+v", f)
		}
		return f
	}
	one, two := read(""), read("")
	if one.ID == two.ID || one.Entries[0] == two.Entries[0] {
		t.Errorf("two installations publish the same ids: %+v and %+v", one, two)
	}
	site := read("https://example.org/digest/")
	if site.ID != "https://example.org/digest/ada/feed.xml" || site.Entries[0] != "https://example.org/digest/ada/2026-11-21.html" ||
		len(site.Self) != 1 || site.Self[0] != site.ID {
		t.Errorf("with site_url, feedparser read %+v", site)
	}
}

// textPart prints the text/plain part of a message, as Python's email
// package decodes it.
const textPart = `
import email, email.policy, sys
msg = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
print(msg.get_body(preferencelist=("plain",)).get_content())
`

// The plain-text part keeps the link an excerpt carries, as Python's
// email package decodes it.
func TestTextPartCarriesExcerptLinks(t *testing.T) {
	python := requirePython(t, "email")
	feeds := feedtest.Start(t)
	feeds.Publish("/ada", feedtest.Feed{Title: "Kitchen", Entries: []feedtest.Entry{{
		ID: "soup", Title: "Soup",
		Body: `<p>Recipe from <a href="https://friend.example/recipe">a friend</a>.</p>`,
	}}})
	dir := t.TempDir()
	path := writeConfig(t, dir, fmt.Sprintf("[fetch]\nallow_private_networks = true\n"+
		"[email]\nfrom = \"Digest <digest@example.org>\"\noutbox = \"outbox\"\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nemail = \"ada@example.org\"\nfeeds = [%q]\n", feeds.URL+"/ada"))
	if code, _, stderr := feeddigest(t, dir, nil, "run", "-config", path, "-now", "2026-11-21T00:05:00Z"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	mails, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
	if len(mails) != 1 {
		t.Fatalf("outbox holds %v, want one digest", mails)
	}
	text := runPython(t, python, textPart, mails[0])
	for _, want := range []string{"Recipe from a friend [1].", "[1] https://friend.example/recipe"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text part does not say %q:\n%s", want, text)
		}
	}
}

// An export of all users, where two users share a feed, is one that
// rss2email imports whole.
func TestRSS2EmailImportsAllUsersExport(t *testing.T) {
	r2e := requireTool(t, "r2e", "rss2email")
	dir := t.TempDir()
	path := writeConfig(t, dir, "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n"+
		"feeds = [{ url = \"https://a.example/f\", title = \"A\" }, { url = \"https://b.example/f\", title = \"B\" }]\n"+
		"[[users]]\nname = \"grace\"\ntimezone = \"UTC\"\n"+
		"feeds = [{ url = \"https://a.example/f\", title = \"A\" }, { url = \"https://c.example/f\", title = \"C\" }]\n")
	code, exported, stderr := feeddigest(t, dir, nil, "export", "-config", path)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	opmlFile := writeFile(t, dir, "all.opml", exported)
	home := t.TempDir()
	r2eRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(r2e, args...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("r2e %v: %v\n%s\nthe export:\n%s", args, err, out, exported)
		}
		return string(out)
	}
	r2eRun("new", "ada@example.org")
	r2eRun("opmlimport", opmlFile)
	list := r2eRun("list")
	for _, url := range []string{"https://a.example/f", "https://b.example/f", "https://c.example/f"} {
		if strings.Count(list, url) != 1 {
			t.Errorf("rss2email lists %s %d times:\n%s", url, strings.Count(list, url), list)
		}
	}
}
