package parse

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"willnorris.com/go/microformats"

	"feeddigest/domain"
	"feeddigest/internal/redact"
)

// readPage reads an HTML page: the feeds it announces, else its h-feed.
// The page is read as it came, its <meta charset> counting too (htmlUTF8).
func readPage(body []byte, contentType string, page *url.URL) (Parsed, error) {
	if page == nil {
		page = &url.URL{}
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(htmlUTF8(body, contentType)))
	if err != nil {
		return Parsed{}, fmt.Errorf("%w: %w", ErrUnreadablePage, err)
	}
	if links := feedLinks(doc, page); len(links) > 0 {
		return Parsed{FeedLinks: links, Page: true}, nil
	}
	if feed := hFeed(doc, page); feed != nil {
		return Parsed{Feed: feed, Page: true}, nil
	}
	return Parsed{}, ErrPageWithoutFeed
}

// discoverableTypes rank the feed types a page may announce. Plain
// application/json comes last: WordPress announces its REST API with it
// on every page, beside the real feeds.
var discoverableTypes = map[string]int{
	"application/atom+xml":  0,
	"application/rss+xml":   0,
	"application/feed+json": 0,
	"application/json":      1,
}

// feedLinks lists the feeds a page announces with <link rel="alternate">,
// best type first and otherwise in document order, resolved against the
// page's <base href> (itself resolved against the page URL).
func feedLinks(doc *goquery.Document, page *url.URL) []string {
	base := page
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if u, err := page.Parse(strings.TrimSpace(href)); err == nil {
			base = u
		}
	}
	ranked := make([][]string, 2)
	var seen []string
	doc.Find("link[rel][href][type]").Each(func(_ int, s *goquery.Selection) {
		if !slices.Contains(strings.Fields(strings.ToLower(s.AttrOr("rel", ""))), "alternate") {
			return
		}
		rank, ok := discoverableTypes[mediaType(s.AttrOr("type", ""))]
		if !ok {
			return
		}
		u, err := base.Parse(strings.TrimSpace(s.AttrOr("href", "")))
		// Only a web address: never javascript:, data:, file: and the like.
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return
		}
		u.Fragment = ""
		if link := u.String(); !slices.Contains(seen, link) {
			seen = append(seen, link)
			ranked[rank] = append(ranked[rank], link)
		}
	})
	return append(ranked[0], ranked[1]...)
}

// hFeed reads a page's h-feed (microformats2): its h-entry children, or,
// as the h-feed parsing rules say, the page's top-level h-entries when
// there is no h-feed. nil when the page has no entries.
func hFeed(doc *goquery.Document, page *url.URL) *Feed {
	if len(doc.Nodes) == 0 {
		return nil
	}
	// The page's address becomes the site link and the base of the entry
	// links readers see: never with its credentials.
	page = redact.Base(page)
	data := microformats.ParseNode(doc.Nodes[0], page)
	if data == nil {
		return nil
	}
	feed := &Feed{Format: "h-feed", Title: strings.TrimSpace(doc.Find("title").First().Text()), SiteURL: page.String()}
	var entries []*microformats.Microformat
	if hf := findType(data.Items, "h-feed"); hf != nil {
		if name := propString(hf, "name"); name != "" {
			feed.Title = name
		}
		if u := propString(hf, "url"); u != "" {
			feed.SiteURL = u
		}
		entries = ofType(hf.Children, "h-entry")
	} else {
		entries = ofType(data.Items, "h-entry")
	}
	for _, item := range entries {
		feed.Entries = append(feed.Entries, hEntry(item, page))
	}
	if len(feed.Entries) == 0 {
		return nil
	}
	feed.Entries = keepNewest(feed.Entries, MaxEntries)
	return feed
}

func hEntry(item *microformats.Microformat, page *url.URL) domain.Entry {
	e := domain.Entry{
		Title:   propString(item, "name"),
		Link:    resolve(page, propString(item, "url")),
		Summary: propString(item, "summary"),
		Author:  propString(item, "author"),
	}
	text := ""
	if values := item.Properties["content"]; len(values) > 0 {
		switch c := values[0].(type) {
		case map[string]string:
			e.Content, text = c["html"], c["value"]
		case string:
			e.Content, text = html.EscapeString(c), c
		}
	}
	// A note has no name; parsers imply one from its text. A name that is
	// just the text again is no title.
	if e.Title != "" && strings.Join(strings.Fields(e.Title), " ") == strings.Join(strings.Fields(text), " ") {
		e.Title = ""
	}
	e.Published = parseMFTime(propString(item, "published"))
	if e.Published.IsZero() {
		e.Published = parseMFTime(propString(item, "updated"))
	}
	e.Key = EntryKey(propString(item, "uid"), e.Link, e.Title, e.Content)
	return e
}

// findType finds the first microformat of a type, depth first.
func findType(items []*microformats.Microformat, typ string) *microformats.Microformat {
	for _, it := range items {
		if slices.Contains(it.Type, typ) {
			return it
		}
		if found := findType(it.Children, typ); found != nil {
			return found
		}
	}
	return nil
}

func ofType(items []*microformats.Microformat, typ string) []*microformats.Microformat {
	var out []*microformats.Microformat
	for _, it := range items {
		if slices.Contains(it.Type, typ) {
			out = append(out, it)
		}
	}
	return out
}

// propString is a property's first value as text: a plain value, the
// value of an embedded e-* property, or an embedded microformat's name
// (an author's h-card) or value.
func propString(item *microformats.Microformat, name string) string {
	for _, v := range item.Properties[name] {
		switch v := v.(type) {
		case string:
			return strings.TrimSpace(v)
		case map[string]string:
			return strings.TrimSpace(v["value"])
		case *microformats.Microformat:
			if n := propString(v, "name"); n != "" {
				return n
			}
			return strings.TrimSpace(v.Value)
		}
	}
	return ""
}

// mfTimeLayouts are the datetime forms microformats2 allows (ISO 8601 and
// the HTML5 profile), most specific first.
var mfTimeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z07:00", "2006-01-02T15:04Z0700",
	"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05Z0700", "2006-01-02 15:04Z07:00",
	"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02",
}

// parseMFTime reads a dt-* value; zero when unreadable, so the caller falls
// back to the first-seen time as for any feed.
func parseMFTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range mfTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
