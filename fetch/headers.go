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
