package parse

import (
	"errors"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

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
