package domain

import (
	"fmt"
	"net/url"
	"strings"
)

// NormalizeFeedURL is the form in which feed URLs are compared and kept:
// a configuration's (one feed written several ways, in one user's list or
// several, is one feed) and import's. Trimmed; a feed: URI as the http(s)
// URL it stands for ("feed:https://x" is "https://x", "feed://x" is
// "http://x"); the scheme and host in lower case; the scheme's default
// port dropped; an empty path written "/" ("http://x" is "http://x/",
// RFC 3986 6.2.3); the dot segments of the path resolved ("/a/./b/../c"
// is "/a/c"); the fragment dropped (it is never sent to the server). The
// rest (the path's other bytes, the query) stays as written. An URL that
// is not absolute http(s) after that is an error.
func NormalizeFeedURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if len(s) >= len("feed:") && strings.EqualFold(s[:len("feed:")], "feed:") {
		rest := s[len("feed:"):]
		switch lower := strings.ToLower(rest); {
		case strings.HasPrefix(rest, "//"):
			s = "http:" + rest
		case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
			s = rest
		default:
			return "", fmt.Errorf("%q is a feed: URI that names no http(s) URL", raw)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("invalid URL %q", s)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q is not an absolute http:// or https:// URL", s)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return "", fmt.Errorf("URL %q has no host", s)
	}
	// Rewrite the scheme, the authority and the path's dot segments as
	// text, so that the rest stays byte for byte (url.URL.String would
	// re-escape it).
	s, _, _ = strings.Cut(s, "#")
	s = strings.TrimSpace(s) // "x #f" is "x", as "x" is
	afterScheme := strings.Index(s, "://") + len("://")
	rest := s[afterScheme:]
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	userinfo, host := "", rest[:end]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		userinfo, host = host[:at+1], host[at+1:]
	}
	host = strings.ToLower(host)
	switch port := u.Port(); {
	case port == "" && strings.HasSuffix(host, ":"):
		host = strings.TrimSuffix(host, ":")
	case u.Scheme == "http" && port == "80", u.Scheme == "https" && port == "443":
		host = strings.TrimSuffix(host, ":"+port)
	}
	path, query := rest[end:], ""
	if q := strings.IndexByte(path, '?'); q >= 0 {
		path, query = path[:q], path[q:]
	}
	if path == "" {
		path = "/"
	}
	return u.Scheme + "://" + userinfo + host + removeDotSegments(path) + query, nil
}

// removeDotSegments resolves the "." and ".." segments of an absolute
// path as RFC 3986 (5.2.4) does; a path without them is returned as it is.
func removeDotSegments(path string) string {
	segments := strings.Split(path, "/")
	dots := false
	for _, seg := range segments {
		if seg == "." || seg == ".." {
			dots = true
			break
		}
	}
	if !dots {
		return path
	}
	// segments[0] is "" (the path starts with "/").
	out := make([]string, 0, len(segments))
	for i, seg := range segments[1:] {
		last := i == len(segments)-2
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// AbsoluteHTTP is s parsed when it is an absolute http(s) URL, the only
// kind that may serve as a base for resolving links (a feed's home link
// that is javascript: or data: would make its entries' links that too);
// else nil.
func AbsoluteHTTP(s string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return nil
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return nil
	}
	return u
}
