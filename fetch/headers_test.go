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

func TestRetryAfterFormats(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)
	want := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
	for _, value := range []string{
		"6900",                           // seconds
		"Sun, 22 Nov 2026 02:00:00 GMT",  // IMF-fixdate
		"Sunday, 22-Nov-26 02:00:00 GMT", // RFC 850
		"Sun Nov 22 02:00:00 2026",       // asctime
	} {
		got, ok := RetryAfter(value, now)
		if !ok || !got.Equal(want) {
			t.Errorf("RetryAfter(%q) = %v %v, want %v", value, got, ok, want)
		}
	}
	for _, bad := range []string{"", "soon", "-5", "1.5"} {
		if _, ok := RetryAfter(bad, now); ok {
			t.Errorf("RetryAfter(%q) accepted", bad)
		}
	}
}

func TestCacheHint(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC)
	date := now.Format(http.TimeFormat)
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
	}{
		{"max-age", map[string]string{"Cache-Control": "public, max-age=3600"}, time.Hour},
		{"max-age minus Age", map[string]string{"Cache-Control": "max-age=3600", "Age": "600"}, 50 * time.Minute},
		{"stale by Age", map[string]string{"Cache-Control": "max-age=60", "Age": "600"}, 0},
		{"max-age wins over Expires", map[string]string{"Cache-Control": "max-age=60", "Expires": now.Add(time.Hour).Format(http.TimeFormat)}, time.Minute},
		{"Expires minus Date", map[string]string{"Date": date, "Expires": now.Add(2 * time.Hour).Format(http.TimeFormat)}, 2 * time.Hour},
		{"Expires in the past", map[string]string{"Date": date, "Expires": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"Expires 0", map[string]string{"Expires": "0"}, 0},
		{"no-cache is no hint", map[string]string{"Cache-Control": "no-cache"}, 0},
		{"s-maxage is for shared caches", map[string]string{"Cache-Control": "s-maxage=600"}, 0},
		{"nothing", map[string]string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			if got, _ := CacheHint(h, now); got != tt.want {
				t.Errorf("CacheHint = %v, want %v", got, tt.want)
			}
		})
	}
}
