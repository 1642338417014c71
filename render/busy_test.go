package render

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// busyDigest is a busy day (testdata/digest-busy.json): a news feed with
// full_entries = 3 lists 12 of its 50 new entries (an untitled, undated
// note and a Hebrew title among them) and says 38 more are at its site;
// a quiet blog has one entry; a podcast new to the reader shows its 5
// newest episodes and left 45 older ones out.
func busyDigest(t testing.TB) Digest { return loadDigest(t, "digest-busy") }

func TestGoldenBusyDay(t *testing.T) {
	d := busyDigest(t)
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	goldenCheck(t, "busy", page)
	// The plain text as it reads; mail's TestGoldenBusyDayEmail holds the
	// whole message (busy.eml.golden).
	goldenCheck(t, "busy-email.txt", []byte(buildEmail(t, d, "https://example.org/digest/").Text))
}

// A feed shows its first Full entries in full and the rest of those
// listed as a compact list of linked titles with their times, on the
// page and in both email parts; Full 0 shows all in full.
func TestBusyFeedShowsFullEntriesThenTitles(t *testing.T) {
	for _, tt := range []struct {
		name        string
		full        int
		articles    int // of the news feed's section: entries in full
		titles      int // and in its compact list
		excerptsOut []string
	}{
		{"full_entries 3", 3, 3, 9, []string{"The 9th story", "The 4th story"}},
		{"full_entries 1", 1, 1, 11, []string{"The 11th story"}},
		{"more than listed", 20, 12, 0, nil},
		{"unset: all in full", 0, 12, 0, nil},
	} {
		d := busyDigest(t)
		d.Groups[0].Full = tt.full
		doc, _ := digestDoc(t, d)
		news := doc.Find("section#feed-1")
		if n := news.Find("article").Length(); n != tt.articles {
			t.Errorf("%s: page shows %d entries in full, want %d", tt.name, n, tt.articles)
		}
		items := news.Find("ul > li")
		if items.Length() != tt.titles {
			t.Errorf("%s: compact list has %d titles, want %d", tt.name, items.Length(), tt.titles)
		}
		items.Each(func(_ int, li *goquery.Selection) {
			if li.Find("a[href]").Length() != 1 || li.Find("time[datetime]").Length() != 1 {
				t.Errorf("%s: compact entry %q is not a linked title with its time", tt.name, li.Text())
			}
		})
		text, html := emailParts(t, d)
		for part, got := range map[string]string{"page": news.Text(), "text": text, "html": html} {
			for _, excerpt := range tt.excerptsOut {
				if strings.Contains(got, excerpt) {
					t.Errorf("%s: %s shows the excerpt %q of a compact entry", tt.name, part, excerpt)
				}
			}
			if !strings.Contains(got, "Story 2: chips") {
				t.Errorf("%s: %s lacks the title of a listed entry", tt.name, part)
			}
		}
		// Every listed entry is in the email once: its title, and its link.
		for _, link := range []string{"story-12", "story-2", "/note"} {
			if strings.Count(text, link+"\n") != 1 {
				t.Errorf("%s: plain text links %s %d times, want once", tt.name, link, strings.Count(text, link+"\n"))
			}
		}
	}
}

// An entry of the compact list shows what its entry shows: the display
// title of an untitled entry, "first seen" for an undated one, and a
// right-to-left title isolated in its direction.
func TestCompactEntries(t *testing.T) {
	doc, _ := digestDoc(t, busyDigest(t))
	items := doc.Find("section#feed-1 ul > li")
	note := items.FilterFunction(func(_ int, li *goquery.Selection) bool {
		return strings.Contains(li.Find("a").AttrOr("href", ""), "/note")
	})
	if !strings.HasPrefix(note.Find("a").Text(), "A short untitled note") || !strings.Contains(note.Find(".m").Text(), "first seen") {
		t.Errorf("untitled, undated entry shows as %q", note.Text())
	}
	hebrew := items.FilterFunction(func(_ int, li *goquery.Selection) bool { return strings.Contains(li.Text(), "עברית") })
	if hebrew.Find(`a[dir="auto"]`).Length() != 1 {
		t.Error("a right-to-left title in the compact list is not in an element of its own direction")
	}
	text, _ := emailParts(t, busyDigest(t))
	if !strings.Contains(text, "* A short untitled note") || !strings.Contains(text, "  first seen 22 Nov 2020, 16:30\n") {
		t.Errorf("plain text compact list lacks the untitled note with its first-seen time:\n%s", text)
	}
}

// The contents count what each section lists, and of how many when the
// digest holds more than it lists.
func TestContentsCountWhatTheSectionHolds(t *testing.T) {
	d := busyDigest(t)
	doc, _ := digestDoc(t, d)
	var items []string
	doc.Find(`nav[aria-label="Contents"] li`).Each(func(_ int, li *goquery.Selection) {
		items = append(items, li.Text())
	})
	want := "Flaky Tech News 12 of 50 entries|Quiet Blog 1 entry|New Podcast 5 entries"
	if got := strings.Join(items, "|"); got != want {
		t.Errorf("contents %q, want %q", got, want)
	}
	if got := doc.Find(`nav[aria-label="Contents"] h2`).Text(); got != "56 new entries from 3 feeds" {
		t.Errorf("contents heading %q: every new entry counts, listed or not", got)
	}
	text, html := emailParts(t, d)
	if !strings.Contains(text, "  Flaky Tech News: 12 of 50 entries\n") || !strings.Contains(html, "12 of 50 entries") {
		t.Error("the email's contents do not say 12 of 50")
	}
	for _, tt := range []struct {
		listed, more int
		want         string
	}{
		{1, 0, "1 entry"}, {12, 0, "12 entries"}, {12, 38, "12 of 50 entries"}, {1, 1, "1 of 2 entries"}, {0, 3, "0 of 3 entries"},
	} {
		if got := sectionCount(nil, tt.listed, tt.more); got != tt.want {
			t.Errorf("sectionCount(nil, %d, %d) = %q, want %q", tt.listed, tt.more, got, tt.want)
		}
	}
}

// A feed introduced by this digest says how many older entries it left
// out, once, on the page and in both email parts; no other feed does.
func TestFirstDigestNote(t *testing.T) {
	const note = "leaves out 45 older entries."
	d := busyDigest(t)
	doc, _ := digestDoc(t, d)
	if got := doc.Find("section#feed-3 p.m").Last().Text(); !strings.Contains(got, note) || !strings.Contains(got, "first digest of this feed") {
		t.Errorf("the podcast's section ends %q, want the first-digest note", got)
	}
	text, html := emailParts(t, d)
	for part, got := range map[string]string{"page": doc.Text(), "text": text, "html": html} {
		if strings.Count(got, note) != 1 {
			t.Errorf("%s says %d times that 45 older entries were left out, want once", part, strings.Count(got, note))
		}
	}
	d.Groups[2].Older = 1
	if doc, _ := digestDoc(t, d); !strings.Contains(doc.Text(), "leaves out 1 older entry.") {
		t.Error("one older entry is not said in the singular")
	}
	d.Groups[2].Older = 0
	if doc, _ := digestDoc(t, d); strings.Contains(doc.Text(), "first digest") {
		t.Error("a feed introduced before speaks of a first digest")
	}
}

// An email cut to its first entries keeps the entries in full first,
// then the compact list, in the page's order.
func TestEmailCutKeepsCompactOrder(t *testing.T) {
	draft, err := DigestEmail(busyDigest(t), testFrom, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := draft.Entries(); n != 18 {
		t.Fatalf("email lists %d entries, want 18 (12 + 1 + 5)", n)
	}
	e, err := draft.FirstEntries(5)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.Text, "Story 8: chips") || strings.Contains(e.Text, "Story 7: chips") {
		t.Errorf("an email cut to 5 entries does not end with the news feed's fifth:\n%s", e.Text)
	}
	if !strings.Contains(e.Text, "The other 13 are on this") {
		t.Errorf("an email cut to 5 entries does not count the 13 others:\n%s", e.Text)
	}
}
