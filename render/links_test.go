package render

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"feeddigest/domain"
)

// Links mentioned lists the outside sites, most linked first, each with
// its most linked address and the entries that link to it; an entry's own
// site and its feed's are not outside, and a link repeated in one entry
// counts once.
func TestLinksMentioned(t *testing.T) {
	d := Digest{Groups: []FeedGroup{
		{
			FeedURL: "https://www.blog.example/feed", SiteURL: "https://blog.example/",
			Entries: []domain.Entry{
				{Title: "First", Link: "/a", Content: `<a href="https://blog.example/about">own site</a>` +
					`<a href="https://news.example/1">n1</a><a href="https://news.example/1">n1 again</a>` +
					`<a href="https://news.example/2">n2</a><a href="mailto:x@mail.example">mail</a>` +
					`<a href="/relative">own, relative</a>`},
				{Title: "Second", Link: "https://elsewhere.example/post", Content: `<a href="https://elsewhere.example/x">entry host</a>` +
					`<a href="https://WWW.News.Example/3">n3</a><a href="http://tools.example:8080/">tools</a>` +
					`<a href="https://news.example/2">n2 again</a>`},
			},
		},
		{
			FeedURL: "https://feeds.example/rss",
			Entries: []domain.Entry{{Title: "Third", Summary: `<a href="https://feeds.example/other">feed host</a><a href="https://tools.example/">t</a>`}},
		},
	}}
	got := linksMentioned(d)
	want := []HostCount{
		{Host: "news.example", Count: 4, URL: "https://news.example/2", Label: "news.example/2", First: "First", Others: 1},
		{Host: "tools.example", Count: 2, URL: "http://tools.example:8080/", Label: "tools.example:8080", First: "Second", Others: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("linksMentioned =\n%v, want\n%v", got, want)
	}
}

// A line names the site's first entry and counts the others; a long
// address is shortened as its text, never as its link.
func TestLinksMentionedBounded(t *testing.T) {
	long := "https://one.example/" + strings.Repeat("a", 100)
	var entries []domain.Entry
	for i := range 5 {
		entries = append(entries, domain.Entry{Title: fmt.Sprintf("Post %d", i),
			Content: fmt.Sprintf(`<a href="https://one.example/%d">x</a><a href="%s">y</a>`, i, long)})
	}
	got := linksMentioned(Digest{Groups: []FeedGroup{{FeedURL: "https://f.example/", Entries: entries}}})
	if len(got) != 1 {
		t.Fatalf("%d sites, want 1: %v", len(got), got)
	}
	site := got[0]
	if site.Count != 10 || site.URL != long || site.First != "Post 0" || site.Others != 4 {
		t.Errorf("%d links, most linked %s, in %q and %d more", site.Count, site.URL, site.First, site.Others)
	}
	if utf8.RuneCountInString(site.Label) != maxLinkLabel || !strings.HasSuffix(site.Label, "…") {
		t.Errorf("a long address shown as %q", site.Label)
	}
	for raw, want := range map[string]string{
		"https://ar.wikipedia.org/wiki/%D9%86%D8%B9%D9%86%D8%A7%D8%B9": "ar.wikipedia.org/wiki/نعناع",
		"https://x.example/a%20b?q=%C3%A9":                             "x.example/a b?q=é",
		"https://x.example/%E2%80%AEgpj.exe":                           "x.example/%E2%80%AEgpj.exe", // an override stays escaped
		"https://x.example/%FF":                                        "x.example/%FF",              // not UTF-8
		"https://x.example/%0A":                                        "x.example/%0A",
		"https://x.example/\u202egpj.exe":                              "x.example/gpj.exe",
	} {
		if got := linkLabel(raw); got != want {
			t.Errorf("linkLabel(%s) = %q, want %q", raw, got, want)
		}
	}
	one := linksMentioned(Digest{Groups: []FeedGroup{{FeedURL: "https://f.example/", Entries: []domain.Entry{{Title: "T",
		Content: `<a href="https://one.example/a/">a</a>`}}}}})
	if site.AndOthers() != " and 4 more" {
		t.Errorf("and others: %q", site.AndOthers())
	}
	if one[0].First != "T" || one[0].AndOthers() != "" || one[0].Label != "one.example/a" {
		t.Errorf("one link: %+v", one[0])
	}
}

func TestLinksMentionedTopTen(t *testing.T) {
	var content string
	for i := 0; i < 15; i++ {
		for j := 0; j <= i; j++ {
			content += fmt.Sprintf(`<a href="https://h%02d.example/%d">x</a>`, i, j)
		}
	}
	got := linksMentioned(Digest{Groups: []FeedGroup{{FeedURL: "https://f.example/", Entries: []domain.Entry{{Content: content}}}}})
	if len(got) != maxLinkHosts {
		t.Fatalf("%d hosts, want %d", len(got), maxLinkHosts)
	}
	if got[0].Host != "h14.example" || got[0].Count != 15 || got[9].Host != "h05.example" {
		t.Errorf("wrong order: %v", got)
	}
}

// linksMentioned is the link graph of a digest: the outside hosts its
// entries link to most, most linked first. A host is outside when it is
// neither the entry's own host nor its feed's (URL or home page): those
// links are the author's own navigation, not mentions.
func linksMentioned(d Digest) []HostCount {
	var src []linkSource
	for _, g := range d.Groups {
		_, s := newGroupView(nil, g, time.UTC)
		src = append(src, s...)
	}
	return linkGraph(src)
}

// Whatever the entries link to and however they are titled, the list
// stays bounded and shows only what they link: each line an outside http(s)
// address from the entries, its text a short prefix of it.
func FuzzLinksMentioned(f *testing.F) {
	f.Add("https://news.example/1", "https://WWW.news.example/%E2%80%AE", "Title", "عنوان")
	f.Add("http://[::1]:80/x", "javascript:alert(1)", "", "\u202e")
	f.Add("https://a.example/"+strings.Repeat("é", 200), "//b.example/x", "x", "y")
	f.Fuzz(func(t *testing.T, u1, u2, t1, t2 string) {
		links := []string{u1, u2, u1}
		got := linkGraph([]linkSource{{title: t1, links: links, own: []string{"https://own.example/"}}, {title: t2, links: links[1:]}})
		if len(got) > maxLinkHosts {
			t.Fatalf("%d sites", len(got))
		}
		for _, h := range got {
			if (h.URL != u1 && h.URL != u2) || hostOf(h.URL) != h.Host || h.Count < 1 || h.Others < 0 || h.Others > 1 {
				t.Errorf("line %+v from %q, %q", h, u1, u2)
			}
			if strings.ContainsFunc(h.Label, hidden) || !utf8.ValidString(h.Label) {
				t.Errorf("label %q shows hidden characters", h.Label)
			}
			if n := utf8.RuneCountInString(h.Label); n > maxLinkLabel {
				t.Errorf("label of %d characters: %q", n, h.Label)
			}
			if h.First != t1 && h.First != t2 {
				t.Errorf("named %q, not an entry's title", h.First)
			}
		}
	})
}
