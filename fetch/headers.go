package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads a Retry-After value, either delay-seconds or an HTTP
// date (all three formats of RFC 9110), relative to now.
func RetryAfter(value string, now time.Time) (time.Time, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return time.Time{}, false
	}
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs < 0 {
			return time.Time{}, false
		}
		// Absurd values are capped by the policy; keep the arithmetic sane.
		secs = min(secs, 10*365*24*3600)
		return now.Add(time.Duration(secs) * time.Second), true
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return time.Time{}, false
	}
	return at, true
}

// A Last-Modified later than the clock of the answer that carried it is a
// wrong clock, not a validator: sent back as If-Modified-Since, a server
// that compares dates (as Rails and Django do) would answer 304 until the
// feed changes after that date, years away. There is no tolerance for
// clock skew: HTTP forbids an origin a Last-Modified later than its own
// Date, and the two costs are not alike. A date dropped wrongly costs one
// unconditional request; one kept wrongly, a second ahead, hides a change
// made within that second until the feed changes again.

// wrongClock says whether lastModified, received in an answer with
// header h, is later than that answer's Date, or, when it has none, than
// now (the run's clock).
func wrongClock(lastModified string, h http.Header, now time.Time) bool {
	clock := now
	if date, ok := httpDate(h.Get("Date")); ok {
		clock = date
	}
	return laterThan(lastModified, clock)
}

// laterThan says whether lastModified is a date later than clock. A value
// that is no date is not judged: sent back byte for byte, no server can
// read a date into it either.
func laterThan(lastModified string, clock time.Time) bool {
	at, ok := httpDate(lastModified)
	return ok && at.After(clock)
}

// httpDate reads an HTTP date: the three formats of RFC 9110, and the
// looser ones servers write and frameworks read all the same (a one-digit
// day, a numeric zone, RFC 3339).
func httpDate(value string) (time.Time, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return time.Time{}, false
	}
	if at, err := http.ParseTime(value); err == nil {
		return at, true
	}
	for _, layout := range []string{time.RFC1123, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 MST",
		"Mon, 2 Jan 2006 15:04:05 -0700", time.RFC3339} {
		if at, err := time.Parse(layout, value); err == nil {
			return at, true
		}
	}
	return time.Time{}, false
}

// CacheHint reads a response's freshness lifetime: Cache-Control max-age
// minus Age, or else Expires minus Date (or minus now without a Date).
// no-cache / no-store / must-revalidate give no hint; that is not a
// request to poll more often than the floor.
func CacheHint(h http.Header, now time.Time) (time.Duration, string) {
	if maxAge, ok := maxAge(h.Values("Cache-Control")); ok {
		age, _ := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64)
		fresh := time.Duration(maxAge-max(age, 0)) * time.Second
		if fresh > 0 {
			return fresh, "Cache-Control max-age"
		}
		return 0, ""
	}
	expires := h.Get("Expires")
	if expires == "" {
		return 0, ""
	}
	at, err := http.ParseTime(expires)
	if err != nil {
		return 0, "" // "0" or garbage means already expired
	}
	base := now
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		base = date
	}
	if fresh := at.Sub(base); fresh > 0 {
		return fresh, "Expires"
	}
	return 0, ""
}

// maxAge finds max-age (s-maxage is for shared caches, not for us).
func maxAge(values []string) (int64, bool) {
	for _, v := range values {
		for _, directive := range strings.Split(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(directive), "=")
			if !strings.EqualFold(strings.TrimSpace(name), "max-age") {
				continue
			}
			n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(arg), `"`), 10, 64)
			if err != nil || n < 0 {
				return 0, false
			}
			return min(n, 10*365*24*3600), true
		}
	}
	return 0, false
}

func (res *Result) readCacheHint(resp *http.Response, now time.Time) {
	if d, src := CacheHint(resp.Header, now); d > res.Hint {
		res.Hint, res.HintSource = d, src
	}
}

// finishHints adds the feed's own ttl / sy:updatePeriod, the parsed one or
// the one stored from the last body when this answer had none.
func (res *Result) finishHints(req Request) {
	ttl := req.TTL
	if res.Feed != nil {
		ttl = res.Feed.TTL
	}
	if ttl > res.Hint {
		res.Hint, res.HintSource = ttl, "feed ttl"
		if res.Feed != nil && res.Feed.TTLSource != "" {
			res.HintSource = res.Feed.TTLSource
		}
	}
}
