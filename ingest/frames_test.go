package ingest

import (
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/internal/htmltest"
)

// An embedded frame that sanitising removes leaves a link to what it
// showed in its place: a YouTube or Vimeo player its video's page.
func TestFrameLeavesALink(t *testing.T) {
	post, err := os.ReadFile(filepath.Join("testdata", "frames", "youtube-post.html"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, raw string
		want      string // the text of the frame's paragraph, "" for none
		href      string
	}{
		{"youtube post", string(post), "Video: youtube.com/watch?v=dQw4w9WgXcQ", "https://www.youtube.com/watch?v=dQw4w9WgXcQ"},
		{"scheme-relative youtube", `<iframe src="//www.youtube.com/embed/abc_DEF-12"></iframe>`, "Video: youtube.com/watch?v=abc_DEF-12", "https://www.youtube.com/watch?v=abc_DEF-12"},
		{"vimeo", `<iframe src="https://player.vimeo.com/video/76979871?h=8272103f6e"></iframe>`, "Video: vimeo.com/76979871", "https://vimeo.com/76979871"},
		{"another page", `<iframe src="https://maps.example/embed?q=harbour"></iframe>`, "Embedded page: maps.example/embed?q=harbour", "https://maps.example/embed?q=harbour"},
		{"relative frame", `<iframe src="/widgets/poll"></iframe>`, "Embedded page: blog.example.org/widgets/poll", "https://blog.example.org/widgets/poll"},
		{"video file", `<video controls><source src="media/talk.mp4" type="video/mp4">Your browser cannot play it.</video>`, "Video: blog.example.org/posts/media/talk.mp4", "https://blog.example.org/posts/media/talk.mp4"},
		{"embed", `<embed src="https://flash.example/old.swf">`, "Embedded page: flash.example/old.swf", "https://flash.example/old.swf"},
		{"object", `<object data="https://docs.example/slides.pdf"></object>`, "Embedded page: docs.example/slides.pdf", "https://docs.example/slides.pdf"},
		{"javascript frame", `<iframe src="javascript:alert(1)"></iframe>`, "", ""},
		{"data frame", `<iframe src="data:text/html,<script>alert(1)</script>"></iframe>`, "", ""},
		{"frame without address", `<iframe srcdoc="<p>hi</p>"></iframe>`, "", ""},
		{"youtube id with a path", `<iframe src="https://www.youtube.com/embed/../../evil"></iframe>`, "Embedded page: youtube.com/embed/../../evil", "https://www.youtube.com/embed/../../evil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := SanitizeHTML(c.raw, "https://blog.example.org/posts/concert")
			doc := htmltest.Parse(t, out)
			if doc.Find("iframe, embed, object, video").Length() != 0 {
				t.Fatalf("a frame is left: %s", out)
			}
			var found *goquery.Selection
			doc.Find("p, span").Each(func(_ int, s *goquery.Selection) {
				if strings.HasPrefix(s.Text(), "Video: ") || strings.HasPrefix(s.Text(), "Embedded page: ") {
					found = s
				}
			})
			if c.want == "" {
				if found != nil {
					t.Errorf("a link %q to a frame with no http(s) address", found.Text())
				}
				return
			}
			if found == nil {
				t.Fatalf("no link where the frame was: %s", out)
			}
			a := found.Find("a")
			if found.Text() != c.want || a.AttrOr("href", "") != c.href || a.AttrOr("rel", "") != relSafe {
				t.Errorf("got %q -> %q (rel %q), want %q -> %q", found.Text(), a.AttrOr("href", ""), a.AttrOr("rel", ""), c.want, c.href)
			}
		})
	}
}

// A frame inside a paragraph leaves its link inline, and the text
// around it stays.
func TestFrameInParagraph(t *testing.T) {
	out := SanitizeHTML(`<p>Watch this <iframe src="https://www.youtube.com/embed/x1"></iframe> now.</p>`, "")
	if want := `<p>Watch this <span> Video: <a href="https://www.youtube.com/watch?v=x1" rel="noopener noreferrer">youtube.com/watch?v=x1</a></span> now.</p>`; out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// Whatever a frame's address, its link is an http(s) URL with a host, and
// the output holds no frame, nothing that runs and no control.
func FuzzFrameLink(f *testing.F) {
	for _, seed := range []string{
		"https://www.youtube.com/embed/dQw4w9WgXcQ", "//player.vimeo.com/video/1", "javascript:alert(1)",
		"jav&#x61;script:x", " https://a.example/\x00", "https://u:p@evil.example/", "http://[::1", "/rel", "data:,x",
		"https://www.youtube.com/embed/\"><script>x</script>", "vbscript:x", "https://a.example/" + strings.Repeat("x", 300),
	} {
		f.Add(seed, "iframe")
		f.Add(seed, "video")
	}
	f.Fuzz(func(t *testing.T, src, tag string) {
		attr := "src"
		switch tag {
		case "object":
			attr = "data"
		case "iframe", "video", "embed":
		default:
			tag = "iframe"
		}
		raw := "<p>a</p><" + tag + " " + attr + `="` + html.EscapeString(src) + `"></` + tag + "><p>b</p>"
		out := SanitizeHTML(raw, "https://blog.example.org/post")
		htmltest.CheckNoDirt(t, "SanitizeHTML", []byte(out))
		doc := htmltest.Parse(t, out)
		if doc.Find("iframe, embed, object, video, script").Length() != 0 {
			t.Fatalf("a frame or script is left: %s", out)
		}
		doc.Find("a").Each(func(_ int, a *goquery.Selection) {
			u, err := url.Parse(a.AttrOr("href", ""))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
				t.Errorf("link %q from %q", a.AttrOr("href", ""), src)
			}
		})
	})
}

// The prefilters' containsFold answers as strings.Contains of the
// lowered text does, for the lower-case ASCII words they look for.
func TestContainsFoldIsContainsOfLowered(t *testing.T) {
	for _, c := range []struct{ s, substr string }{
		{"a <IFRAME src>", "<iframe"}, {"a <ifram", "<iframe"}, {"<", "<img"}, {"", "<img"},
		{"<p><Img src=x>", "<img"}, {"x WIDTH=3", "width"}, {"widt", "width"}, {"hEiGhT", "height"},
		{"<<<vIdEo", "<video"}, {"Ünïcode <émbed <EMBED", "<embed"}, {"<objec", "<object"},
	} {
		want := strings.Contains(strings.ToLower(c.s), c.substr)
		if got := containsFold(c.s, c.substr); got != want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", c.s, c.substr, got, want)
		}
	}
}
