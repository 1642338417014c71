package domain

import "testing"

func TestNormalizeFeedURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.org/feed.xml", "https://example.org/feed.xml"},
		{"  https://example.org/feed.xml\n", "https://example.org/feed.xml"},
		{"HTTP://Example.ORG/Path/Feed.XML?Q=A#Top", "http://example.org/Path/Feed.XML?Q=A"},
		{"http://host/x#top", "http://host/x"},
		{"http://host/x #top", "http://host/x"},
		{"http://host/./x", "http://host/x"},
		{"http://host/a/b/../x", "http://host/a/x"},
		{"http://host/a/../../x", "http://host/x"},
		{"http://host/a/.", "http://host/a/"},
		{"http://host/a/b/..", "http://host/a/"},
		{"http://host/a/./b?p=./..#f", "http://host/a/b?p=./.."},
		{"http://host/a..b/.x/x.", "http://host/a..b/.x/x."},
		{"http://example.org:80/f", "http://example.org/f"},
		{"https://example.org:443/f", "https://example.org/f"},
		{"http://example.org:443/f", "http://example.org:443/f"},
		{"https://example.org:8443/f", "https://example.org:8443/f"},
		{"http://example.org:/f", "http://example.org/f"},
		{"http://example.org", "http://example.org/"},
		{"http://example.org/", "http://example.org/"},
		{"http://example.org:80", "http://example.org/"},
		{"http://example.org:80?x", "http://example.org/?x"},
		{"http://example.org#x", "http://example.org/"},
		{"HTTPS://Example.org:443", "https://example.org/"},
		{"http://[::1]:80/f", "http://[::1]/f"},
		{"http://User:Name@Example.org/f", "http://User:Name@example.org/f"},
		{"feed://example.org/rss", "http://example.org/rss"},
		{"FEED://Example.org:80/rss", "http://example.org/rss"},
		{"feed:https://example.org/rss", "https://example.org/rss"},
		{"feed:HTTP://example.org/rss", "http://example.org/rss"},
		{"https://café.example/Flux", "https://café.example/Flux"},
		{"https://CAFÉ.example/f", "https://café.example/f"},
		{"https://example.org/a%2Fb/%7euser?q=%20x", "https://example.org/a%2Fb/%7euser?q=%20x"},
	}
	for _, tt := range tests {
		got, err := NormalizeFeedURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("NormalizeFeedURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if again, _ := NormalizeFeedURL(got); again != got {
			t.Errorf("NormalizeFeedURL(%q) = %q: not stable", got, again)
		}
	}
	for _, bad := range []string{"", "ftp://example.org/f", "feed:ftp://example.org/f", "feed:example.org/f", "example.org/f", "javascript:alert(1)", "http:///f", "mailto:a@b.org"} {
		if got, err := NormalizeFeedURL(bad); err == nil {
			t.Errorf("NormalizeFeedURL(%q) = %q, want an error", bad, got)
		}
	}
}

func TestAbsoluteHTTP(t *testing.T) {
	tests := []struct{ in, want string }{
		{" https://site.example/b/ ", "https://site.example/b/"},
		{"HTTP://site.example", "http://site.example"},
		{"/relative/path", ""},
		{"javascript:alert(1)", ""},
		{"data:text/html,hi", ""},
		{"ftp://site.example/", ""},
		{"https://", ""},
		{"http://[::1", ""},
	}
	for _, tt := range tests {
		got := ""
		if u := AbsoluteHTTP(tt.in); u != nil {
			got = u.String()
		}
		if got != tt.want {
			t.Errorf("AbsoluteHTTP(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
