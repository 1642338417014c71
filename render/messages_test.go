package render

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"feeddigest/locale"
)

// messageID is a message id as the templates and render's code name it.
var messageID = regexp.MustCompile(`"((?:digest|count|left_out|feed|entry|file|problem|reason|notice|links|index|atom|email|text)\.[a-z_.]+)"`)

// TestMessagesUsedAndKnown: every message the templates and render's
// code name is in the English catalogue (a misspelt id is never a
// reader's surprise), and every message of the catalogue is used (none
// left for translators to translate in vain).
func TestMessagesUsedAndKnown(t *testing.T) {
	known := locale.English().IDs()
	var files []string
	for _, pattern := range []string{"../templates/*.html", "../templates/*.txt", "*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	used := map[string]bool{}
	for _, f := range files {
		if matched, _ := filepath.Match("*_test.go", filepath.Base(f)); matched {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range messageID.FindAllStringSubmatch(string(b), -1) {
			if ext := filepath.Ext(m[1]); ext == ".xml" || ext == ".html" || ext == ".txt" {
				continue // a file: feed.xml, email.txt
			}
			used[m[1]] = true
			if !slices.Contains(known, m[1]) {
				t.Errorf("%s names the message %s, which the English catalogue lacks", f, m[1])
			}
		}
	}
	for _, id := range known {
		if !used[id] {
			t.Errorf("the message %s is used nowhere", id)
		}
	}
}
