package parse

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"feeddigest/domain"
)

// Relative entry links resolve against the feed's home link only when it
// is an http(s) URL; a javascript: or data: home link is never a base.
func TestHomeLinkAsBaseOnlyWhenHTTP(t *testing.T) {
	tests := []struct{ home, want string }{
		{"javascript:alert(1)//", "https://feeds.example/blog/posts/1"},
		{"JavaScript:alert(document.cookie)", "https://feeds.example/blog/posts/1"},
		{"data:text/html,<script>alert(1)</script>", "https://feeds.example/blog/posts/1"},
		{"vbscript:msgbox", "https://feeds.example/blog/posts/1"},
		{"//cdn.example/", "https://cdn.example/posts/1"}, // made absolute against the feed first
		{"https://site.example/home/", "https://site.example/home/posts/1"},
		{"", "https://feeds.example/blog/posts/1"},
	}
	for _, tt := range tests {
		for _, format := range []string{"rss", "atom"} {
			var body string
			if format == "rss" {
				body = `<rss version="2.0"><channel><title>t</title><link>` + escapeXML(tt.home) +
					`</link><item><title>x</title><link>posts/1</link></item></channel></rss>`
			} else {
				body = `<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link rel="alternate" href="` + escapeXML(tt.home) +
					`"/><entry><id>1</id><title>x</title><link rel="alternate" href="posts/1"/></entry></feed>`
			}
			f, err := readFeedAt([]byte(body), "", "https://feeds.example/blog/feed")
			if err != nil {
				t.Fatalf("%s %q: %v", format, tt.home, err)
			}
			if got := f.Entries[0].Link; got != tt.want {
				t.Errorf("%s with home %q: entry link %q, want %q", format, tt.home, got, tt.want)
			}
		}
	}
}

func escapeXML(s string) string {
	out := ""
	for _, r := range s {
		switch r {
		case '<':
			out += "&lt;"
		case '&':
			out += "&amp;"
		case '"':
			out += "&quot;"
		default:
			out += string(r)
		}
	}
	return out
}

// A feed's language, from each format, as a tag a page can use.
func TestFeedLanguage(t *testing.T) {
	tests := []struct {
		name, body, contentType, want string
	}{
		{"RSS language", `<rss version="2.0"><channel><title>T</title><language>ar</language>
			<item><title>مرحبا</title><guid>1</guid></item></channel></rss>`, "application/rss+xml", "ar"},
		{"RSS language, upper case region", `<rss version="2.0"><channel><title>T</title><language>EN_us</language>
			<item><title>x</title><guid>1</guid></item></channel></rss>`, "application/rss+xml", "en-US"},
		{"RSS dc:language", `<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title>
			<dc:language>he</dc:language><item><title>x</title><guid>1</guid></item></channel></rss>`, "application/rss+xml", "he"},
		{"Atom xml:lang", `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="fa-IR"><title>T</title><id>t</id>
			<entry><id>1</id><title>x</title></entry></feed>`, "application/atom+xml", "fa-IR"},
		{"JSON Feed language", `{"version": "https://jsonfeed.org/version/1.1", "title": "T", "language": "ur",
			"items": [{"id": "1", "title": "x"}]}`, "application/feed+json", "ur"},
		{"none", `<rss version="2.0"><channel><title>T</title><item><title>x</title><guid>1</guid></item></channel></rss>`,
			"application/rss+xml", ""},
		{"not a language tag", `<rss version="2.0"><channel><title>T</title><language>English (UK) "quoted"</language>
			<item><title>x</title><guid>1</guid></item></channel></rss>`, "application/rss+xml", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := readFeedAt([]byte(tt.body), tt.contentType, "https://example.org/feed")
			if err != nil {
				t.Fatal(err)
			}
			if f.Language != tt.want {
				t.Errorf("Language = %q, want %q", f.Language, tt.want)
			}
		})
	}
}

func TestEntryIdentity(t *testing.T) {
	f, err := readFeedAt(readTestdata(t, "rss.xml"), "application/rss+xml", "https://example.org/feed.xml")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]domain.Entry{}
	for _, e := range f.Entries {
		keys[e.Key] = e
	}
	if _, ok := keys["id:urn:a"]; !ok {
		t.Errorf("guid should be the key: %v", keys)
	}
	if e, ok := keys["link:https://example.org/b"]; !ok {
		t.Errorf("link (resolved) should be the key without a guid: %v", keys)
	} else if e.Link != "https://example.org/b" {
		t.Errorf("relative link not resolved: %q", e.Link)
	}
	var hashed int
	for k := range keys {
		if strings.HasPrefix(k, "hash:") {
			hashed++
		}
	}
	if hashed != 1 {
		t.Errorf("an entry with neither guid nor link is keyed by a hash: %v", keys)
	}
	if !keys["id:urn:d"].Published.IsZero() {
		t.Error("an unparseable date must come back zero")
	}
	if got := keys["id:urn:a"].Published; !got.Equal(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("published = %v", got)
	}
}

func TestEntryKeyStableAndDistinct(t *testing.T) {
	a := EntryKey("", "", "Title", "Body")
	if a != EntryKey("", "", "Title", "Body") {
		t.Error("hash key not stable")
	}
	if a == EntryKey("", "", "Title", "Other body") || a == EntryKey("", "", "TitleBody", "") {
		t.Error("hash keys collide")
	}
	if EntryKey("g", "l", "t", "c") != "id:g" || EntryKey("", "l", "t", "c") != "link:l" {
		t.Error("guid, then link")
	}
}

func TestKeepNewestEntries(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var entries []domain.Entry
	for i := range 10 {
		e := domain.Entry{Key: fmt.Sprint(i)}
		if i%3 != 0 { // 0, 3, 6, 9 undated
			e.Published = day.AddDate(0, 0, i)
		}
		entries = append(entries, e)
	}
	got := keepNewest(entries, 4)
	var keys []string
	for _, e := range got {
		keys = append(keys, e.Key)
	}
	// The four newest dated, in body order.
	if want := "4 5 7 8"; strings.Join(keys, " ") != want {
		t.Errorf("kept %v, want %s", keys, want)
	}
	if got := keepNewest(entries[:3], 4); len(got) != 3 {
		t.Errorf("kept %d of 3", len(got))
	}
}

func TestParseKeepsMaxEntries(t *testing.T) {
	body := rssItems(MaxEntries+500, func(i int) string {
		return fmt.Sprintf("<item><guid>%d</guid><pubDate>%s</pubDate></item>", i,
			time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z))
	})
	f, err := readFeedAt([]byte(body), "application/rss+xml", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != MaxEntries || f.Entries[0].Key != "id:500" {
		t.Errorf("kept %d entries from %s, want %d from id:500", len(f.Entries), f.Entries[0].Key, MaxEntries)
	}
}

// Categories are kept for rules: RSS <category>, Atom category terms,
// trimmed, each once, bounded in number and length.
func TestEntryCategories(t *testing.T) {
	many := strings.Repeat("<category>spam</category>", 3)
	for i := range 30 {
		many += fmt.Sprintf("<category>c%d</category>", i)
	}
	long := strings.Repeat("é", 200)
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"rss", `<rss version="2.0"><channel><title>t</title><item><title>x</title><category> Go </category><category>Science  News</category></item></channel></rss>`, []string{"Go", "Science News"}},
		{"atom", `<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><id>1</id><title>x</title><category term="golang"/></entry></feed>`, []string{"golang"}},
		{"none", `<rss version="2.0"><channel><title>t</title><item><title>x</title></item></channel></rss>`, nil},
		{"stuffed", `<rss version="2.0"><channel><title>t</title><item><title>x</title>` + many + `<category>` + long + `</category></item></channel></rss>`, nil},
	} {
		f, err := readFeedAt([]byte(tt.body), "", "https://feeds.example/feed")
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := f.Entries[0].Categories
		if tt.name == "stuffed" {
			if len(got) != MaxCategories || got[0] != "spam" || got[1] != "c0" {
				t.Errorf("stuffed: %d categories %q, want %d, each once", len(got), got, MaxCategories)
			}
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: categories %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := categories([]string{strings.Repeat("é", 200)}); len(got[0]) > MaxCategoryText || !utf8.ValidString(got[0]) {
		t.Errorf("long category kept as %d bytes, valid %v", len(got[0]), utf8.ValidString(got[0]))
	}
}
