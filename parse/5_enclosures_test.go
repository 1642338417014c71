package parse

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
)

func TestParseKeepsEnclosures(t *testing.T) {
	mp3 := func(n int) domain.Enclosure {
		return domain.Enclosure{URL: fmt.Sprintf("https://cdn.example.org/9/%02d.mp3", n), Type: "audio/mpeg"}
	}
	tests := []struct {
		file, contentType, key string
		want                   []domain.Enclosure
	}{
		{"enclosures_rss.xml", "application/rss+xml", "id:ep-12", []domain.Enclosure{
			{URL: "https://cdn.example.org/audio/12.mp3", Type: "audio/mpeg", Length: 28311552, Duration: time.Hour + 2*time.Minute + 9*time.Second},
		}},
		// Relative to the entry's link; a length that is no number is
		// unknown; the type loses its parameters and its capitals.
		{"enclosures_rss.xml", "application/rss+xml", "id:ep-11", []domain.Enclosure{
			{URL: "https://slowradio.example.org/11/audio/11.m4a", Type: "audio/mp4", Duration: 2057 * time.Second},
		}},
		// javascript: and data: files are no files to link.
		{"enclosures_rss.xml", "application/rss+xml", "id:ep-10", nil},
		// Ten files, one twice: the first eight kept, each once; a
		// duration in words is none.
		{"enclosures_rss.xml", "application/rss+xml", "id:ep-9", []domain.Enclosure{
			mp3(1), mp3(2), mp3(3), mp3(4), mp3(5), mp3(6), mp3(7), mp3(8),
		}},
		// JSON Feed attachments; gofeed drops their duration_in_seconds.
		{"enclosures.json", "application/feed+json", "id:show-3", []domain.Enclosure{
			{URL: "https://radio.example.net/files/3.ogg", Type: "audio/ogg", Length: 12000000, Duration: 10 * time.Minute},
		}},
		{"enclosures.atom", "application/atom+xml", "id:urn:example:walk", []domain.Enclosure{
			{URL: "https://video.example.net/media/walk.webm", Type: "video/webm", Length: 314572800},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.key, func(t *testing.T) {
			f, err := readFeedAt(readTestdata(t, tt.file), tt.contentType, "https://example.org/feed")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range f.Entries {
				if e.Key != tt.key {
					continue
				}
				if !reflect.DeepEqual(e.Enclosures, tt.want) {
					t.Errorf("enclosures\n%+v\nwant\n%+v", e.Enclosures, tt.want)
				}
				return
			}
			t.Fatalf("no entry %s", tt.key)
		})
	}
}

func TestEnclosureURLsAreBounded(t *testing.T) {
	long := "https://cdn.example.org/" + strings.Repeat("a", MaxEnclosureURL)
	body := `<rss version="2.0"><channel><title>t</title><item><guid>a</guid>` +
		`<enclosure url="` + long + `" type="audio/mpeg"/>` +
		`<enclosure url="https://cdn.example.org/ok.mp3" type="` + strings.Repeat("x", 200) + `/y"/></item></channel></rss>`
	f, err := readFeedAt([]byte(body), "application/rss+xml", "https://example.org/feed")
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.Enclosure{{URL: "https://cdn.example.org/ok.mp3"}}
	if got := f.Entries[0].Enclosures; !reflect.DeepEqual(got, want) {
		t.Errorf("enclosures %+v, want %+v (the long URL dropped, the long type unknown)", got, want)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1:02:09", time.Hour + 2*time.Minute + 9*time.Second, true},
		{"01:02:09", time.Hour + 2*time.Minute + 9*time.Second, true},
		{"34:00", 34 * time.Minute, true},
		{"5:07", 5*time.Minute + 7*time.Second, true},
		{"2057", 2057 * time.Second, true},
		{" 2057.48 ", 2057 * time.Second, true},
		{"90:00", 90 * time.Minute, true},
		{"", 0, false},
		{"0", 0, false},
		{"1:60:00", 0, false},
		{"1:2:3:4", 0, false},
		{"-5", 0, false},
		{"ten minutes", 0, false},
		{"1:002", 0, false},
		{"12.", 0, false},
		{"99999999999999999999", 0, false},
		{"1001:00:00", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseDuration(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseDuration(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1:02:09", "34:00", "2057", "2057.5", "", "::", "1:60", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseDuration(s)
		if ok != (d > 0) || d > maxDuration || d%time.Second != 0 {
			t.Fatalf("parseDuration(%q) = %v, %v", s, d, ok)
		}
	})
}
