package parse

import (
	"strings"
	"testing"
)

func TestCharsetConversion(t *testing.T) {
	tests := []struct {
		name, file, contentType string
		body                    []byte // instead of file
		wantTitle, wantContent  string
	}{
		{name: "ISO-8859-1 body, charset in the header, no prolog", file: "latin1_no_prolog.xml",
			contentType: "application/rss+xml; charset=ISO-8859-1",
			wantTitle:   "Café Crème", wantContent: "Ça coûte 5 euro? Non: 5 £, «cher»."},
		{name: "windows-1252 named in the prolog only", file: "cp1252_prolog.xml",
			contentType: "application/rss+xml",
			wantTitle:   "Café “quoted” – 5 €", wantContent: "It’s “smart” — € 5"},
		{name: "the header outranks the prolog", file: "cp1252_prolog.xml",
			contentType: "text/xml; charset=windows-1252",
			wantTitle:   "Café “quoted” – 5 €"},
		{name: "UTF-8 body under a wrong charset=iso-8859-1 header", file: "utf8_no_prolog_encoding.xml",
			contentType: "application/rss+xml; charset=iso-8859-1",
			wantTitle:   "Café Crème", wantContent: "Ça coûte 5 €, «cher»."},
		{name: "UTF-8 body under a prolog claiming ISO-8859-1", file: "utf8_prolog_says_latin1.xml",
			contentType: "application/rss+xml",
			wantTitle:   "Café Crème"},
		{name: "not UTF-8 and no charset anywhere: windows-1252", file: "latin1_no_prolog.xml",
			contentType: "application/rss+xml",
			wantTitle:   "Café Crème"},
		{name: "a header charset that names UTF-8 for a Latin-1 body is not believed", file: "latin1_no_prolog.xml",
			contentType: "application/rss+xml; charset=utf-8",
			wantTitle:   "Café Crème"},
		{name: "windows-1251 in the header beats ISO-8859-1 in the prolog",
			body:        []byte("<?xml version=\"1.0\" encoding=\"iso-8859-1\"?><rss version=\"2.0\"><channel><title>\xcf\xf0\xe8\xe2\xe5\xf2</title></channel></rss>"),
			contentType: "application/rss+xml; charset=windows-1251",
			wantTitle:   "Привет"},
		{name: "JSON Feed in Latin-1",
			body:        []byte(`{"version": "https://jsonfeed.org/version/1.1", "title": "Caf` + "\xe9" + `", "items": []}`),
			contentType: "application/feed+json; charset=iso-8859-1",
			wantTitle:   "Café"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if tt.file != "" {
				body = readTestdata(t, tt.file)
			}
			res, err := Read(body, tt.contentType, nil)
			if err != nil || res.Feed == nil {
				t.Fatalf("feed %v err %v", res.Feed, err)
			}
			if res.Feed.Title != tt.wantTitle {
				t.Errorf("title %q, want %q", res.Feed.Title, tt.wantTitle)
			}
			if tt.wantContent != "" && (len(res.Feed.Entries) == 0 || res.Feed.Entries[0].Content != tt.wantContent) {
				t.Errorf("entries %+v, want content %q", res.Feed.Entries, tt.wantContent)
			}
		})
	}
}

func TestDeclareUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{`<?xml version="1.0" encoding="windows-1252"?><rss/>`, `<?xml version="1.0" encoding="UTF-8"?><rss/>`},
		{"\xEF\xBB\xBF<?xml version='1.0' encoding='ISO-8859-1' standalone='yes'?>", "\xEF\xBB\xBF<?xml version='1.0' encoding='UTF-8' standalone='yes'?>"},
		{`<?xml version="1.0" encoding="utf-8"?><rss/>`, `<?xml version="1.0" encoding="utf-8"?><rss/>`},
		{`<?xml version="1.0"?><rss encoding="latin1"/>`, `<?xml version="1.0"?><rss encoding="latin1"/>`},
		{`<rss/><?xml version="1.0" encoding="latin1"?>`, `<rss/><?xml version="1.0" encoding="latin1"?>`},
	}
	for _, tt := range tests {
		if got := string(declareUTF8([]byte(tt.in))); got != tt.want {
			t.Errorf("declareUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHTMLPageCharset(t *testing.T) {
	page := "<html><head><meta charset=\"windows-1252\"></head><body><div class=\"h-feed\">" +
		"<article class=\"h-entry\"><a class=\"u-url\" href=\"/1\">#</a><div class=\"e-content\">Caf\xe9 \x93quoted\x94</div></article></div></body></html>"
	res, err := Read([]byte(page), "text/html", mustURL(t, "http://127.0.0.1/"))
	if err != nil || res.Feed == nil || len(res.Feed.Entries) != 1 {
		t.Fatalf("feed %v err %v", res.Feed, err)
	}
	if got := res.Feed.Entries[0].Content; !strings.Contains(got, "Café “quoted”") {
		t.Errorf("content %q: the page's <meta charset> was not honoured", got)
	}
}
