package parse

import "testing"

// Relative entry links resolve against the feed's home link only when it
// is an http(s) URL; a javascript: or data: home link is never a base.
func TestHomeLinkAsBaseOnlyWhenHTTP(t *testing.T) {
	tests := []struct{ home, want string }{
		{"javascript:alert(1)//", "https://feeds.example/blog/posts/1"},
		{"JavaScript:alert(document.cookie)", "https://feeds.example/blog/posts/1"},
		{"data:text/html,<script>alert(1)</script>", "https://feeds.example/blog/posts/1"},
		{"vbscript:msgbox", "https://feeds.example/blog/posts/1"},
		{"//cdn.example/", "https://cdn.example/posts/1"}, // made absolute against the feed first
		{"https://site.example/home/", "https://site.example/home/posts/1"},
		{"", "https://feeds.example/blog/posts/1"},
	}
	for _, tt := range tests {
		for _, format := range []string{"rss", "atom"} {
			var body string
			if format == "rss" {
				body = `<rss version="2.0"><channel><title>t</title><link>` + escapeXML(tt.home) +
					`</link><item><title>x</title><link>posts/1</link></item></channel></rss>`
			} else {
				body = `<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link rel="alternate" href="` + escapeXML(tt.home) +
					`"/><entry><id>1</id><title>x</title><link rel="alternate" href="posts/1"/></entry></feed>`
			}
			f, err := readFeedAt([]byte(body), "", "https://feeds.example/blog/feed")
			if err != nil {
				t.Fatalf("%s %q: %v", format, tt.home, err)
			}
			if got := f.Entries[0].Link; got != tt.want {
				t.Errorf("%s with home %q: entry link %q, want %q", format, tt.home, got, tt.want)
			}
		}
	}
}

func escapeXML(s string) string {
	out := ""
	for _, r := range s {
		switch r {
		case '<':
			out += "&lt;"
		case '&':
			out += "&amp;"
		case '"':
			out += "&quot;"
		default:
			out += string(r)
		}
	}
	return out
}
