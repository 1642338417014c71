package parse

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"

	"feeddigest/domain"
)

// Bounds on what an entry's enclosures may bring: a podcast episode has
// one, a hostile feed could list thousands, each with a megabyte of URL.
const (
	// MaxEnclosures is how many enclosures of one entry are kept, the first.
	MaxEnclosures = 8
	// MaxEnclosureURL bounds an enclosure's URL in bytes; a longer one is dropped.
	MaxEnclosureURL = 2048
	// maxEnclosureType bounds a MIME type; a longer one is not one.
	maxEnclosureType = 127
	// maxDuration bounds a playing time: longer is a mistake, not a show.
	maxDuration = 1000 * time.Hour
)

// enclosures are the files of an entry (RSS <enclosure>, Atom
// rel="enclosure" links and JSON Feed attachments, which gofeed gathers
// into Enclosures): absolute http(s) URLs only, resolved against the
// entry's link (else base), each once, at most MaxEnclosures. The
// entry's itunes:duration is the playing time of its first audio or video
// file, which is the episode.
func enclosures(it *gofeed.Item, entryLink string, base *url.URL) []domain.Enclosure {
	if u := domain.AbsoluteHTTP(entryLink); u != nil {
		base = u
	}
	var out []domain.Enclosure
	seen := map[string]bool{}
	for _, enc := range it.Enclosures {
		if len(out) == MaxEnclosures {
			break
		}
		if enc == nil || len(enc.URL) > MaxEnclosureURL {
			continue
		}
		link := domain.AbsoluteHTTP(resolve(base, enc.URL))
		if link == nil || seen[link.String()] || len(link.String()) > MaxEnclosureURL {
			continue
		}
		seen[link.String()] = true
		out = append(out, domain.Enclosure{URL: link.String(), Type: mimeType(enc.Type), Length: byteLength(enc.Length)})
	}
	if it.ITunesExt != nil {
		if d, ok := parseDuration(it.ITunesExt.Duration); ok {
			if i := slices.IndexFunc(out, func(e domain.Enclosure) bool { return isMedia(e.Type) }); i >= 0 {
				out[i].Duration = d
			} else if len(out) > 0 {
				out[0].Duration = d
			}
		}
	}
	return out
}

// isMedia says the MIME type is of audio or video: what plays.
func isMedia(mime string) bool {
	return strings.HasPrefix(mime, "audio/") || strings.HasPrefix(mime, "video/")
}

// mimeType is s when it looks like a MIME type ("audio/mpeg", parameters
// dropped), in lower case; else "".
func mimeType(s string) string {
	s, _, _ = strings.Cut(s, ";")
	s = strings.ToLower(strings.TrimSpace(s))
	kind, sub, ok := strings.Cut(s, "/")
	if !ok || kind == "" || sub == "" || len(s) > maxEnclosureType {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("/+-.!#$&^_", r)) {
			return ""
		}
	}
	return s
}

// byteLength is an enclosure's length attribute in bytes; 0 when it is
// missing, not a number, or 0 (feeds write length="0" for "unknown").
func byteLength(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// parseDuration reads an itunes:duration: "HH:MM:SS", "H:MM:SS", "MM:SS"
// or a number of seconds, a fraction of a second allowed and dropped.
// Minutes and seconds after a colon are below 60 (one or two digits). ok is false for
// anything else, and for nothing or a time beyond 1000 hours.
func parseDuration(s string) (d time.Duration, ok bool) {
	s = strings.TrimSpace(s)
	if whole, frac, found := strings.Cut(s, "."); found {
		if !digits(frac) {
			return 0, false
		}
		s = whole
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return 0, false
	}
	var seconds int64
	for i, p := range parts {
		if !digits(p) || len(p) > 9 || (i > 0 && len(p) > 2) {
			return 0, false
		}
		n, _ := strconv.ParseInt(p, 10, 64)
		if i > 0 && n >= 60 {
			return 0, false
		}
		seconds = seconds*60 + n
	}
	d = time.Duration(seconds) * time.Second
	if seconds <= 0 || d > maxDuration {
		return 0, false
	}
	return d, true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
