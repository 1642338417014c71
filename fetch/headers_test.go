package fetch

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "-1", "99999999999999999999", " 30 ", "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "soon", "1.5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		at, ok := RetryAfter(value, testNow)
		if !ok {
			if !at.IsZero() {
				t.Fatalf("%q: not ok but a time %v", value, at)
			}
			return
		}
		if _, err := strconv.ParseInt(trimmed(value), 10, 64); err == nil && at.Before(testNow) {
			t.Fatalf("%q seconds lead to %v, before now", value, at)
		}
	})
}

func trimmed(s string) string {
	h := http.Header{}
	h.Set("X", s)
	return h.Get("X")
}

func FuzzCacheHint(f *testing.F) {
	f.Add("max-age=3600", "120", "", "")
	f.Add("public, max-age=\"60\"", "", "", "")
	f.Add("no-cache", "", "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:48:37 GMT")
	f.Add("", "", testNow.Add(time.Hour).Format(http.TimeFormat), "")
	f.Add("max-age=9223372036854775807", "-9223372036854775808", "", "")
	f.Add("", "", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT")
	f.Fuzz(func(t *testing.T, cacheControl, age, expires, date string) {
		h := http.Header{}
		for k, v := range map[string]string{"Cache-Control": cacheControl, "Age": age, "Expires": expires, "Date": date} {
			if v != "" {
				h[k] = []string{v}
			}
		}
		d, source := CacheHint(h, testNow)
		if d < 0 {
			t.Fatalf("negative hint %v from %v", d, h)
		}
		if (d == 0) != (source == "") {
			t.Fatalf("hint %v with source %q", d, source)
		}
	})
}
