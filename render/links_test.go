package render

import (
	"fmt"
	"testing"
	"time"

	"feeddigest/domain"
)

func TestLinksMentioned(t *testing.T) {
	d := Digest{Groups: []FeedGroup{
		{
			FeedURL: "https://www.blog.example/feed", SiteURL: "https://blog.example/",
			Entries: []domain.Entry{
				{Link: "/a", Content: `<a href="https://blog.example/about">own site</a>` +
					`<a href="https://news.example/1">n1</a><a href="https://news.example/1">n1 again</a>` +
					`<a href="https://news.example/2">n2</a><a href="mailto:x@mail.example">mail</a>` +
					`<a href="/relative">own, relative</a>`},
				{Link: "https://elsewhere.example/post", Content: `<a href="https://elsewhere.example/x">entry host</a>` +
					`<a href="https://WWW.News.Example/3">n3</a><a href="http://tools.example:8080/">tools</a>`},
			},
		},
		{
			FeedURL: "https://feeds.example/rss",
			Entries: []domain.Entry{{Summary: `<a href="https://feeds.example/other">feed host</a><a href="https://tools.example/">t</a>`}},
		},
	}}
	got := linksMentioned(d)
	want := []HostCount{
		{Host: "news.example", URL: "https://news.example/", Count: 3},
		{Host: "tools.example", URL: "http://tools.example:8080/", Count: 2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("linksMentioned = %v, want %v", got, want)
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
		_, s := newGroupView(g, time.UTC)
		src = append(src, s...)
	}
	return linkGraph(src)
}
