package domain

import (
	"reflect"
	"strings"
	"testing"
)

func TestStoryLink(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.org/post", "https://example.org/post"},
		{"HTTPS://Example.ORG:443/post#comments", "https://example.org/post"},
		{"https://example.org", "https://example.org/"},
		{"https://example.org/a/../post", "https://example.org/post"},
		{"https://example.org/post?utm_source=rss&utm_medium=feed", "https://example.org/post"},
		{"https://example.org/post?UTM_Campaign=x", "https://example.org/post"},
		{"https://example.org/post?fbclid=1&gclid=2&mc_cid=3&mc_eid=4&ref=hn", "https://example.org/post"},
		{"https://example.org/post?id=1&utm_source=rss", "https://example.org/post?id=1"},
		{"https://example.org/post?utm_source=rss&id=1&p=3", "https://example.org/post?id=1&p=3"},
		{"https://example.org/post?referrer=x", "https://example.org/post?referrer=x"},
		{"https://example.org/post?utm", "https://example.org/post?utm"},
		{"https://example.org/post?&&ref", "https://example.org/post"},
		{"https://example.org/post?", "https://example.org/post"},
		{"https://example.org/post?b=2&a=1", "https://example.org/post?b=2&a=1"},
	}
	for _, tt := range tests {
		got, ok := StoryLink(tt.in)
		if !ok || got != tt.want {
			t.Errorf("StoryLink(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "/relative/post", "mailto:a@example.org", "javascript:alert(1)", "ftp://example.org/f"} {
		if got, ok := StoryLink(bad); ok {
			t.Errorf("StoryLink(%q) = %q, want none", bad, got)
		}
	}
}

func TestSameStories(t *testing.T) {
	e := func(feed, link string) Entry { return Entry{FeedURL: feed, Link: link} }
	tests := []struct {
		name    string
		entries []Entry
		want    []Story
	}{
		{"none", nil, nil},
		{"one feed", []Entry{e("a", "https://x.org/1"), e("a", "https://x.org/2")}, nil},
		{
			"three feeds, one story under the first",
			[]Entry{e("a", "https://x.org/1"), e("a", "https://x.org/2"), e("b", "https://x.org/1?utm_source=b"), e("c", "HTTPS://X.org/1#top")},
			[]Story{{Shown: 0, Also: []int{2, 3}}},
		},
		{
			"the first feed in the order given wins",
			[]Entry{e("b", "https://x.org/9"), e("a", "https://x.org/1"), e("c", "https://x.org/9")},
			[]Story{{Shown: 0, Also: []int{2}}},
		},
		{
			"a meaningful parameter is another story",
			[]Entry{e("a", "https://x.org/p?id=1"), e("b", "https://x.org/p?id=2"), e("c", "https://x.org/p?p=3")},
			nil,
		},
		{
			"the same link twice in one feed is the feed's own",
			[]Entry{e("a", "https://x.org/1"), e("a", "https://x.org/1?ref=x")},
			nil,
		},
		{
			"a feed's second copy stays, the other feeds' go",
			[]Entry{e("a", "https://x.org/1"), e("a", "https://x.org/1"), e("b", "https://x.org/1")},
			[]Story{{Shown: 0, Also: []int{2}}},
		},
		{"no link is no story", []Entry{e("a", ""), e("b", "")}, nil},
		{
			"two stories, in the order of their first entries",
			[]Entry{e("a", "https://x.org/2"), e("a", "https://x.org/1"), e("b", "https://x.org/1"), e("b", "https://x.org/2")},
			[]Story{{Shown: 0, Also: []int{3}}, {Shown: 1, Also: []int{2}}},
		},
		{"http and https are two links", []Entry{e("a", "http://x.org/1"), e("b", "https://x.org/1")}, nil},
	}
	for _, tt := range tests {
		if got := SameStories(tt.entries); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: SameStories = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// FuzzStoryLink: any link gives a stable form or none, never a panic;
// the form is a normalised URL without tracking parameters.
func FuzzStoryLink(f *testing.F) {
	for _, s := range []string{"https://example.org/post?utm_source=x&id=1#f", "http://h", "feed://h/x?ref=1&&", "https://[::1]:443/?a=%zz", "http://a@b@c/", "https://x/?utm_=&=&a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, link string) {
		got, ok := StoryLink(link)
		if !ok {
			return
		}
		if again, ok := StoryLink(got); !ok || again != got {
			t.Fatalf("StoryLink(%q) = %q, then %q, %v: not stable", link, got, again, ok)
		}
		if strings.Contains(got, "#") {
			t.Fatalf("StoryLink(%q) = %q keeps a fragment", link, got)
		}
		_, query, _ := strings.Cut(got, "?")
		for param := range strings.SplitSeq(query, "&") {
			if param != "" && isTrackingParam(param) {
				t.Fatalf("StoryLink(%q) = %q keeps %q", link, got, param)
			}
		}
	})
}

func TestWithoutTrackingKeepsTheLinkAsGiven(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://example.org/post?utm_source=rss&utm_medium=feed", "https://example.org/post"},
		{"https://Example.org:443/a/../post?id=1&UTM_Campaign=x&fbclid=y#comments", "https://Example.org:443/a/../post?id=1#comments"},
		{"https://example.org/post?gclid=1&mc_cid=2&mc_eid=3&ref=main", "https://example.org/post?ref=main"},
		{"https://example.org/post?utm_source=rss#top", "https://example.org/post#top"},
		{"https://example.org/post?", "https://example.org/post"},
		{"https://example.org/post", "https://example.org/post"},
		{"https://example.org/post?q=utm_source", "https://example.org/post?q=utm_source"},
	} {
		if got := WithoutTracking(tt.in); got != tt.want {
			t.Errorf("WithoutTracking(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
