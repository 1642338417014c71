package parse

import "testing"

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
