package cli

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode"

	"feeddigest/internal/feedtest"
)

// hostileServer serves feeds whose own strings attack what shows them: a
// site link that runs script, and text full of terminal escapes.
func hostileServer(t *testing.T) *feedtest.Server {
	ts := feedtest.Start(t)
	one := []feedtest.Entry{{ID: "1", Title: "One"}}
	ts.Publish("/script-link", feedtest.Feed{Title: "Script", SiteURL: "javascript:alert(document.cookie)", Entries: one})
	ts.Publish("/good-link", feedtest.Feed{Title: "Good", SiteURL: "https://site.example/", Entries: one})
	// JSON Feed carries control characters as escapes, so the parser lets
	// them through: a clear screen, a window title, a bell, a backspace, a
	// C1 CSI.
	ts.Respond("/escapes", feedtest.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/feed+json"}},
		Body: `{"version": "https://jsonfeed.org/version/1.1",
			"title": "Calm\u001b[2J\u001b]0;pwned\u0007 feed\b\b\u009b31m title",
			"items": [{"id": "1", "title": "x", "content_text": "y"}]}`})
	return ts
}

func TestExportKeepsOnlyWebSiteLinks(t *testing.T) {
	ts := hostileServer(t)
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\nhost_rate = 100.0\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q, %q]\n", ts.URL+"/script-link", ts.URL+"/good-link"))
	if code, _, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	code, stdout, stderr := runCLI("export", "-config", path, "-user", "ada")
	if code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	if strings.Contains(stdout, "javascript") {
		t.Errorf("export copies a javascript: site link:\n%s", stdout)
	}
	for _, want := range []string{`title="Script" xmlUrl="` + ts.URL + `/script-link"/>`, `htmlUrl="https://site.example/"`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %s in\n%s", want, stdout)
		}
	}
}

func TestCheckPrintsNoControlCharacters(t *testing.T) {
	ts := hostileServer(t)
	path := writeConfig(t, fmt.Sprintf("[fetch]\nallow_private_networks = true\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", ts.URL+"/escapes"))
	code, stdout, stderr := runCLI("check", "-config", path)
	if code != 0 {
		t.Fatalf("check: exit %d, %s\n%s", code, stderr, stdout)
	}
	for _, r := range stdout {
		if unicode.IsControl(r) && r != '\n' {
			t.Fatalf("check printed control character %U:\n%q", r, stdout)
		}
	}
	if !strings.Contains(stdout, "title        Calm[2J]0;pwned feed31m title\n") {
		t.Errorf("the title lost its text:\n%s", stdout)
	}
}
