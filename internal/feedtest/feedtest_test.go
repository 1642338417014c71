package feedtest

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mmcdole/gofeed"
)

func get(t *testing.T, method, u string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestFeedsParseAndListNewestFirst(t *testing.T) {
	s := Start(t)
	day := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	s.Add("/a", Entry{ID: "a-1", Title: "One & only", Body: "<p>Body</p>", Published: day},
		Entry{ID: "a-2", Title: "Two", Published: day.Add(time.Hour)})
	s.Publish("/atom", Feed{Format: Atom, Title: "Atom <feed>", SiteURL: "https://atom.example/",
		Entries: []Entry{{ID: "urn:x:1", Title: "First", Body: "<p>Hi</p>", Published: day}}})
	for _, tt := range []struct {
		path, title, kind, contentType string
		ids                            []string
	}{
		{"/a", "Feed /a", "rss", "application/rss+xml", []string{"a-2", "a-1"}},
		{"/atom", "Atom <feed>", "atom", "application/atom+xml", []string{"urn:x:1"}},
	} {
		resp, body := get(t, "GET", s.URL+tt.path, nil)
		if resp.Header.Get("Content-Type") != tt.contentType {
			t.Errorf("%s: Content-Type %q", tt.path, resp.Header.Get("Content-Type"))
		}
		feed, err := gofeed.NewParser().ParseString(body)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.path, err, body)
		}
		if feed.FeedType != tt.kind || feed.Title != tt.title || len(feed.Items) != len(tt.ids) {
			t.Fatalf("%s: %s %q, %d items", tt.path, feed.FeedType, feed.Title, len(feed.Items))
		}
		for i, id := range tt.ids {
			if feed.Items[i].GUID != id || feed.Items[i].Link != "https://site.example/"+id {
				t.Errorf("%s: item %d is %q %q, want %q", tt.path, i, feed.Items[i].GUID, feed.Items[i].Link, id)
			}
		}
	}
	s.SetWindow(1)
	_, body := get(t, "GET", s.URL+"/a", nil)
	if !strings.Contains(body, "a-2") || strings.Contains(body, "a-1") {
		t.Errorf("window 1: %s", body)
	}
}

func TestConditionalRequests(t *testing.T) {
	s := Start(t)
	s.Add("/a", Entry{ID: "a-1"})
	modified := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	s.Publish("/lm", Feed{Title: "LM", Header: http.Header{"Last-Modified": {modified.Format(http.TimeFormat)}}})
	s.Publish("/bare", Feed{Title: "Bare", NoValidators: true})
	resp, _ := get(t, "GET", s.URL+"/a", nil)
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.StatusCode != 200 {
		t.Fatalf("first GET: %d, ETag %q", resp.StatusCode, etag)
	}
	if resp, body := get(t, "GET", s.URL+"/a", http.Header{"If-None-Match": {etag}}); resp.StatusCode != 304 || body != "" {
		t.Errorf("matching If-None-Match: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, "HEAD", s.URL+"/a", http.Header{"If-None-Match": {etag}}); resp.StatusCode != 304 {
		t.Errorf("matching HEAD: %d", resp.StatusCode)
	}
	s.Add("/a", Entry{ID: "a-2"})
	if resp, _ := get(t, "GET", s.URL+"/a", http.Header{"If-None-Match": {etag}}); resp.StatusCode != 200 || resp.Header.Get("ETag") == etag {
		t.Errorf("after a new entry: %d, ETag %q", resp.StatusCode, resp.Header.Get("ETag"))
	}
	if resp, _ := get(t, "GET", s.URL+"/lm", http.Header{"If-Modified-Since": {modified.Format(http.TimeFormat)}}); resp.StatusCode != 304 {
		t.Errorf("If-Modified-Since: %d", resp.StatusCode)
	}
	if resp, _ := get(t, "GET", s.URL+"/lm", http.Header{"If-Modified-Since": {modified.Add(-time.Hour).Format(http.TimeFormat)}}); resp.StatusCode != 200 {
		t.Errorf("modified since: %d", resp.StatusCode)
	}
	resp, _ = get(t, "GET", s.URL+"/bare", http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != 200 || resp.Header.Get("ETag") != "" || resp.Header.Get("Last-Modified") != "" {
		t.Errorf("no validators: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, _ := get(t, "POST", s.URL+"/a", nil); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	want := []string{"GET /a 200", "GET /a 304", "HEAD /a 304", "GET /a 200", "GET /lm 304", "GET /lm 200", "GET /bare 200", "POST /a 405"}
	if got := s.Requests(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %q, want %q", got, want)
	}
	if s.Count("/a") != 5 || s.CountMethod("HEAD", "/a") != 1 || s.Count("/none") != 0 {
		t.Errorf("counts: %d, %d HEAD", s.Count("/a"), s.CountMethod("HEAD", "/a"))
	}
}

func TestScriptedAnswers(t *testing.T) {
	s := Start(t)
	s.Add("/a", Entry{ID: "a-1"})
	s.Respond("/a", Response{Status: 429, RetryAfter: "7200"})
	s.Respond("/gone", Response{Status: 410, Body: "retired"})
	s.Redirect("/old", "/a", http.StatusMovedPermanently)
	s.Handle("/custom", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(418) }))
	if resp, _ := get(t, "GET", s.URL+"/a", nil); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7200" {
		t.Errorf("scripted 429: %d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp, body := get(t, "GET", s.URL+"/gone", nil); resp.StatusCode != 410 || body != "retired" {
		t.Errorf("scripted 410: %d %q", resp.StatusCode, body)
	}
	s.Respond("/a", Response{}) // cleared: the feed again
	if resp, _ := get(t, "GET", s.URL+"/old", nil); resp.StatusCode != 200 || resp.Request.URL.Path != "/a" {
		t.Errorf("redirect: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if resp, _ := get(t, "GET", s.URL+"/custom", nil); resp.StatusCode != 418 {
		t.Errorf("handler: %d", resp.StatusCode)
	}
	if resp, _ := get(t, "GET", s.URL+"/nothing", nil); resp.StatusCode != 404 {
		t.Errorf("nothing there: %d", resp.StatusCode)
	}
	want := "GET /a 429,GET /gone 410,GET /old 301,GET /a 200,GET /custom 418,GET /nothing 404"
	if got := strings.Join(s.Requests(), ","); got != want {
		t.Errorf("requests %s, want %s", got, want)
	}
}

func TestFiles(t *testing.T) {
	s := Start(t)
	modified := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	s.ServeFiles(Files{FS: fstest.MapFS{"blog.xml": {Data: []byte("<rss/>")}, "notes.atom": {Data: []byte("<feed/>")}},
		Modified: modified, ContentTypes: map[string]string{".atom": "application/rss+xml"}})
	resp, body := get(t, "GET", s.URL+"/blog.xml", nil)
	if resp.StatusCode != 200 || body != "<rss/>" || resp.Header.Get("Last-Modified") != "Fri, 20 Nov 2026 20:00:00 GMT" ||
		!strings.Contains(resp.Header.Get("Content-Type"), "xml") {
		t.Errorf("file: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := get(t, "GET", s.URL+"/blog.xml", http.Header{"If-None-Match": {resp.Header.Get("ETag")}}); resp.StatusCode != 304 {
		t.Errorf("conditional: %d", resp.StatusCode)
	}
	if resp, _ := get(t, "GET", s.URL+"/notes.atom", nil); resp.Header.Get("Content-Type") != "application/rss+xml" {
		t.Errorf("Content-Type %q, want the one given", resp.Header.Get("Content-Type"))
	}
	if resp, _ := get(t, "GET", s.URL+"/missing.xml", nil); resp.StatusCode != 404 {
		t.Errorf("missing file: %d", resp.StatusCode)
	}
}

func TestLatencyAndInFlightPerHost(t *testing.T) {
	s := Start(t)
	s.Add("/a", Entry{ID: "a-1"})
	s.SetLatency(100 * time.Millisecond)
	u, _ := url.Parse(s.URL)
	other := "localhost:" + u.Port()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			base := s.URL
			if i < 2 {
				base = "http://" + other
			}
			get(t, "GET", base+"/a", nil)
		})
	}
	wg.Wait()
	peaks := s.PeakInFlightPerHost()
	if peaks[u.Host] != 3 || peaks[other] != 2 || s.PeakInFlight() != 5 {
		t.Errorf("peaks %v, all %d; want 3 and 2, 5", peaks, s.PeakInFlight())
	}
	// A client that gives up is not kept waiting.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	s.SetLatency(time.Hour)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/a", nil)
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Error("answered within the latency")
	}
}

func TestHeadersGivenInAnyCase(t *testing.T) {
	s := Start(t)
	s.Publish("/a", Feed{Title: "A", Header: http.Header{"ETag": {`"same"`}}})
	resp, _ := get(t, "GET", s.URL+"/a", nil)
	if got := resp.Header.Values("Etag"); len(got) != 1 || got[0] != `"same"` {
		t.Errorf("ETag %q, want the one given", got)
	}
	if resp, _ := get(t, "GET", s.URL+"/a", http.Header{"If-None-Match": {`"same"`}}); resp.StatusCode != 304 {
		t.Errorf("If-None-Match with the given ETag: %d", resp.StatusCode)
	}
}
