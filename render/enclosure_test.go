package render

import (
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/domain"
	"feeddigest/internal/htmltest"
)

func TestEnclosureLabel(t *testing.T) {
	tests := []struct {
		in   domain.Enclosure
		want string
	}{
		{domain.Enclosure{URL: "https://a.example/12.mp3", Type: "audio/mpeg", Length: 42_123_456, Duration: 34*time.Minute + 12*time.Second}, "Audio (MP3, 34 min, 42 MB)"},
		{domain.Enclosure{URL: "https://a.example/12.m4a", Type: "audio/x-m4a", Duration: time.Hour + 2*time.Minute + 9*time.Second}, "Audio (M4A, 1 h 02 min)"},
		{domain.Enclosure{URL: "https://a.example/a.bin", Type: "audio/x-unheard-of", Duration: 45 * time.Second}, "Audio (45 s)"},
		{domain.Enclosure{URL: "https://v.example/walk", Type: "video/webm", Length: 314_572_800}, "Video (WebM, 315 MB)"},
		{domain.Enclosure{URL: "https://v.example/clip", Type: "video/x-unheard-of"}, "Video"},
		{domain.Enclosure{URL: "https://a.example/ep/13.MP3?token=1"}, "Audio (MP3)"}, // no type: the name says
		{domain.Enclosure{URL: "https://a.example/notes.pdf", Type: "application/pdf", Length: 2_100_000}, "PDF (2.1 MB)"},
		{domain.Enclosure{URL: "https://a.example/cover.jpg", Type: "image/jpeg", Length: 85_000}, "Image (85 kB)"},
		{domain.Enclosure{URL: "https://a.example/files/data.zip", Type: "application/zip", Length: 1_000}, "File (data.zip, 1.0 kB)"},
		{domain.Enclosure{URL: "https://a.example/"}, "File"},
	}
	for _, tt := range tests {
		if got := EnclosureLabel(nil, tt.in); got != tt.want {
			t.Errorf("EnclosureLabel(nil, %+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Every part of a digest links an entry's files by what they are; a file
// at a javascript: address is not linked anywhere.
func TestEnclosuresInEveryPart(t *testing.T) {
	d := sampleDigest(t)
	d.Email = "ada@example.org"
	d.Groups[0].Entries[0].Enclosures = []domain.Enclosure{
		{URL: "https://media.example.org/ep1.mp3", Type: "audio/mpeg", Length: 28_311_552, Duration: 29*time.Minute + 29*time.Second},
		{URL: "javascript:alert(1)", Type: "audio/mpeg"},
	}
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	draft, err := DigestEmail(d, "digest@example.org", "")
	if err != nil {
		t.Fatal(err)
	}
	email, err := draft.FirstEntries(draft.Entries())
	if err != nil {
		t.Fatal(err)
	}
	link := `<a href="https://media.example.org/ep1.mp3" rel="noopener noreferrer"`
	for name, got := range map[string]string{"page": string(page), "HTML part": email.HTML} {
		if !strings.Contains(got, link) || !strings.Contains(got, ">Audio (MP3, 29 min, 28 MB)</a>") {
			t.Errorf("the %s does not link the audio by what it is", name)
		}
	}
	if !strings.Contains(email.Text, "\n  Audio (MP3, 29 min, 28 MB): https://media.example.org/ep1.mp3\n") {
		t.Errorf("the text part does not list the audio:\n%s", email.Text)
	}
	for name, got := range map[string]string{"page": string(page), "HTML part": email.HTML, "text part": email.Text} {
		if strings.Contains(got, "javascript:") {
			t.Errorf("the %s links a javascript: file", name)
		}
	}
}

// On the page, an audio file also gets a player that needs no script and
// fetches nothing before the reader presses play; a video or a PDF, and
// the email, keep the link alone.
func TestAudioGetsAPlayerOnThePageOnly(t *testing.T) {
	d := sampleDigest(t)
	d.Email = "ada@example.org"
	d.Groups[0].Entries[0].Enclosures = []domain.Enclosure{
		{URL: "https://media.example.org/ep1.mp3", Type: "audio/mpeg; charset=binary"},
		{URL: "https://media.example.org/ep2.ogg"},
		{URL: "https://media.example.org/talk.mp4", Type: "video/mp4"},
		{URL: "https://media.example.org/notes.pdf"},
	}
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	players := htmltest.Parse(t, string(page)).Find("audio")
	var srcs []string
	players.Each(func(_ int, s *goquery.Selection) {
		src, _ := s.Attr("src")
		preload, _ := s.Attr("preload")
		_, controls := s.Attr("controls")
		if preload != "none" || !controls {
			t.Errorf("player of %s: preload %q, controls %v", src, preload, controls)
		}
		srcs = append(srcs, src)
	})
	if got := strings.Join(srcs, " "); got != "https://media.example.org/ep1.mp3 https://media.example.org/ep2.ogg" {
		t.Errorf("players for %s, want the two audio files", got)
	}
	e := buildEmail(t, d, "")
	if strings.Contains(e.HTML, "<audio") {
		t.Error("the email carries a player")
	}
}
