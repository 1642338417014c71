package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"feeddigest/config"
)

// import keeps folders and titles, turns feed:// into http://, takes a URL
// that differs only in case or default port as the same feed, and names
// every outline it leaves out, with the reason.
func TestImportKeepsFoldersAndNamesWhatItSkips(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", `[[users]]
name = "ada"
timezone = "UTC"
feeds = [
  "https://go.dev/blog/feed.atom", # the Go blog
]
`)
	writeFile(t, dir, "subs.opml", `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0"><head><title>Ada's reader</title></head><body>
  <outline text="Go blog" xmlUrl="HTTPS://Go.Dev:443/blog/feed.atom"/>
  <outline text="Science" title="Science">
    <outline text="Guardian science" type="rss" xmlUrl="https://www.theguardian.com/science/rss"/>
    <outline text="Space">
      <outline text="NASA" xmlUrl="feed://www.nasa.gov/rss/dyn/breaking_news.rss"/>
      <outline text="NASA, shouting" xmlUrl="HTTP://WWW.NASA.GOV/rss/dyn/breaking_news.rss"/>
    </outline>
  </outline>
  <outline text="xkcd.com" xmlUrl="https://xkcd.com/atom.xml"/>
  <outline text="Plain" xmlUrl="https://plain.example/feed"/>
  <outline text="A bookmark" type="link" url="https://example.org/"/>
  <outline text="Old files" xmlUrl="ftp://files.example.org/feed.xml"/>
  <outline text="An empty folder"/>
</body></opml>
`)
	code, stdout, stderr := feeddigest(t, dir, nil, "import", "subs.opml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cfg, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Subscription{
		{URL: "https://go.dev/blog/feed.atom"},
		{URL: "https://www.theguardian.com/science/rss", Title: "Guardian science", Folder: "Science"},
		{URL: "http://www.nasa.gov/rss/dyn/breaking_news.rss", Title: "NASA", Folder: "Science / Space"},
		{URL: "https://xkcd.com/atom.xml", Title: "xkcd.com"},
		{URL: "https://plain.example/feed", Title: "Plain"},
	}
	if got := cfg.Users[0].Feeds; !slices.Equal(got, want) {
		t.Errorf("feeds after import:\n%+v\nwant\n%+v", got, want)
	}
	text := readText(t, filepath.Join(dir, "config.toml"))
	for _, line := range []string{
		`  "https://go.dev/blog/feed.atom", # the Go blog`,
		`  { url = "https://www.theguardian.com/science/rss", title = "Guardian science", folder = "Science" },`,
		`  { url = "http://www.nasa.gov/rss/dyn/breaking_news.rss", title = "NASA", folder = "Science / Space" },`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("no line %q in the config:\n%s", line, text)
		}
	}
	for _, want := range []string{
		"added 4 feeds to ada",
		"+ http://www.nasa.gov/rss/dyn/breaking_news.rss  (NASA, in Science / Space)",
		"skipped 5 outlines:",
		`- "Go blog" (HTTPS://Go.Dev:443/blog/feed.atom): already in ada's feeds as https://go.dev/blog/feed.atom`,
		`- "NASA, shouting" (HTTP://WWW.NASA.GOV/rss/dyn/breaking_news.rss): the same feed as "NASA" (feed://www.nasa.gov/rss/dyn/breaking_news.rss) earlier in the file`,
		`- "A bookmark" (https://example.org/): no xmlUrl: not a feed`,
		`- "Old files" (ftp://files.example.org/feed.xml): scheme "ftp": only http and https feeds can be polled`,
		`- "An empty folder": no xmlUrl: not a feed`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}

	// Importing the same file again adds nothing and changes nothing.
	code, stdout, _ = feeddigest(t, dir, nil, "import", "subs.opml")
	if code != 0 || !strings.Contains(stdout, "added 0 feeds") || !strings.Contains(stdout, "skipped 9 outlines") {
		t.Errorf("second import: exit %d\n%s", code, stdout)
	}
	if again := readText(t, filepath.Join(dir, "config.toml")); again != text {
		t.Errorf("a second import changed the config:\n%s", again)
	}
}

// export writes folders as nested outlines and the config's titles; what
// it writes, imported into a user without feeds, gives the same feeds.
func TestExportThenImportKeepsFoldersAndTitles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "config.toml", `[[users]]
name = "ada"
timezone = "UTC"
feeds = [
  "https://plain.example/feed",
  { url = "https://a.example/feed", title = "A & co" },
  { url = "https://b.example/feed", folder = "News" },
  { url = "https://c.example/feed?x=1&y=2", title = "Sea", folder = "Science / Space" },
  { url = "https://d.example/feed", folder = "News" },
  { url = "https://e.example/feed", title = "E", folder = "Science" },
]

[[users]]
name = "bob"
timezone = "UTC"
`)
	code, exported, stderr := feeddigest(t, dir, nil, "export", "-user", "ada")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"    <outline text=\"News\" title=\"News\">\n      <outline type=\"rss\" text=\"https://b.example/feed\" xmlUrl=\"https://b.example/feed\"/>\n" +
			"      <outline type=\"rss\" text=\"https://d.example/feed\" xmlUrl=\"https://d.example/feed\"/>\n    </outline>\n",
		"    <outline text=\"Science\" title=\"Science\">\n      <outline text=\"Space\" title=\"Space\">\n" +
			"        <outline type=\"rss\" text=\"Sea\" title=\"Sea\" xmlUrl=\"https://c.example/feed?x=1&amp;y=2\"/>\n      </outline>\n" +
			"      <outline type=\"rss\" text=\"E\" title=\"E\" xmlUrl=\"https://e.example/feed\"/>\n    </outline>\n",
		`text="A &amp; co" title="A &amp; co" xmlUrl="https://a.example/feed"`,
	} {
		if !strings.Contains(exported, want) {
			t.Errorf("no\n%s\nin the export:\n%s", want, exported)
		}
	}
	writeFile(t, dir, "ada.opml", exported)
	if code, stdout, stderr := feeddigest(t, dir, nil, "import", "-user", "bob", "ada.opml"); code != 0 || !strings.Contains(stdout, "added 6 feeds to bob") {
		t.Fatalf("import: exit %d\n%s%s", code, stdout, stderr)
	}
	cfg, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	ada, _ := cfg.User("ada")
	bob, _ := cfg.User("bob")
	// The same feeds, in the export's order: folders where their first
	// feed was.
	want := slices.Clone(ada.Feeds)
	want[3], want[4] = want[4], want[3]
	if !slices.Equal(bob.Feeds, want) {
		t.Errorf("bob after the round trip:\n%+v\nwant\n%+v", bob.Feeds, want)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
