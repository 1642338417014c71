package article

import (
	"errors"
	"strings"
	"testing"
)

func page(body string) []byte {
	return []byte("<!doctype html><html><head><title>T</title></head><body>" + body + "</body></html>")
}

var words = strings.Repeat("The harbour wall is whole again after three winters of patching. ", 8)

func TestExtract(t *testing.T) {
	tests := []struct {
		name     string
		page     []byte
		want     []string // in the article
		wantNot  []string
		wantNone bool
	}{
		{"article among a menu and a footer",
			page(`<nav><a href="/">Home</a> <a href="/about">About us</a></nav><article><p>` + words + `</p><p><a href="more.html">More</a></p></article><footer>Copyright notice</footer>`),
			[]string{"harbour wall", `href="https://news.example/posts/more.html"`}, []string{"About us", "Copyright notice"}, false},
		{"too little text", page(`<article><p>Subscribe to read.</p></article>`), nil, nil, true},
		{"empty", nil, nil, nil, true},
		{"not HTML at all", []byte("%PDF-1.4\x00\x01\x02"), nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Extract(tt.page, "https://news.example/posts/one.html")
			if tt.wantNone {
				if !errors.Is(err, ErrNoArticle) {
					t.Errorf("got %q, %v; want ErrNoArticle", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("article lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("article holds %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestExtractRefusesABadPageURL(t *testing.T) {
	if _, err := Extract(page("<p>"+words+"</p>"), "http://[::1"); err == nil {
		t.Error("no error for an unparseable page URL")
	}
}

// Extract eats pages from anywhere: it never panics, and what it returns
// is an article or ErrNoArticle.
func FuzzExtract(f *testing.F) {
	f.Add(page(`<article><p>` + words + `</p></article>`))
	f.Add(page(`<div><p>` + words + `<script>alert(1)</script></p><table><tr><td>` + words + `</td></tr></table></div>`))
	f.Add([]byte("<html><body><p>unclosed <b><i>" + words))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := Extract(body, "https://news.example/p")
		if err != nil && !errors.Is(err, ErrNoArticle) {
			t.Errorf("error %v is not ErrNoArticle", err)
		}
		if err == nil && got == "" {
			t.Error("an empty article without an error")
		}
	})
}
