package render

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/London on machines without a zone database

	"feeddigest/internal/golden"
)

// goldenCheck compares got with testdata/<name>.golden (rewritten
// under -update).
func goldenCheck(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), got)
}

func london(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// sampleDigest has a bit of everything: a relative entry link, an entry
// without a title, a feed without a name, notices, an intro and links.
func sampleDigest(t testing.TB) Digest { return loadDigest(t, "digest") }

// goldenDigest is sampleDigest as a reader who sorts their feeds sees it
// (testdata/digest-full.json, which mail's golden email shares):
// the blog in a folder "Friends" (its first post read aloud: an MP3
// enclosure with its playing time, in nanoseconds, and its size), the
// news feed without one, and an
// Arabic feed in "Friends" too, listed after the news feed (the digest
// gathers a folder's feeds at the place of its first) whose language is
// given and whose entry is longer than an excerpt; a feed that could not
// be read; and the digests before and after it. The others' entries are
// short: their content stands in for the excerpt.
func goldenDigest(t testing.TB) Digest { return loadDigest(t, "digest-full") }

// emptyDigest is a day on which nothing was published.
func emptyDigest(t testing.TB) Digest { return loadDigest(t, "digest-empty") }

func sampleStatus() []FeedStatus {
	return []FeedStatus{
		{
			URL: "https://blog.example.org/feed.xml", Title: "Example Blog",
			LastPoll: utc("2020-11-22T00:01:00Z"), LastStatus: 304,
			NextPoll: utc("2020-11-22T01:00:00Z"), Reason: "max-age hint", Server: "supports conditional requests (by ETag)",
			State: "ok", Subscribers: []string{"ada", "bob"}, Entries: 12,
		},
		{
			URL: "https://moving.example.com/rss", EffectiveURL: "https://moving.example.com/feed.xml",
			Title: "Moving Blog", LastPoll: utc("2020-11-22T00:02:00Z"), LastStatus: 200,
			Server: "ignores conditional requests; a quick check (HEAD) by its Last-Modified first, a full download when it changed and at least weekly; its ETag stayed the same while the feed changed, so it is not used",
			State:  "moved", Subscribers: []string{"ada"},
		},
		{
			URL: "https://flaky.example.net/atom", Title: "Flaky <i>news</i>",
			LastPoll: utc("2020-11-22T00:03:00Z"), LastError: "connection refused by flaky.example.net: is the server running?",
			NextPoll: utc("2020-11-22T02:03:00Z"), Reason: "penalty (connection error)",
			ErrorCount: 3, State: "failing", Subscribers: []string{"bob"},
		},
		{URL: "https://new.example.org/feed", State: "ok", Subscribers: []string{"bob"}},
	}
}

func TestGoldenDigestPage(t *testing.T) {
	got, err := DigestPage(goldenDigest(t))
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "digest", got)
}

func TestGoldenEmptyDay(t *testing.T) {
	d := emptyDigest(t)
	d.Prev = DigestRef{Date: "2020-11-22"} // the newest digest: no next one yet
	got, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "empty", got)
}

func TestGoldenIndex(t *testing.T) {
	d := goldenDigest(t)
	archive := []DigestRef{
		{Date: "2020-11-20", Entries: 1},
		{Date: "2020-11-22", Entries: 3},
		{Date: "2020-11-21", Entries: 0},
	}
	got, err := IndexPage("ada", nil, &d, archive)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "index", got)
}

func TestGoldenIndexWithoutDigest(t *testing.T) {
	got, err := IndexPage("bob", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "index-empty", got)
}

func TestGoldenStatus(t *testing.T) {
	got, err := StatusPage(sampleStatus(), nil, utc("2020-11-22T00:10:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "status", got)
}

func TestGoldenAtom(t *testing.T) {
	got, err := AtomFeed("ada", nil, AtomSite{URL: "https://example.org/digest"}, []Digest{emptyDigest(t), goldenDigest(t)}, utc("2020-11-23T00:05:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "feed.xml", got)
}

// The feed table written in chunks by several goroutines is the page the
// whole template writes, row for row in order, whatever the chunks.
func TestStatusRowsInChunksAreThePage(t *testing.T) {
	asOf := utc("2020-11-22T00:10:00Z")
	var feeds []FeedStatus
	for i := range 40 {
		for _, f := range sampleStatus() {
			f.URL = fmt.Sprintf("%s?n=%d", f.URL, i)
			feeds = append(feeds, f)
		}
	}
	var rows []statusRow
	for _, f := range feeds {
		rows = append(rows, newStatusRow(f, asOf))
	}
	var whole bytes.Buffer
	if err := pageTemplates().ExecuteTemplate(&whole, "status-rows", rows); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ chunk, workers int }{{1, 4}, {3, 2}, {7, 4}, {len(rows) - 1, 3}, {len(rows), 4}, {5, 1}} {
		var got bytes.Buffer
		if err := writeStatusRows(&got, rows, c.chunk, c.workers); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), whole.Bytes()) {
			t.Errorf("chunks of %d by %d goroutines: %d bytes, want the %d of the whole table", c.chunk, c.workers, got.Len(), whole.Len())
		}
	}
	// And the page in its three parts is the page of the one template.
	var page, parts bytes.Buffer
	mail := []MailStatus{{User: "ada"}}
	if err := pageTemplates().ExecuteTemplate(&page, "status.html", newStatusView(feeds, nil, asOf, mail)); err != nil {
		t.Fatal(err)
	}
	if err := WriteStatusPage(&parts, feeds, nil, asOf, mail...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(parts.Bytes(), page.Bytes()) {
		t.Errorf("the page in parts differs from the page of the whole template")
	}
	if got, want := strings.Count(parts.String(), "<tr>"), len(rows)+1; got != want {
		t.Errorf("the page has %d rows, want %d", got, want)
	}
}

// A writer that fails stops the chunks: the error comes back.
func TestStatusRowsStopWhenTheWriterFails(t *testing.T) {
	var rows []statusRow
	for range 100 {
		rows = append(rows, newStatusRow(sampleStatus()[0], utc("2020-11-22T00:10:00Z")))
	}
	if err := writeStatusRows(failingWriter{}, rows, 2, 3); !errors.Is(err, errWriteFailed) {
		t.Errorf("got %v, want the writer's error", err)
	}
}

var errWriteFailed = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWriteFailed }
