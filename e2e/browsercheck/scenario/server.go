package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"time"

	"feeddigest/internal/feedtest"
)

// server serves the scenario's feeds as they stand at the simulated
// time, which the scenario moves before each run of feeddigest: a feed
// lists what it published by then. It answers conditional requests as a
// well-behaved publisher does (ETag, Last-Modified, 304).
type server struct {
	mu    sync.Mutex
	now   time.Time
	feeds map[string]*feed
}

func newServer(feeds []*feed) *server {
	s := &server{feeds: map[string]*feed{}}
	for _, f := range feeds {
		s.feeds[f.Path] = f
	}
	return s
}

func (s *server) setNow(now time.Time) {
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

func (s *server) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/img/") {
		servePicture(w, r.URL.Path)
		return
	}
	f := s.feeds[r.URL.Path]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	now := s.clock()
	switch {
	case f.Fails == serverError:
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	case f.Fails == dropsLine:
		dropConnection(w)
		return
	case f.Fails == goneLater && !now.Before(goneFrom):
		http.Error(w, "This newsletter has moved to paper only.", http.StatusGone)
		return
	}
	items := f.visible(now)
	body, contentType, err := render(f, items)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := http.Header{"Content-Type": {contentType}}
	if len(items) > 0 {
		h.Set("Last-Modified", items[0].Published.Format(http.TimeFormat))
	}
	feedtest.ServeConditional(w, r, h, body)
}

// dropConnection closes the connection without a word, as a server
// behind a failing load balancer does.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot hijack", http.StatusInternalServerError)
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	conn.Close()
}

// servePicture answers any /img/ path with a small picture, a colour of
// its own for each path, so that a long read's figures show when the
// pages are looked at while the scenario serves.
func servePicture(w http.ResponseWriter, path string) {
	h := fnv.New32a()
	h.Write([]byte(path))
	sum := h.Sum32()
	img := image.NewRGBA(image.Rect(0, 0, 64, 36))
	c := color.RGBA{R: uint8(sum), G: uint8(sum >> 8), B: uint8(sum >> 16), A: 255}
	for y := range 36 {
		for x := range 64 {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Write(b.Bytes())
}

// render writes items as f's format.
func render(f *feed, items []item) ([]byte, string, error) {
	switch f.Format {
	case "rss":
		return renderRSS(f, items), "application/rss+xml; charset=utf-8", nil
	case "atom":
		return renderAtom(f, items), "application/atom+xml; charset=utf-8", nil
	case "json":
		b, err := renderJSON(f, items)
		return b, "application/feed+json", err
	}
	return nil, "", fmt.Errorf("feed %s: unknown format %q", f.Path, f.Format)
}

// esc is s escaped for XML text and attributes.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func renderRSS(f *feed, items []item) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:dc="http://purl.org/dc/elements/1.1/">` + "\n<channel>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<link>%s</link>\n<description>%s</description>\n", esc(f.Title), esc(f.Site), esc(f.Description))
	if f.Language != "" {
		fmt.Fprintf(&b, "<language>%s</language>\n", esc(f.Language))
	}
	for _, it := range items {
		b.WriteString("<item>\n")
		if it.Title != "" {
			fmt.Fprintf(&b, "<title>%s</title>\n", esc(it.Title))
		}
		fmt.Fprintf(&b, "<link>%s</link>\n<guid isPermaLink=\"false\">%s</guid>\n<pubDate>%s</pubDate>\n",
			esc(it.Link), esc(it.ID), it.Published.Format(time.RFC1123Z))
		if it.Author != "" {
			fmt.Fprintf(&b, "<dc:creator>%s</dc:creator>\n", esc(it.Author))
		}
		switch {
		case it.HTML != "":
			fmt.Fprintf(&b, "<description>%s</description>\n", esc(it.HTML))
		case it.Text != "":
			fmt.Fprintf(&b, "<description>%s</description>\n", esc(it.Text))
		}
		if e := it.Enclosure; e != nil {
			fmt.Fprintf(&b, "<enclosure url=\"%s\" length=\"%d\" type=\"%s\"/>\n<itunes:duration>%s</itunes:duration>\n",
				esc(e.URL), e.Length, esc(e.Type), esc(e.Duration))
		}
		b.WriteString("</item>\n")
	}
	b.WriteString("</channel>\n</rss>\n")
	return b.Bytes()
}

func renderAtom(f *feed, items []item) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"%s\">\n", esc(f.Language))
	fmt.Fprintf(&b, "<title>%s</title>\n<link href=\"%s\"/>\n<id>%s/</id>\n", esc(f.Title), esc(f.Site), esc(f.Site))
	if len(items) > 0 {
		fmt.Fprintf(&b, "<updated>%s</updated>\n", items[0].Published.Format(time.RFC3339))
	}
	for _, it := range items {
		stamp := it.Published.Format(time.RFC3339)
		fmt.Fprintf(&b, "<entry>\n<title>%s</title>\n<link href=\"%s\"/>\n<id>%s</id>\n<published>%s</published>\n<updated>%s</updated>\n",
			esc(it.Title), esc(it.Link), esc(it.ID), stamp, stamp)
		if it.Author != "" {
			fmt.Fprintf(&b, "<author><name>%s</name></author>\n", esc(it.Author))
		}
		if it.Text != "" {
			fmt.Fprintf(&b, "<summary>%s</summary>\n", esc(it.Text))
		}
		fmt.Fprintf(&b, "<content type=\"html\">%s</content>\n</entry>\n", esc(it.HTML))
	}
	b.WriteString("</feed>\n")
	return b.Bytes()
}

type jsonFeed struct {
	Version     string     `json:"version"`
	Title       string     `json:"title"`
	HomePageURL string     `json:"home_page_url"`
	Language    string     `json:"language,omitempty"`
	Items       []jsonItem `json:"items"`
}

type jsonItem struct {
	ID            string `json:"id"`
	URL           string `json:"url"`
	Title         string `json:"title,omitempty"`
	ContentText   string `json:"content_text,omitempty"`
	ContentHTML   string `json:"content_html,omitempty"`
	DatePublished string `json:"date_published"`
}

func renderJSON(f *feed, items []item) ([]byte, error) {
	jf := jsonFeed{Version: "https://jsonfeed.org/version/1.1", Title: f.Title, HomePageURL: f.Site, Language: f.Language, Items: []jsonItem{}}
	for _, it := range items {
		jf.Items = append(jf.Items, jsonItem{ID: it.ID, URL: it.Link, Title: it.Title, ContentText: it.Text, ContentHTML: it.HTML,
			DatePublished: it.Published.Format(time.RFC3339)})
	}
	return json.MarshalIndent(jf, "", "  ")
}
