// Package parse reads a fetched body: what the server sent becomes a
// feed, or the addresses of the feeds an HTML page announces. It makes
// no request and keeps no state; fetch holds the conversation that
// brought the body, and calls Read, the one door, once the body is
// whole.
//
// Read runs six stages, one file each (two for stages 4 and 5), named
// by number so that a listing shows them in the order they run:
//
//  1. charset (1_charset.go): the body as UTF-8, its XML prolog saying
//     so. First, because everything after reads the bytes as UTF-8
//     markup, and gofeed honours only the prolog, so an HTTP charset
//     would otherwise be lost.
//  2. shape (2_shape.go): a scan that allocates nothing refuses a body
//     nested too deep, with too many elements or namespaces, or with
//     text in too many pieces (ErrTooDeep and the others), before any
//     parser could run away with it. It bounds only what gofeed's XML
//     parsers will read, so it asks stage 4 which parsers those are.
//  3. repair (3_repair.go): an ill-formed XML body (bare ampersands, a
//     truncated end, ...) is read in its repaired form, as browsers and
//     feedparser read real feeds, where gofeed would stop or silently
//     drop entries. The repaired form goes through stage 2 again and
//     stages 4 and 5; it is kept only when it gives entries, else the
//     body is read as it came and its own error stands.
//  4. formats (4_formats.go, 4_titles.go): gofeed's RSS, Atom and JSON
//     Feed parsers, the one the body looks like first, then the one its
//     Content-Type names, then the rest, because servers mislabel
//     feeds; Atom text titles are escaped back into HTML.
//  5. entries (5_entries.go, 5_enclosures.go): gofeed's feed reduced to
//     what feeddigest keeps: links resolved against the feed (never
//     with its credentials), identities, the language, enclosures, and
//     the newest MaxEntries entries.
//  6. page (6_page.go): only a body that no feed parser reads and that
//     is an HTML page (by Content-Type or by its first element) is
//     searched for the feeds it announces, else for an h-feed. Last,
//     because the Content-Type and a sniff are guesses that a feed
//     parser's success overrules: Atom served as text/html is a feed.
//     The page is read as it came, its <meta charset> counting too.
//
// Beside the stages, sniff.go says what a body looks like (JSON, maybe
// XML, an HTML page, the type its Content-Type names), which the stages
// ask before they act; errors.go names what a body can be wrong with:
// every error Read returns wraps one of them, for errors.Is.
package parse

import (
	"errors"
	"net/url"
	"time"

	"feeddigest/domain"
)

// Feed is a parsed feed, reduced to what feeddigest keeps.
type Feed struct {
	Format    string // "rss", "atom", "json", or "h-feed" for an HTML page's microformats
	Title     string
	SiteURL   string
	TTL       time.Duration // RSS ttl or sy:updatePeriod/updateFrequency, 0 when none
	TTLSource string
	// Language is the feed's language as a BCP 47 tag ("ar", "en-US"):
	// RSS <language> (or dc:language), Atom xml:lang, JSON Feed language;
	// "" when it gives none or one that is not a language tag.
	Language string
	Entries  []domain.Entry
	// Repaired says what Read mended in an ill-formed body before it
	// could be read ("truncated end, bare ampersands"); "" for a body read
	// as it came.
	Repaired string
}

// Parsed is what a body gave: a feed, or the feeds a page announces.
type Parsed struct {
	// Feed is the feed read: RSS, Atom or JSON Feed, or an HTML page's
	// h-feed. nil when FeedLinks are set.
	Feed *Feed
	// FeedLinks are the feeds an HTML page announces (<link
	// rel="alternate">), best first: reading one takes a request, which
	// is the caller's business.
	FeedLinks []string
	// Page says the body was an HTML page: FeedLinks, or Feed as its
	// h-feed.
	Page bool
}

// Read reads a body the server labelled contentType, its relative links
// resolved against base (the URL it came from, after redirects), through
// the stages of the package comment.
func Read(body []byte, contentType string, base *url.URL) (Parsed, error) {
	feed, err := readFeed(body, contentType, base)
	if err == nil {
		return Parsed{Feed: feed}, nil
	}
	if errors.Is(err, ErrNotFeed) && isHTML(body, contentType) {
		return readPage(body, contentType, base) // 6
	}
	return Parsed{}, err
}

// readFeed reads a body as a feed: stages 1 to 5. An HTML page is
// ErrNotFeed here.
func readFeed(body []byte, contentType string, base *url.URL) (*Feed, error) {
	body = feedUTF8(body, contentType) // 1
	// The body is sniffed once: gofeed's sniffer copies the whole body.
	order := parseOrder(body, contentType)
	if err := checkShape(body, readsXML(order)); err != nil { // 2
		return nil, err
	}
	if feed := readRepaired(body, contentType, base); feed != nil { // 3
		return feed, nil
	}
	return parseFeed(body, order, contentType, base) // 4, 5
}
