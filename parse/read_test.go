package parse

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readFeedAt is readFeed (stages 1 to 5) with base written as a string,
// as the tests of those stages write it.
func readFeedAt(body []byte, contentType, base string) (*Feed, error) {
	u, _ := url.Parse(base)
	return readFeed(body, contentType, u)
}

// Read is the one door: a feed, the feeds a page announces, a page's
// h-feed, or a named error.
func TestRead(t *testing.T) {
	base, _ := url.Parse("https://example.org/blog/")
	tests := []struct {
		name, ct   string
		body       []byte
		wantFormat string   // Feed.Format, "" for no feed
		wantLinks  []string // FeedLinks
		wantPage   bool
		wantErrs   []error // errors.Is each
	}{
		{name: "a feed", ct: "application/rss+xml", body: readTestdata(t, "rss.xml"), wantFormat: "rss"},
		{name: "Atom served as text/html is a feed", ct: "text/html", body: readTestdata(t, "atom.xml"), wantFormat: "atom"},
		{name: "a page announcing a feed", ct: "text/html", body: readTestdata(t, "page.html"),
			wantLinks: []string{"https://example.org/feed.xml"}, wantPage: true},
		{name: "a page labelled text/plain is sniffed", ct: "text/plain", body: readTestdata(t, "page.html"),
			wantLinks: []string{"https://example.org/feed.xml"}, wantPage: true},
		{name: "a page with an h-feed", ct: "text/html", body: readTestdata(t, "hfeed.html"), wantFormat: "h-feed", wantPage: true},
		{name: "a page with neither", ct: "text/html", body: readTestdata(t, "page_no_feed.html"),
			wantErrs: []error{ErrPageWithoutFeed, ErrNotFeed}},
		{name: "a page too deep for the HTML parser", ct: "text/html",
			body:     []byte("<html><body>" + strings.Repeat("<div>", 600) + "</body></html>"),
			wantErrs: []error{ErrUnreadablePage, ErrNotFeed}},
		{name: "a nested body labelled text/html is bounded, not searched", ct: "text/html", body: []byte(nested(200)),
			wantErrs: []error{ErrTooDeep}},
		{name: "plain text", ct: "text/plain", body: []byte("hello"), wantErrs: []error{ErrNotFeed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.body, tt.ct, base)
			for _, want := range tt.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("err %v, want %v", err, want)
				}
			}
			if len(tt.wantErrs) == 0 && err != nil {
				t.Fatalf("err %v", err)
			}
			format := ""
			if got.Feed != nil {
				format = got.Feed.Format
			}
			if format != tt.wantFormat || !slices.Equal(got.FeedLinks, tt.wantLinks) || got.Page != tt.wantPage {
				t.Errorf("feed %q, links %q, page %v; want %q, %q, %v",
					format, got.FeedLinks, got.Page, tt.wantFormat, tt.wantLinks, tt.wantPage)
			}
		})
	}
}

// The page's errors keep the words they had when fetch wrote them: they
// are stored with the feed and shown on its status.
func TestPageErrorsSayWhatTheyDid(t *testing.T) {
	if got := ErrPageWithoutFeed.Error(); got != "not a feed: an HTML page with no feed link" {
		t.Errorf("%q", got)
	}
	if _, err := Read([]byte("<html><body>"+strings.Repeat("<div>", 600)), "text/html", nil); err == nil ||
		!strings.HasPrefix(err.Error(), "not a feed: unreadable HTML page: html: ") {
		t.Errorf("%v", err)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
