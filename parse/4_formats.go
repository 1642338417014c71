package parse

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
	ext "github.com/mmcdole/gofeed/extensions"
	jsonfeed "github.com/mmcdole/gofeed/json"
	"github.com/mmcdole/gofeed/rss"
)

// format is one of gofeed's parsers: the feed it reads, and the freshness
// hint the feed gives (ttl, sy:updatePeriod) with its source.
type format struct {
	name  string
	parse func([]byte) (*gofeed.Feed, time.Duration, string, error)
}

var formats = map[gofeed.FeedType]format{
	gofeed.FeedTypeRSS:  {"rss", parseRSS},
	gofeed.FeedTypeAtom: {"atom", parseAtom},
	gofeed.FeedTypeJSON: {"json", parseJSON},
}

// parseFeed reads a body with gofeed's parsers, in order (parseOrder's
// of the body), and reduces the first feed read to a Feed (stage 5):
// stages 4 and 5. The
// format is sniffed from the body; when that parser fails, the one the
// Content-Type names and then the rest are tried, because servers label
// Atom as RSS, JSON Feed as text/plain, and so on.
func parseFeed(body []byte, order []gofeed.FeedType, contentType string, base *url.URL) (*Feed, error) {
	var errs []error
	for _, ft := range order {
		f := formats[ft]
		parsed, ttl, ttlSource, err := f.parse(body)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.name, err))
			continue
		}
		feed := convert(parsed, base)
		feed.Format, feed.TTL, feed.TTLSource = f.name, ttl, ttlSource
		return feed, nil
	}
	if isHTML(body, contentType) {
		return nil, fmt.Errorf("%w: an HTML page, not a feed", ErrNotFeed)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("%w: unrecognised content (%s)", ErrNotFeed, describeType(contentType))
	}
	// The first parser is the one the body looks like; the fallbacks'
	// complaints only bury its error.
	return nil, fmt.Errorf("%w: %w", ErrNotFeed, errs[0])
}

// readsXML says whether gofeed's XML parsers will read the body: only
// then are its nesting and width bounded (checkShape); an HTML page goes
// to the HTML parser, which bounds its own nesting.
func readsXML(order []gofeed.FeedType) bool {
	return slices.Contains(order, gofeed.FeedTypeRSS) || slices.Contains(order, gofeed.FeedTypeAtom)
}

// parseOrder is the order the parsers try a body in: the format it looks
// like, the one its Content-Type names, then the rest; none when it
// looks like no feed and its label names none.
func parseOrder(body []byte, contentType string) []gofeed.FeedType {
	order := []gofeed.FeedType{}
	add := func(ft gofeed.FeedType) {
		if _, ok := formats[ft]; ok && !slices.Contains(order, ft) {
			order = append(order, ft)
		}
	}
	add(gofeed.DetectFeedType(bytes.NewReader(body)))
	add(typeFromContentType(contentType))
	if len(order) == 0 {
		// Nothing recognisable at all: an HTML page or garbage. Trying the
		// XML parsers on it only produces noise.
		return nil
	}
	add(gofeed.FeedTypeAtom)
	add(gofeed.FeedTypeRSS)
	add(gofeed.FeedTypeJSON)
	return order
}

// typeFromContentType reads the type leniently (mediaType): a malformed
// parameter must not hide what the server said the body is.
func typeFromContentType(ct string) gofeed.FeedType {
	mt := mediaType(ct)
	switch {
	case strings.Contains(mt, "atom"):
		return gofeed.FeedTypeAtom
	case strings.Contains(mt, "rss"), strings.Contains(mt, "rdf"):
		return gofeed.FeedTypeRSS
	case strings.Contains(mt, "json"):
		return gofeed.FeedTypeJSON
	}
	return gofeed.FeedTypeUnknown
}

func describeType(ct string) string {
	if ct == "" {
		return "no Content-Type"
	}
	return "Content-Type " + ct
}

func parseRSS(body []byte) (*gofeed.Feed, time.Duration, string, error) {
	raw, err := (&rss.Parser{}).Parse(bytes.NewReader(body))
	if err != nil {
		return nil, 0, "", err
	}
	// Without the image scan, which parses every item's HTML to find an
	// image that feeddigest never shows: a tree per entry, for nothing.
	feed, err := (&gofeed.DefaultRSSTranslator{DisableContentImageScan: true}).Translate(raw)
	if err != nil {
		return nil, 0, "", err
	}
	if minutes, err := strconv.Atoi(strings.TrimSpace(raw.TTL)); err == nil && minutes > 0 {
		ttl, src := time.Duration(minutes)*time.Minute, "RSS ttl"
		if sy, ok := syndicationPeriod(raw.Extensions); ok && sy > ttl {
			return feed, sy, "sy:updatePeriod", nil
		}
		return feed, ttl, src, nil
	}
	sy, ok := syndicationPeriod(raw.Extensions)
	if ok {
		return feed, sy, "sy:updatePeriod", nil
	}
	return feed, 0, "", nil
}

func parseAtom(body []byte) (*gofeed.Feed, time.Duration, string, error) {
	raw, err := (&atom.Parser{}).Parse(bytes.NewReader(body))
	if err != nil {
		return nil, 0, "", err
	}
	escapeTextTitles(body, raw)
	feed, err := (&gofeed.DefaultAtomTranslator{}).Translate(raw)
	if err != nil {
		return nil, 0, "", err
	}
	if sy, ok := syndicationPeriod(raw.Extensions); ok {
		return feed, sy, "sy:updatePeriod", nil
	}
	return feed, 0, "", nil
}

func parseJSON(body []byte) (*gofeed.Feed, time.Duration, string, error) {
	// JSON has no byte-order mark, but a parser may ignore one (RFC 8259),
	// and encoding/json does not.
	raw, err := (&jsonfeed.Parser{}).Parse(bytes.NewReader(bytes.TrimPrefix(body, utf8BOM)))
	if err != nil {
		return nil, 0, "", err
	}
	feed, err := (&gofeed.DefaultJSONTranslator{}).Translate(raw)
	if err != nil {
		return nil, 0, "", err
	}
	keepPlayingTimes(raw, feed)
	return feed, 0, "", nil
}

// keepPlayingTimes gives each item the duration_in_seconds of its first
// attachment that has one, as the itunes:duration an RSS podcast carries:
// gofeed's translator drops it with the rest of the attachment.
func keepPlayingTimes(raw *jsonfeed.Feed, feed *gofeed.Feed) {
	if len(raw.Items) != len(feed.Items) {
		return // not item for item: nothing to match safely
	}
	for i, it := range raw.Items {
		if it == nil || it.Attachments == nil || feed.Items[i] == nil || feed.Items[i].ITunesExt != nil {
			continue
		}
		for _, a := range *it.Attachments {
			if a.DurationInSeconds > 0 {
				feed.Items[i].ITunesExt = &ext.ITunesItemExtension{Duration: strconv.FormatInt(a.DurationInSeconds, 10)}
				break
			}
		}
	}
}

// syndicationPeriod reads the RSS 1.0 Syndication module: updatePeriod
// (hourly, daily, weekly, monthly, yearly) divided by updateFrequency.
func syndicationPeriod(exts ext.Extensions) (time.Duration, bool) {
	for _, elems := range exts {
		periods, ok := elems["updatePeriod"]
		if !ok || len(periods) == 0 {
			continue
		}
		unit, ok := map[string]time.Duration{
			"hourly": time.Hour, "daily": 24 * time.Hour, "weekly": 7 * 24 * time.Hour,
			"monthly": 30 * 24 * time.Hour, "yearly": 365 * 24 * time.Hour,
		}[strings.ToLower(strings.TrimSpace(periods[0].Value))]
		if !ok {
			continue
		}
		freq := 1
		if fs := elems["updateFrequency"]; len(fs) > 0 {
			if n, err := strconv.Atoi(strings.TrimSpace(fs[0].Value)); err == nil && n > 0 {
				freq = n
			}
		}
		return unit / time.Duration(freq), true
	}
	return 0, false
}
