package render

import "testing"

// A URL in the status table breaks between its parts, never inside its
// host or a word of its path; only a long run with no place to break
// (a token) is given some.
func TestURLTextBreaksBetweenParts(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"https://blog.example.org/feed.xml", "https://<wbr>blog.example.org/<wbr>feed.xml"},
		{"https://a.example/2026/11/a-very-long-slug-of-a-post-that-goes-on/", "https://<wbr>a.example/<wbr>2026/<wbr>11/<wbr>a-very-long-slug-of-a-post-that-goes-on/"},
		{"https://a.example/feed?x=1&y=<2>#top", "https://<wbr>a.example/<wbr>feed<wbr>?x=1<wbr>&amp;y=&lt;2&gt;<wbr>#top"},
		{"https://a.example/t/0123456789abcdefghijklmnopqrstuvwxyz", "https://<wbr>a.example/<wbr>t/<wbr>0123456789abcdef<wbr>ghijklmnopqrstuv<wbr>wxyz"},
		{"feed.xml", "feed.xml"},
		{"", ""},
	} {
		if got := string(appendURLText(nil, tt.url)); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.url, got, tt.want)
		}
	}
}
