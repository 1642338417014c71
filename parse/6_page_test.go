package parse

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

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
