package cli

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"feeddigest/internal/feedtest"
)

// check says which line of the config leads to the same feed as an
// earlier one (a chain of permanent redirects landing on a feed the user
// lists under another title), with the line, in the words of the
// warning for a feed written twice; feeds apart, and a temporary
// redirect, are not named.
func TestCheckNamesAFeedListedTwice(t *testing.T) {
	ts := feedtest.Start(t)
	ts.Publish("/coastal", feedtest.Feed{Title: "Coastal Voices", Entries: []feedtest.Entry{{ID: "c-1", Title: "Tide"}}})
	ts.Publish("/news", feedtest.Feed{Title: "News", Entries: []feedtest.Entry{{ID: "n-1", Title: "Bridge"}}})
	ts.Redirect("/old", "/mid", http.StatusMovedPermanently)
	ts.Redirect("/mid", "/coastal", http.StatusPermanentRedirect)
	ts.Redirect("/today", "/news", http.StatusFound)
	path := writeConfig(t, fmt.Sprintf(`[fetch]
allow_private_networks = true
host_rate = 100.0
[[users]]
name = "ada"
timezone = "UTC"
feeds = [
  %q,
  { url = %q, title = "Coastal Voices" },
  %q,
  { url = %q, title = "Coast Radio" },
]
`, ts.URL+"/news", ts.URL+"/coastal", ts.URL+"/today", ts.URL+"/old"))
	code, stdout, stderr := runCLI("check", "-config", path)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	want := fmt.Sprintf("\n1 feed listed twice:\n  %s: users[0] \"ada\": feeds[3] (%s) now leads to the same feed as feeds[1] (%s): it is read once; you may remove one (line 11)\n",
		path, ts.URL+"/old", ts.URL+"/coastal")
	if !strings.Contains(stdout, want) {
		t.Errorf("check does not name the line that repeats another:\n%s\nwant %q", stdout, want)
	}
	if strings.Count(stdout, "leads to the same feed") != 1 {
		t.Errorf("check names other lines too:\n%s", stdout)
	}
}
