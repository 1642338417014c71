package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.org/feed.xml", "https://example.org/feed.xml"},
		{"https://ada:S3cret@example.org/feed", "https://***@example.org/feed"},
		{"https://token123@example.org/feed", "https://***@example.org/feed"},
		{"https://ada:p%40ss@example.org:8443/feed", "https://***@example.org:8443/feed"},
		{"https://example.org/feed?token=abc", "https://example.org/feed?token=…"},
		{"https://example.org/feed?key=abc&format=rss&empty=", "https://example.org/feed?key=…&format=…&empty=…"},
		{"https://example.org/feed?SECRET", "https://example.org/feed?…"},
		{"https://example.org/feed?a=1&&b", "https://example.org/feed?a=…&&…"},
		{"https://example.org/feed?", "https://example.org/feed?"},
		{"https://example.org/feed?t=abc#part", "https://example.org/feed?t=…#part"},
		{"https://example.org/feed#frag", "https://example.org/feed#frag"},
		{"https://u:p@example.org?t=x", "https://***@example.org?t=…"},
		{"https://u:p@example.org", "https://***@example.org"},
		// An @ in the path is not user info (Mastodon feeds live there).
		{"https://mastodon.example/@ada.rss", "https://mastodon.example/@ada.rss"},
		{"https://mastodon.example/@ada.rss?k=v", "https://mastodon.example/@ada.rss?k=…"},
		{"example.org/feed?token=abc", "example.org/feed?token=…"},
		{"", ""},
		{"not a url", "not a url"},
		{"https://a@b@example.org/", "https://***@example.org/"},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTextRedactsEveryURLInAMessage(t *testing.T) {
	in := `Get "https://ada:pw@example.org/feed?token=SECRET": dial tcp 127.0.0.1:1: connect: connection refused; ` +
		`feed http://x.example/f?key=KEY announced by the page: loop at https://y.example/?sig=SIG`
	got := Text(in)
	for _, secret := range []string{"pw", "SECRET", "KEY", "SIG", "ada"} {
		if strings.Contains(got, secret) {
			t.Errorf("Text left %q in: %s", secret, got)
		}
	}
	for _, kept := range []string{"https://***@example.org/feed?token=…", "connection refused", "http://x.example/f?key=…", "https://y.example/?sig=…"} {
		if !strings.Contains(got, kept) {
			t.Errorf("Text lost %q: %s", kept, got)
		}
	}
}

func TestErrorKeepsTheChain(t *testing.T) {
	inner := &url.Error{Op: "Get", URL: "https://example.org/feed?token=SECRET", Err: fs.ErrNotExist}
	err := Error(fmt.Errorf("poll: %w", inner))
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error shows the token: %v", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("redacted error lost its chain: %v", err)
	}
	plain := errors.New("no URL here")
	if Error(plain) != plain {
		t.Error("an error without a URL should come back as it is")
	}
	if Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
}

// Go's own client hides only the password of a URL in its errors; the
// user name and the query stay. Redacting its message hides all three.
func TestErrorOfARealRequest(t *testing.T) {
	req, err := http.NewRequest("GET", "http://user:PASSWORD@127.0.0.1:1/feed?token=SECRET", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, doErr := http.DefaultClient.Do(req)
	if doErr == nil {
		t.Skip("something listens on port 1")
	}
	if !strings.Contains(doErr.Error(), "SECRET") {
		t.Fatalf("premise: Go's error quotes the query: %v", doErr)
	}
	msg := Error(doErr).Error()
	for _, secret := range []string{"user", "PASSWORD", "SECRET"} {
		if strings.Contains(msg, secret) {
			t.Errorf("%q in %s", secret, msg)
		}
	}
}

func TestBase(t *testing.T) {
	u, _ := url.Parse("https://ada:pw@example.org/feeds/main?token=SECRET")
	b := Base(u)
	if got := b.ResolveReference(&url.URL{Fragment: "p1"}).String(); got != "https://example.org/feeds/main#p1" {
		t.Errorf("fragment link resolved to %s", got)
	}
	if got := b.ResolveReference(&url.URL{Path: "post/1"}).String(); got != "https://example.org/feeds/post/1" {
		t.Errorf("relative link resolved to %s", got)
	}
	if u.User == nil || u.RawQuery == "" {
		t.Error("Base changed its argument")
	}
	if Base(nil) != nil {
		t.Error("Base(nil) != nil")
	}
}

func FuzzURL(f *testing.F) {
	for _, s := range []string{"https://a:b@h/p?q=1#f", "http://h/?x", "h?a=b&c", "://@?", "https://h/@x?y=z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := URL(s)
		if twice := URL(once); twice != once {
			t.Errorf("not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if text := Text(s); Text(text) != text {
			t.Errorf("Text not idempotent: %q -> %q -> %q", s, text, Text(text))
		}
		// Whatever parses as a URL comes out with no user info but "***"
		// and no query value but "…".
		if _, err := url.Parse(s); err != nil {
			return
		}
		u, err := url.Parse(once)
		if err != nil {
			t.Fatalf("%q parses, its redaction %q does not: %v", s, once, err)
		}
		if _, hasPassword := u.User.Password(); u.User != nil && (u.User.Username() != hiddenUser || hasPassword) {
			t.Errorf("user info %q left in %q", u.User, once)
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				if v != hiddenValue && !(v == "" && k == hiddenValue) {
					t.Errorf("query value %q left in %q", v, once)
				}
			}
		}
	})
}
