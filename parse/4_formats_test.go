package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"feeddigest/domain"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseFormatsAndFallback(t *testing.T) {
	tests := []struct {
		file, contentType, wantFormat, wantTitle string
		wantTTL                                  time.Duration
	}{
		{"rss.xml", "application/rss+xml", "rss", "Sample RSS", 2 * time.Hour},
		{"atom.xml", "application/atom+xml", "atom", "Sample Atom", 12 * time.Hour},
		{"atom.xml", "application/rss+xml", "atom", "Sample Atom", 12 * time.Hour}, // Atom labelled as RSS
		{"rss.xml", "application/atom+xml", "rss", "Sample RSS", 2 * time.Hour},    // RSS labelled as Atom
		{"feed.json", "text/plain", "json", "Sample JSON", 0},                      // JSON Feed as text
		{"feed.json", "", "json", "Sample JSON", 0},
	}
	for _, tt := range tests {
		t.Run(tt.file+" as "+tt.contentType, func(t *testing.T) {
			f, err := readFeedAt(readTestdata(t, tt.file), tt.contentType, "https://example.org/feed")
			if err != nil {
				t.Fatal(err)
			}
			if f.Format != tt.wantFormat || f.Title != tt.wantTitle || f.TTL != tt.wantTTL {
				t.Errorf("got format %q title %q ttl %v, want %q %q %v", f.Format, f.Title, f.TTL, tt.wantFormat, tt.wantTitle, tt.wantTTL)
			}
			if len(f.Entries) == 0 {
				t.Error("no entries")
			}
		})
	}
}

func TestParseRejectsNonFeeds(t *testing.T) {
	for _, tt := range []struct{ file, ct string }{{"page.html", "text/html"}, {"broken.xml", "application/rss+xml"}} {
		_, err := readFeedAt(readTestdata(t, tt.file), tt.ct, "https://example.org/")
		if !errors.Is(err, ErrNotFeed) {
			t.Errorf("%s: err = %v, want ErrNotFeed", tt.file, err)
		}
	}
	if _, err := readFeedAt([]byte("hello"), "text/plain", ""); !errors.Is(err, ErrNotFeed) {
		t.Errorf("plain text: err = %v", err)
	}
}

func TestEntryIdentity(t *testing.T) {
	f, err := readFeedAt(readTestdata(t, "rss.xml"), "application/rss+xml", "https://example.org/feed.xml")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]domain.Entry{}
	for _, e := range f.Entries {
		keys[e.Key] = e
	}
	if _, ok := keys["id:urn:a"]; !ok {
		t.Errorf("guid should be the key: %v", keys)
	}
	if e, ok := keys["link:https://example.org/b"]; !ok {
		t.Errorf("link (resolved) should be the key without a guid: %v", keys)
	} else if e.Link != "https://example.org/b" {
		t.Errorf("relative link not resolved: %q", e.Link)
	}
	var hashed int
	for k := range keys {
		if strings.HasPrefix(k, "hash:") {
			hashed++
		}
	}
	if hashed != 1 {
		t.Errorf("an entry with neither guid nor link is keyed by a hash: %v", keys)
	}
	if !keys["id:urn:d"].Published.IsZero() {
		t.Error("an unparseable date must come back zero")
	}
	if got := keys["id:urn:a"].Published; !got.Equal(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("published = %v", got)
	}
}

func TestEntryKeyStableAndDistinct(t *testing.T) {
	a := EntryKey("", "", "Title", "Body")
	if a != EntryKey("", "", "Title", "Body") {
		t.Error("hash key not stable")
	}
	if a == EntryKey("", "", "Title", "Other body") || a == EntryKey("", "", "TitleBody", "") {
		t.Error("hash keys collide")
	}
	if EntryKey("g", "l", "t", "c") != "id:g" || EntryKey("", "l", "t", "c") != "link:l" {
		t.Error("guid, then link")
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"rss.xml", "atom.xml", "feed.json", "page.html", "broken.xml"} {
		f.Add(readTestdata(f, name), "application/xml")
	}
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		feed, err := readFeedAt(body, ct, "https://example.org/")
		if err == nil && feed == nil {
			t.Fatal("nil feed without error")
		}
		if err != nil && !errors.Is(err, ErrNotFeed) {
			t.Fatalf("error not wrapped as ErrNotFeed: %v", err)
		}
		if feed != nil {
			for _, e := range feed.Entries {
				if e.Key == "" {
					t.Fatal("entry without identity")
				}
			}
		}
	})
}

func TestContentTypeReadLeniently(t *testing.T) {
	// A bad parameter must not hide the type: "application/json;" with a
	// broken charset still names JSON Feed for a body gofeed cannot sniff.
	if got := typeFromContentType("application/feed+json; charset"); got != gofeed.FeedTypeJSON {
		t.Errorf("type %v, want JSON", got)
	}
	if got := typeFromContentType("Application/Atom+XML"); got != gofeed.FeedTypeAtom {
		t.Errorf("type %v, want Atom", got)
	}
}
