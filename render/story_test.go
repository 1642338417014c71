package render

import (
	"regexp"
	"strings"
	"testing"

	"feeddigest/domain"
)

// storyDigest is a day on which one story came from three feeds (Daily
// News, Town Council and Aggregator, each with its own tracking
// parameters or fragment on the link), in the user's order with a folder
// (Town) gathered at its first feed's place, so that the Council's entry,
// third in the config, is the first shown; and two reading lists whose
// links differ by a meaningful parameter (?id=1, ?id=2).
func storyDigest(t testing.TB) Digest {
	d := loadDigest(t, "digest-story")
	d.Groups = MergeStories(d.Groups)
	return d
}

func TestGoldenStoryPage(t *testing.T) {
	got, err := DigestPage(storyDigest(t))
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "story", got)
}

// The story is shown once, under the first of its feeds as the digest
// shows them, naming the others; the contents, the heading's total and
// the Subject count it once, on the page and in both parts of the email.
func TestStoryShownOnceAndCountedOnce(t *testing.T) {
	d := storyDigest(t)
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	email := buildEmail(t, d, "")
	for part, text := range map[string]string{"page": string(page), "html email": email.HTML, "text email": email.Text} {
		for _, title := range []string{"The bridge opens", "Bridge open<", "Bridge open\n"} {
			if strings.Contains(text, title) {
				t.Errorf("%s shows %q, an entry of the story shown under another feed", part, strings.TrimSpace(title))
			}
		}
		shown := "Bridge opening ceremony</a>" // its heading, not the preheader
		if part == "text email" {
			shown = "Bridge opening ceremony"
		}
		if n := strings.Count(text, shown); n != 1 {
			t.Errorf("%s shows the story %d times, want once", part, n)
		}
		if !regexp.MustCompile(`(?i)also in: (<span dir="auto">)?Daily News, Aggregator`).MatchString(text) {
			t.Errorf("%s does not say the story is also in Daily News, Aggregator:\n%s", part, text)
		}
		for _, list := range []string{"Reading list<", "Reading list, part two"} {
			if part != "text email" && !strings.Contains(text, list) {
				t.Errorf("%s lost %q: links that differ by ?id= are two stories", part, list)
			}
		}
	}
	if !strings.Contains(string(page), "4 new entries from 4 feeds") {
		t.Errorf("the page's heading does not count the story once (4 new entries from 4 feeds)")
	}
	if !strings.Contains(email.Subject, "4 new from 4 feeds") {
		t.Errorf("Subject %q does not count the story once", email.Subject)
	}
	contents := regexp.MustCompile(`<a href="#feed-\d" dir="auto">([^<]*)</a> <span class="m">(\d+) (entry|entries)</span>`).FindAllStringSubmatch(string(page), -1)
	var got []string
	for _, m := range contents {
		got = append(got, m[1]+" "+m[2])
	}
	if want := "Local Blog 1,Town Council 1,Daily News 1,Aggregator 1"; strings.Join(got, ",") != want {
		t.Errorf("contents %q, want %q", strings.Join(got, ","), want)
	}
}

// A feed whose only entry is a story shown under another feed's has no
// section; one listed from Listed (a large digest) leaves out the
// entries shown elsewhere as it is read.
func TestMergeStoriesDropsWhatIsShownElsewhere(t *testing.T) {
	e := func(id int64, link string) domain.Entry { return domain.Entry{ID: id, Link: link, Title: link} }
	groups := MergeStories([]FeedGroup{
		{FeedURL: "https://a.example/f", FeedName: "A", Entries: []domain.Entry{e(1, "https://x.example/1"), e(2, "https://x.example/2")}},
		{FeedURL: "https://b.example/f", FeedName: "B", Entries: []domain.Entry{e(3, "https://x.example/1?utm_source=b")}},
		{FeedURL: "https://c.example/f", FeedName: "C", Entries: []domain.Entry{e(4, "https://x.example/2"), e(5, "https://x.example/3")}, More: 2},
	})
	if len(groups) != 2 || groups[0].FeedName != "A" || groups[1].FeedName != "C" {
		t.Fatalf("groups %+v, want A and C (B's one entry is A's story)", groups)
	}
	if got := groups[0].AlsoIn; strings.Join(got[1], ",") != "B" || strings.Join(got[2], ",") != "C" {
		t.Errorf("A's entries are also in %v, want 1: B, 2: C", got)
	}
	if len(groups[1].Entries) != 1 || groups[1].Entries[0].ID != 5 {
		t.Errorf("C lists %+v, want entry 5 alone", groups[1].Entries)
	}
	c := groups[1]
	c.Listed = func(yield func(domain.Entry, error) bool) {
		for _, e := range []domain.Entry{e(4, "https://x.example/2"), e(5, "https://x.example/3")} {
			if !yield(e, nil) {
				return
			}
		}
	}
	var listed []int64
	for e, err := range c.Shown() {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, e.ID)
	}
	if len(listed) != 1 || listed[0] != 5 {
		t.Errorf("C's listing shows %v, want [5]", listed)
	}
}

// Two groups of one feed the user lists twice (they land on one URL: a
// digest built before such feeds were read once holds both) show each
// entry once, under the first, never "also in" itself; a third feed
// with the story is named.
func TestMergeStoriesNeverNamesTheSameFeedListedTwice(t *testing.T) {
	e := func(id int64, link string) domain.Entry { return domain.Entry{ID: id, Link: link, Title: link} }
	const coast = "https://coast.example/feed"
	groups := MergeStories([]FeedGroup{
		{FeedURL: coast, FeedName: "Coastal Voices", Lands: coast, Entries: []domain.Entry{e(1, "https://coast.example/1"), e(2, "https://coast.example/2")}},
		{FeedURL: "https://news.example/f", FeedName: "News", Lands: "https://news.example/f", Entries: []domain.Entry{e(5, "https://coast.example/2")}},
		{FeedURL: "https://old.example/rss", FeedName: "Coast Radio", Lands: coast, Entries: []domain.Entry{e(3, "https://coast.example/1"), e(4, "https://coast.example/2")}},
	})
	if len(groups) != 1 || groups[0].FeedName != "Coastal Voices" {
		t.Fatalf("groups %+v, want Coastal Voices alone", groups)
	}
	if got := groups[0].AlsoIn; len(got[1]) != 0 || strings.Join(got[2], ",") != "News" {
		t.Errorf("Coastal Voices' entries are also in %v, want 2: News alone", got)
	}
}
