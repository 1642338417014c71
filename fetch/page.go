package fetch

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
)

// Page is a web page fetched for its article (a teaser feed's entry, see
// Client.Page): its body decoded from its Content-Encoding, not yet from
// its charset.
type Page struct {
	URL         string // where the page was found, after redirects
	ContentType string
	Body        []byte
	Requests    int   // requests sent, redirects included
	Bytes       int64 // body bytes received on the wire
}

// ErrNotHTML means a page's Content-Type is not HTML: there is no article
// to read in it.
var ErrNotHTML = errors.New("not an HTML page")

// AcceptPages names what a page fetch reads.
const AcceptPages = "text/html, application/xhtml+xml;q=0.9"

// Page fetches one web page with every rule of a feed poll: the host's
// slots and rate token shared with the feed polls (the same gates), the
// private-address refusal at dial time (redirects included), the timeout,
// max_body after decompression, and the User-Agent. Only an HTML page
// (text/html, application/xhtml+xml) is read. Requests and Bytes count
// what was sent and received, also when it fails.
func (c *Client) Page(ctx context.Context, url string) (Page, error) {
	page := Page{URL: url}
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return page, err
	}
	hr.Header.Set("User-Agent", c.userAgent)
	hr.Header.Set("Accept", AcceptPages)
	hr.Header.Set("Accept-Encoding", AcceptEncoding)
	trace := &redirectTrace{}
	hr = hr.WithContext(context.WithValue(ctx, traceKey{}, trace))
	resp, err := c.http.Do(hr)
	page.Requests = 1 + len(trace.hops)
	if err != nil {
		return page, err
	}
	defer resp.Body.Close()
	page.URL = resp.Request.URL.String()
	if resp.StatusCode != http.StatusOK {
		return page, &ErrStatus{Code: resp.StatusCode}
	}
	page.ContentType = resp.Header.Get("Content-Type")
	if !isHTML(page.ContentType) {
		return page, fmt.Errorf("%w: %q", ErrNotHTML, page.ContentType)
	}
	page.Body, page.Bytes, err = readBody(resp, c.opts.MaxBody)
	return page, err
}

// isHTML says whether a Content-Type names an HTML page.
func isHTML(contentType string) bool {
	media, _, err := mime.ParseMediaType(contentType)
	return err == nil && (media == "text/html" || media == "application/xhtml+xml")
}
