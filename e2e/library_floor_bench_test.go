package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/microcosm-cc/bluemonday"
	"github.com/mmcdole/gofeed/atom"
	"github.com/mmcdole/gofeed/rss"

	"feeddigest/internal/feedtest"
)

// BenchmarkLibraryFloor measures what the two libraries a poll cannot do
// without cost per feed of BenchmarkRun2000Feeds' day 1, with nothing of
// ours around them: gofeed's RSS or Atom parser reading one feed of 10 entries (half the farm
// serves RSS, half Atom), and bluemonday's UGC policy sanitising its 10
// bodies once. Their sum is the least CPU a feed's first read can cost
// while feeds are parsed and HTML is sanitised by these libraries, before
// anything is stored or rendered (the run's CPU per feed is measured by
// BenchmarkRun2000Feeds, which measures this floor too, in CPU time, on
// the bodies its farm serves: libraryFloor).
//
//	go test -run '^$' -bench LibraryFloor ./e2e/
func BenchmarkLibraryFloor(b *testing.B) {
	bodies := runBenchBodies(b)
	b.Run("gofeed", func(b *testing.B) {
		// The format's own parser, without gofeed's detection of the
		// format nor its translation to a gofeed.Feed: the least of it.
		var entries int
		for i := 0; b.Loop(); i++ {
			html, err := parseRaw(bodies[i%len(bodies)], i%len(bodies) == 1)
			if err != nil {
				b.Fatal(err)
			}
			entries += len(html)
		}
		if entries != b.N*runBenchEntries {
			b.Fatalf("parsed %d entries in %d feeds, want %d a feed", entries, b.N, runBenchEntries)
		}
		reportPerFeed(b)
	})
	b.Run("bluemonday", func(b *testing.B) {
		policy := bluemonday.UGCPolicy()
		var html []string
		for n := range runBenchEntries {
			html = append(html, runBenchEntry(0, n).Body)
		}
		for b.Loop() {
			sanitizeAll(b, policy, html)
		}
		reportPerFeed(b)
	})
}

// parseRaw reads one body with the format's own parser and returns the
// HTML of its entries.
func parseRaw(body []byte, isAtom bool) (html []string, err error) {
	if isAtom {
		feed, err := (&atom.Parser{}).Parse(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		for _, e := range feed.Entries {
			if e.Content != nil {
				html = append(html, e.Content.Value)
			}
		}
		return html, nil
	}
	feed, err := (&rss.Parser{}).Parse(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for _, item := range feed.Items {
		html = append(html, item.Description)
	}
	return html, nil
}

func sanitizeAll(b *testing.B, policy *bluemonday.Policy, html []string) {
	for _, h := range html {
		if strings.Contains(policy.Sanitize(h), "<script") {
			b.Fatal("script kept")
		}
	}
}

// libraryFloor is the floor of BenchmarkLibraryFloor measured as the run
// is, in CPU time (user and system, of this process, whose servers are
// idle meanwhile; the collector's share included) per feed: each body
// parsed by its format's parser and its entries' HTML sanitised, round
// after round for at least two seconds of CPU (half a second swung by a
// fifth on a loaded machine). bodies are feeds as the farm serves them,
// RSS and Atom alternating.
func libraryFloor(b *testing.B, bodies [][]byte) time.Duration {
	policy := bluemonday.UGCPolicy()
	start := selfCPU()
	feeds := 0
	for selfCPU()-start < 2*time.Second {
		for i, body := range bodies {
			html, err := parseRaw(body, i%2 == 1)
			if err != nil {
				b.Fatalf("the library floor: %v", err)
			}
			if len(html) != runBenchEntries {
				b.Fatalf("the library floor: %d entries in a feed, want %d", len(html), runBenchEntries)
			}
			sanitizeAll(b, policy, html)
			feeds++
		}
	}
	return (selfCPU() - start) / time.Duration(feeds)
}

func reportPerFeed(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/feed")
}

// runBenchBodies is one RSS and one Atom document as the benchmark's farm
// serves them, read over HTTP from a feedtest server.
func runBenchBodies(b *testing.B) [][]byte {
	srv := feedtest.Start(b)
	var bodies [][]byte
	for i, format := range []feedtest.Format{feedtest.RSS, feedtest.Atom} {
		feed := feedtest.Feed{Format: format, Title: fmt.Sprintf("Bench feed %d", i), SiteURL: "https://site.example/"}
		for n := range runBenchEntries {
			feed.Entries = append(feed.Entries, runBenchEntry(i, n))
		}
		path := fmt.Sprintf("/feed/%d", i)
		srv.Publish(path, feed)
		bodies = append(bodies, getBody(b, srv.URL+path))
	}
	return bodies
}

// getBody is the body a GET of url answers.
func getBody(b *testing.B, url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}
