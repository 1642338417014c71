package feedtest

import (
	"fmt"
	"html"
	"maps"
	"net/http"
	"strings"
	"time"
)

// Format is a feed's format.
type Format int

// The formats a Feed is written in.
const (
	RSS  Format = iota // RSS 2.0, application/rss+xml
	Atom               // Atom 1.0, application/atom+xml
)

// Entry is one entry of a feed.
type Entry struct {
	ID        string    // the RSS guid or Atom id
	Title     string    // plain text
	Link      string    // "": https://site.example/<ID>
	Body      string    // HTML: the RSS description or Atom content; none when empty
	Published time.Time // the RSS pubDate or Atom updated; none when zero
}

// Feed is a feed the server publishes.
type Feed struct {
	Format  Format
	Title   string
	SiteURL string  // the channel's (or Atom feed's) link; none when empty
	TTL     int     // RSS <ttl>, in minutes; none when 0
	Entries []Entry // oldest first; a body lists them newest first
	// Header holds further response headers (Cache-Control, a
	// Content-Type of its own); an ETag or Last-Modified given here
	// replaces the server's.
	Header http.Header
	// NoValidators: no ETag (nor Last-Modified, unless in Header), as
	// from a server where every poll downloads the whole feed.
	NoValidators bool
}

func (f *Feed) write(w http.ResponseWriter, r *http.Request, body []byte) {
	ct := "application/rss+xml"
	if f.Format == Atom {
		ct = "application/atom+xml"
	}
	w.Header().Set("Content-Type", ct)
	if f.NoValidators {
		maps.Copy(w.Header(), f.Header)
		w.Write(body)
		return
	}
	ServeConditional(w, r, f.Header, body)
}

// body is the feed's document with its window newest entries (0: all).
func (f *Feed) body(path string, window int) []byte {
	entries := f.Entries
	if window > 0 && len(entries) > window {
		entries = entries[len(entries)-window:]
	}
	var b strings.Builder
	if f.Format == Atom {
		f.atom(&b, path, entries)
	} else {
		f.rss(&b, entries)
	}
	return []byte(b.String())
}

func (f *Feed) rss(b *strings.Builder, entries []Entry) {
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>`)
	element(b, "title", f.Title)
	if f.SiteURL != "" {
		element(b, "link", f.SiteURL)
	}
	if f.TTL > 0 {
		fmt.Fprintf(b, "<ttl>%d</ttl>", f.TTL)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		b.WriteString("<item>")
		element(b, "guid", e.ID)
		element(b, "title", e.Title)
		element(b, "link", e.link())
		if e.Body != "" {
			element(b, "description", e.Body)
		}
		if !e.Published.IsZero() {
			element(b, "pubDate", e.Published.Format(time.RFC1123Z))
		}
		b.WriteString("</item>")
	}
	b.WriteString("</channel></rss>")
}

func (f *Feed) atom(b *strings.Builder, path string, entries []Entry) {
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">`)
	element(b, "title", f.Title)
	element(b, "id", "urn:feedtest:"+path)
	if f.SiteURL != "" {
		fmt.Fprintf(b, `<link href="%s"/>`, html.EscapeString(f.SiteURL))
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		b.WriteString("<entry>")
		element(b, "id", e.ID)
		element(b, "title", e.Title)
		fmt.Fprintf(b, `<link href="%s"/>`, html.EscapeString(e.link()))
		if !e.Published.IsZero() {
			element(b, "updated", e.Published.Format(time.RFC3339))
		}
		if e.Body != "" {
			fmt.Fprintf(b, `<content type="html">%s</content>`, html.EscapeString(e.Body))
		}
		b.WriteString("</entry>")
	}
	b.WriteString("</feed>")
}

func (e Entry) link() string {
	if e.Link != "" {
		return e.Link
	}
	return "https://site.example/" + e.ID
}

// element writes <name>text</name>, text escaped.
func element(b *strings.Builder, name, text string) {
	fmt.Fprintf(b, "<%s>%s</%s>", name, html.EscapeString(text), name)
}
