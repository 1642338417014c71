package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"feeddigest/parse"
)

// route is one resource of a fake site.
type route struct {
	contentType  string
	body         []byte
	etag         string // answers 304 to a matching If-None-Match
	cacheControl string
	status       int    // 0: 200
	location     string // with status 301 and the like
}

// site serves routes and records every request.
func site(t *testing.T, routes map[string]route) (*recorder, string) {
	t.Helper()
	rec, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		rt, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if rt.etag != "" {
			w.Header().Set("ETag", rt.etag)
			if r.Header.Get("If-None-Match") == rt.etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		if rt.contentType != "" {
			w.Header().Set("Content-Type", rt.contentType)
		}
		if rt.cacheControl != "" {
			w.Header().Set("Cache-Control", rt.cacheControl)
		}
		if rt.location != "" {
			w.Header().Set("Location", rt.location)
		}
		if rt.status != 0 {
			w.WriteHeader(rt.status)
		}
		w.Write(rt.body)
	})
	return rec, ts.URL
}

func (r *recorder) paths() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var p []string
	for _, req := range r.requests {
		p = append(p, req.Method+" "+req.URL.Path)
	}
	return strings.Join(p, ",")
}

func TestDiscoveryFromHTMLPage(t *testing.T) {
	page := readTestdata(t, "page.html") // links /feed.xml
	rss := readTestdata(t, "rss.xml")
	atom := readTestdata(t, "atom.xml")
	tests := []struct {
		name      string
		routes    map[string]route
		req       Request
		opts      Options
		wantPaths string
		want      Outcome
		wantURL   string // DiscoveredURL, relative to the server
		check     func(t *testing.T, rec *recorder, res Result)
	}{{
		name: "link rel=alternate is polled in the same Poll",
		routes: map[string]route{
			"/":         {contentType: "text/html; charset=utf-8", body: page, etag: `"page"`},
			"/feed.xml": {contentType: "application/rss+xml", body: rss, etag: `"feed"`},
		},
		wantPaths: "GET /,GET /feed.xml", want: OutcomeFresh, wantURL: "/feed.xml",
		check: func(t *testing.T, rec *recorder, res Result) {
			if res.Feed.Title != "Sample RSS" || len(res.Feed.Entries) != 4 {
				t.Errorf("feed %q with %d entries", res.Feed.Title, len(res.Feed.Entries))
			}
			if res.Requests != 2 || res.Bytes != int64(len(page)+len(rss)) {
				t.Errorf("counted %d requests, %d bytes; want 2, %d", res.Requests, res.Bytes, len(page)+len(rss))
			}
			// The validators to store are the feed's, never the page's.
			if res.ETag != `"feed"` {
				t.Errorf("ETag %q, want the feed's", res.ETag)
			}
			if ref := rec.last().Header.Get("Referer"); ref != "" {
				t.Errorf("the feed request carried a Referer %q", ref)
			}
		},
	}, {
		name: "what the page's answer said is not the feed's",
		routes: map[string]route{
			"/":         {contentType: "text/html", body: page, etag: `"page"`, cacheControl: "max-age=86400"},
			"/feed.xml": {contentType: "application/rss+xml", body: rss},
		},
		wantPaths: "GET /,GET /feed.xml", want: OutcomeFresh, wantURL: "/feed.xml",
		check: func(t *testing.T, rec *recorder, res Result) {
			if res.ETag != "" || res.LastModified != "" {
				t.Errorf("validators %q %q: the page's, sent to the feed next time", res.ETag, res.LastModified)
			}
			if res.Hint != 2*time.Hour || res.HintSource != "RSS ttl" {
				t.Errorf("hint %v from %q, want the feed's ttl, not the page's max-age", res.Hint, res.HintSource)
			}
		},
	}, {
		name: "base href, best type first, relative href with spaces and fragment",
		routes: map[string]route{
			"/":               {contentType: "text/html", body: readTestdata(t, "page_base.html")},
			"/blog/feed.atom": {contentType: "application/atom+xml", body: atom},
		},
		wantPaths: "GET /,GET /blog/feed.atom", want: OutcomeFresh, wantURL: "/blog/feed.atom",
	}, {
		name: "an HTML page labelled text/plain is sniffed",
		routes: map[string]route{
			"/":         {contentType: "text/plain", body: page},
			"/feed.xml": {contentType: "application/rss+xml", body: rss},
		},
		wantPaths: "GET /,GET /feed.xml", want: OutcomeFresh, wantURL: "/feed.xml",
	}, {
		name: "the discovered feed is asked conditionally and answers 304",
		routes: map[string]route{
			"/":         {contentType: "text/html", body: page},
			"/feed.xml": {contentType: "application/rss+xml", body: rss, etag: `"feed"`},
		},
		req:       Request{ETag: `"feed"`, Answers304: true},
		wantPaths: "GET /,GET /feed.xml", want: OutcomeUnchanged, wantURL: "/feed.xml",
		check: func(t *testing.T, rec *recorder, res Result) {
			if got := rec.last().Header.Get("If-None-Match"); got != `"feed"` {
				t.Errorf("feed request If-None-Match %q", got)
			}
			if res.ETag != `"feed"` || res.Feed != nil {
				t.Errorf("ETag %q feed %v", res.ETag, res.Feed)
			}
		},
	}, {
		name: "the announced feed moved permanently: discovered is where it is now",
		routes: map[string]route{
			"/":             {contentType: "text/html", body: page},
			"/feed.xml":     {status: http.StatusMovedPermanently, location: "/new/feed.xml"},
			"/new/feed.xml": {contentType: "application/rss+xml", body: rss},
		},
		wantPaths: "GET /,GET /feed.xml,GET /new/feed.xml", want: OutcomeFresh, wantURL: "/new/feed.xml",
		check: func(t *testing.T, rec *recorder, res Result) {
			if res.Requests != 3 || res.PermanentURL != "" {
				t.Errorf("%d requests, PermanentURL %q (the page did not move)", res.Requests, res.PermanentURL)
			}
		},
	}, {
		name: "one slot per host: the page's slot is free before the feed is asked",
		routes: map[string]route{
			"/":         {contentType: "text/html", body: page},
			"/feed.xml": {contentType: "application/rss+xml", body: rss},
		},
		opts:      Options{PerHost: 1, HostWait: 2 * time.Second},
		wantPaths: "GET /,GET /feed.xml", want: OutcomeFresh, wantURL: "/feed.xml",
	}, {
		name: "the announced feed is missing: an error, nothing discovered",
		routes: map[string]route{
			"/": {contentType: "text/html", body: page},
		},
		wantPaths: "GET /,GET /feed.xml", want: OutcomeHTTPError,
		check: func(t *testing.T, rec *recorder, res Result) {
			var se *ErrStatus
			if !errors.As(res.Err, &se) || se.Code != 404 || !strings.Contains(res.Err.Error(), "/feed.xml") {
				t.Errorf("err %v", res.Err)
			}
		},
	}, {
		name: "a feed link to another page is not followed further",
		routes: map[string]route{
			"/":         {contentType: "text/html", body: page},
			"/feed.xml": {contentType: "text/html", body: bytes.ReplaceAll(page, []byte("/feed.xml"), []byte("/third"))},
			"/third":    {contentType: "application/rss+xml", body: rss},
		},
		wantPaths: "GET /,GET /feed.xml", want: OutcomeBroken,
		check: func(t *testing.T, rec *recorder, res Result) {
			if !errors.Is(res.Err, parse.ErrNotFeed) {
				t.Errorf("err %v", res.Err)
			}
		},
	}, {
		name: "no feed link, an h-feed: the page is the feed",
		routes: map[string]route{
			"/": {contentType: "text/html", body: readTestdata(t, "hfeed.html")},
		},
		wantPaths: "GET /", want: OutcomeFresh,
		check: func(t *testing.T, rec *recorder, res Result) {
			if res.Feed.Format != "h-feed" || len(res.Feed.Entries) != 2 || res.BodyHash == "" {
				t.Errorf("format %q, %d entries, hash %q", res.Feed.Format, len(res.Feed.Entries), res.BodyHash)
			}
		},
	}, {
		name: "no feed link, no h-feed",
		routes: map[string]route{
			"/": {contentType: "text/html", body: readTestdata(t, "page_no_feed.html")},
		},
		wantPaths: "GET /", want: OutcomeBroken,
		check: func(t *testing.T, rec *recorder, res Result) {
			if !errors.Is(res.Err, parse.ErrNotFeed) || !strings.Contains(res.Err.Error(), "no feed link") {
				t.Errorf("err %v", res.Err)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, base := site(t, tt.routes)
			tt.req.URL = base + "/"
			res := testClient(tt.opts).Poll(context.Background(), tt.req, testNow)
			if got := rec.paths(); got != tt.wantPaths {
				t.Errorf("requests %s, want %s", got, tt.wantPaths)
			}
			if res.Outcome != tt.want {
				t.Fatalf("outcome %v (err %v), want %v", res.Outcome, res.Err, tt.want)
			}
			wantURL := ""
			if tt.wantURL != "" {
				wantURL = base + tt.wantURL
			}
			if res.DiscoveredURL != wantURL {
				t.Errorf("DiscoveredURL %q, want %q", res.DiscoveredURL, wantURL)
			}
			if tt.check != nil {
				tt.check(t, rec, res)
			}
		})
	}
}
