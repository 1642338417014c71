package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
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
			if !errors.Is(res.Err, ErrNotFeed) {
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
			if !errors.Is(res.Err, ErrNotFeed) || !strings.Contains(res.Err.Error(), "no feed link") {
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

func TestFeedLinks(t *testing.T) {
	page, _ := url.Parse("https://example.org/2026/post?x=1")
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(readTestdata(t, "page_base.html")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"https://example.org/blog/feed.atom",
		"https://example.org/blog/comments.xml",
		"https://example.org/wp-json/wp/v2/pages/2", // plain JSON only as a last resort
	}
	if got := feedLinks(doc, page); !slices.Equal(got, want) {
		t.Errorf("feedLinks = %q\nwant %q", got, want)
	}
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(readTestdata(t, "page_no_feed.html")))
	if got := feedLinks(doc, page); len(got) != 0 {
		t.Errorf("a javascript: link or a language alternate is no feed: %q", got)
	}
}

func TestHFeedEntries(t *testing.T) {
	page, _ := url.Parse("https://ada.example.org/notes/")
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(readTestdata(t, "hfeed.html")))
	if err != nil {
		t.Fatal(err)
	}
	f := hFeed(doc, page)
	if f == nil {
		t.Fatal("no h-feed found")
	}
	if f.Title != "Ada's notes" || f.Format != "h-feed" {
		t.Errorf("title %q format %q", f.Title, f.Format)
	}
	article, note := f.Entries[0], f.Entries[1]
	if article.Key != "id:https://ada.example.org/2026/11/article" || article.Title != "A proper article" ||
		article.Link != "https://ada.example.org/2026/11/article" || article.Author != "Ada Lovelace" {
		t.Errorf("article %+v", article)
	}
	if !strings.Contains(article.Content, "<em>body</em>") || !strings.Contains(article.Content, `href="https://ada.example.org/rel"`) {
		t.Errorf("article content %q: want the HTML, links resolved", article.Content)
	}
	if want := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC); !article.Published.Equal(want) {
		t.Errorf("published %v, want %v", article.Published, want)
	}
	// A note: no uid, so the URL is its identity; its implied name is its text, so no title.
	if note.Key != "link:https://ada.example.org/2026/11/note" || note.Title != "" || note.Content != "Just a short note." {
		t.Errorf("note %+v", note)
	}
	if want := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC); !note.Published.Equal(want) {
		t.Errorf("note published %v, want %v", note.Published, want)
	}

	// Top-level h-entries without an h-feed are a feed too.
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(`<html><body><article class="h-entry"><a class="u-url" href="/x">x</a><p class="e-content">X</p></article></body></html>`))
	if f := hFeed(doc, page); f == nil || len(f.Entries) != 1 || f.Entries[0].Link != "https://ada.example.org/x" {
		t.Errorf("implied h-feed: %+v", f)
	}
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(readTestdata(t, "page_no_feed.html")))
	if f := hFeed(doc, page); f != nil {
		t.Errorf("a page without microformats is no h-feed: %+v", f)
	}
}

func TestSniffHTML(t *testing.T) {
	tests := []struct {
		body string
		ct   string
		want bool
	}{
		{"<!DOCTYPE html><html>", "", true},
		{"\xEF\xBB\xBF  \n<html lang=en>", "application/octet-stream", true},
		{"<!-- generator --><!doctype HTML>", "text/plain", true},
		{`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">`, "", true},
		{"<head><title>x</title>", "", true},
		{"<p>just a paragraph", "", true},
		{"anything at all", "text/html; charset=utf-8", true},
		{"{}", "application/xhtml+xml", true},
		{`<?xml version="1.0"?><rss version="2.0">`, "", false},
		{`<!-- generator --><feed xmlns="http://www.w3.org/2005/Atom">`, "", false},
		{"<atom:feed>", "", false}, // "<a" must be a whole name
		{"<pre>", "", false},
		{`{"version": "https://jsonfeed.org/version/1.1"}`, "", false},
		{"<!-- never closed", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := isHTML([]byte(tt.body), tt.ct); got != tt.want {
			t.Errorf("isHTML(%q, %q) = %v, want %v", tt.body, tt.ct, got, tt.want)
		}
	}
}

func FuzzSniff(f *testing.F) {
	for _, name := range []string{"rss.xml", "atom.xml", "feed.json", "page.html", "page_base.html", "hfeed.html", "page_no_feed.html"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte("<!--<?--><?<!--?>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got := isHTML(body, "")
		if !isHTML(body, "text/html") {
			t.Fatal("a text/html Content-Type is always HTML")
		}
		// Only the start counts: what follows the first kilobyte cannot change the answer.
		if len(body) >= 1024 && isHTML(append(body[:1024:1024], "<html>"...), "") != got {
			t.Fatal("bytes past the first kilobyte changed the answer")
		}
		// Leading whitespace never changes it.
		if isHTML(append([]byte(" \n"), body[:min(len(body), 1000)]...), "") != isHTML(body[:min(len(body), 1000)], "") {
			t.Fatal("leading whitespace changed the answer")
		}
	})
}
