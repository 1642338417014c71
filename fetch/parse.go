package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
	"golang.org/x/text/language"

	"feeddigest/domain"
	"feeddigest/internal/redact"
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
	// Repaired says what Parse mended in an ill-formed body before it
	// could be read ("truncated end, bare ampersands"); "" for a body read
	// as it came.
	Repaired string
}

// ErrNotFeed means a body is none of RSS, Atom or JSON Feed.
var ErrNotFeed = errors.New("not a feed")

type format struct {
	name  string
	parse func([]byte) (*gofeed.Feed, time.Duration, string, error)
}

var formats = map[gofeed.FeedType]format{
	gofeed.FeedTypeRSS:  {"rss", parseRSS},
	gofeed.FeedTypeAtom: {"atom", parseAtom},
	gofeed.FeedTypeJSON: {"json", parseJSON},
}

// Parse reads a feed body. The format is sniffed from the body; when that
// parser fails, the one the Content-Type names and then the rest are
// tried, because servers label Atom as RSS, JSON Feed as text/plain, and
// so on. A body that is not UTF-8 is converted first (see feedUTF8). base
// resolves relative links. An HTML page is ErrNotFeed here: finding the
// feed it links to takes a request, which is Poll's business.
//
// An ill-formed XML body (see repairXML) is repaired and read in its
// repaired form, as browsers and feedparser read the XML that real feeds
// carry: gofeed either stops at it or, worse, reads on and silently drops
// entries. Feed.Repaired then says what was mended. When the repaired body
// gives no entry, the body is read as it came, and its error stands.
func Parse(body []byte, contentType, base string) (*Feed, error) {
	body = feedUTF8(body, contentType)
	if err := checkShape(body, readsXML(parseOrder(body, contentType))); err != nil {
		return nil, err
	}
	if mayBeXML(body) {
		if found := checkXML(body); found != 0 {
			// The repair closes what was left open and adds no element,
			// but what gofeed reads is bounded whatever it did.
			fixed, _ := repairXML(body)
			if checkShape(fixed, true) == nil {
				if feed, err := parseFeed(fixed, contentType, base); err == nil && len(feed.Entries) > 0 {
					feed.Repaired = found.String()
					return feed, nil
				}
			}
		}
	}
	return parseFeed(body, contentType, base)
}

// mayBeXML rules out what the XML repair has no business with: JSON and
// HTML pages (which Poll searches for their feeds).
func mayBeXML(body []byte) bool {
	rest := bytes.TrimLeft(bytes.TrimPrefix(body, utf8BOM), " \t\r\n")
	return len(rest) > 0 && rest[0] != '{' && rest[0] != '[' && !sniffHTML(body)
}

func parseFeed(body []byte, contentType, base string) (*Feed, error) {
	order := parseOrder(body, contentType)
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

// languageTag is s as a canonical BCP 47 tag, or "" when s is none: the
// pages put it in a lang attribute as it is.
func languageTag(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 35 {
		return ""
	}
	tag, err := language.Parse(s)
	if err != nil || tag == language.Und {
		return ""
	}
	return tag.String()
}

func convert(f *gofeed.Feed, base string) *Feed {
	// Links resolved against the feed's URL are shown to readers: never
	// with the feed URL's credentials.
	baseURL, _ := url.Parse(base)
	baseURL = redact.Base(baseURL)
	out := &Feed{Title: strings.TrimSpace(f.Title), SiteURL: resolve(baseURL, f.Link), Language: languageTag(f.Language)}
	siteBase := baseURL
	if u := httpBase(out.SiteURL); u != nil {
		siteBase = u
	}
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		e := domain.Entry{
			Title:   strings.TrimSpace(it.Title),
			Link:    resolve(siteBase, entryLink(it)),
			Content: it.Content,
			Summary: it.Description,
		}
		if e.Content == "" {
			e.Content, e.Summary = it.Description, ""
		}
		e.Enclosures = enclosures(it, e.Link, siteBase)
		if len(it.Authors) > 0 && it.Authors[0] != nil {
			e.Author = strings.TrimSpace(it.Authors[0].Name)
		}
		switch {
		case it.PublishedParsed != nil:
			e.Published = it.PublishedParsed.UTC()
		case it.UpdatedParsed != nil:
			e.Published = it.UpdatedParsed.UTC()
		}
		e.Key = EntryKey(strings.TrimSpace(it.GUID), e.Link, e.Title, e.Content)
		out.Entries = append(out.Entries, e)
	}
	out.Entries = keepNewest(out.Entries, MaxEntries)
	return out
}

func entryLink(it *gofeed.Item) string {
	if it.Link != "" {
		return strings.TrimSpace(it.Link)
	}
	for _, l := range it.Links {
		if l != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// EntryKey is an entry's identity: its id/guid, else its link, else a
// hash of its title and content.
func EntryKey(guid, link, title, content string) string {
	switch {
	case guid != "":
		return "id:" + guid
	case link != "":
		return "link:" + link
	}
	sum := sha256.Sum256([]byte(title + "\x00" + content))
	return "hash:" + hex.EncodeToString(sum[:16])
}

// httpBase is s parsed when it is an absolute http(s) URL, the only kind
// a feed's home link may be to serve as the base of its entries' links (a
// javascript: or data: one would make them that too); else nil.
func httpBase(s string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return nil
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return nil
	}
	return u
}

func resolve(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || base == nil {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(u).String()
}
