package opml

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/golden"
)

func parseFile(t *testing.T, name string) []Outline {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return got
}

func TestParseFlattensFolders(t *testing.T) {
	got := parseFile(t, "subscriptions.opml")
	want := []Outline{
		{Title: "The Go Blog", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog"},
		{Title: "Guardian science", XMLURL: "https://www.theguardian.com/science/rss", HTMLURL: "https://www.theguardian.com/science", Category: "Science"},
		// Nested folders make one path, outermost first.
		{Title: "NASA & friends", XMLURL: "https://www.nasa.gov/rss/dyn/breaking_news.rss", Category: "Science / Space"},
		{Title: "Comics", XMLURL: "https://xkcd.com/atom.xml", Category: "Science"},
		// A label that only repeats the URL says nothing: Title stays "".
		{XMLURL: "ftp://files.example.org/feed.xml"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
}

// ParseAll keeps, in their place, the outlines that are neither feeds nor
// folders, so that an importer can name what it skipped.
func TestParseAllKeepsWhatIsNotAFeed(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "subscriptions.opml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParseAll(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range got {
		names = append(names, o.Title+"|"+o.XMLURL+"|"+o.HTMLURL)
	}
	want := []string{
		"The Go Blog|https://go.dev/blog/feed.atom|https://go.dev/blog",
		"Guardian science|https://www.theguardian.com/science/rss|https://www.theguardian.com/science",
		"NASA & friends|https://www.nasa.gov/rss/dyn/breaking_news.rss|",
		"Comics|https://xkcd.com/atom.xml|",
		"An empty folder||",
		"No URL, just a note||https://example.org/",
		"|ftp://files.example.org/feed.xml|",
	}
	if !slices.Equal(names, want) {
		t.Errorf("ParseAll:\n got %q\nwant %q", names, want)
	}
	// A folder is not an outline of its own, empty or not.
	nested, err := ParseAll(strings.NewReader(`<opml><body><outline text="A"><outline text="B"><outline text="note"/></outline></outline></body></opml>`))
	if err != nil || len(nested) != 1 || nested[0].Title != "note" || nested[0].Category != "A / B" {
		t.Errorf("nested note: %+v, %v", nested, err)
	}
}

func TestWriteNestsFolders(t *testing.T) {
	var b bytes.Buffer
	err := Write(&b, "x", time.Time{}, []Outline{
		{XMLURL: "https://a.example/f", Category: "Science / Space"},
		{XMLURL: "https://b.example/f"},
		{XMLURL: "https://c.example/f", Category: "Science"},
		{XMLURL: "https://d.example/f", Category: "Science / Space"},
		{XMLURL: "https://e.example/f", Category: "Odd /  / path"}, // not a path of names: one folder
	})
	if err != nil {
		t.Fatal(err)
	}
	body := b.String()[strings.Index(b.String(), "<body>"):]
	want := `<body>
    <outline text="Science" title="Science">
      <outline text="Space" title="Space">
        <outline type="rss" text="https://a.example/f" xmlUrl="https://a.example/f"/>
        <outline type="rss" text="https://d.example/f" xmlUrl="https://d.example/f"/>
      </outline>
      <outline type="rss" text="https://c.example/f" xmlUrl="https://c.example/f"/>
    </outline>
    <outline type="rss" text="https://b.example/f" xmlUrl="https://b.example/f"/>
    <outline text="Odd /  / path" title="Odd /  / path">
      <outline type="rss" text="https://e.example/f" xmlUrl="https://e.example/f"/>
    </outline>
  </body>
</opml>
`
	if body != want {
		t.Errorf("Write:\n%s\nwant\n%s", body, want)
	}
	got, err := Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		if o.XMLURL == "https://d.example/f" && o.Category != "Science / Space" || o.XMLURL == "https://e.example/f" && o.Category != "Odd /  / path" {
			t.Errorf("read back %+v", o)
		}
	}
}

func TestParseLegacyCharset(t *testing.T) {
	got := parseFile(t, "latin1.opml")
	if len(got) != 1 || got[0].Title != "Café crème" || got[0].XMLURL != "https://café.example/feed" {
		t.Errorf("latin1: %+v", got)
	}
}

func TestParseRefusesBadInput(t *testing.T) {
	deep := strings.Repeat("<outline text='x'>", MaxDepth) + strings.Repeat("</outline>", MaxDepth)
	tests := []struct{ name, doc, want string }{
		{"empty", "", "no root element"},
		{"not xml", "hello, world", "no root element"},
		{"rss", `<rss version="2.0"><channel/></rss>`, "root element <rss>"},
		{"html", `<!DOCTYPE html><html><body></body></html>`, "root element <html>"},
		{"no body", `<opml version="2.0"><head/></opml>`, "no <body>"},
		{"two roots", `<opml><body/></opml><opml/>`, "not an OPML document"},
		{"unclosed", `<opml><body><outline xmlUrl="https://a.example/"></body></opml>`, "syntax error"},
		{"truncated", `<opml><body><outline xmlUrl="https://a.example/"/>`, "unexpected EOF"},
		{"undefined entity", `<opml><body><outline text="&boom;" xmlUrl="https://a.example/"/></body></opml>`, "entity"},
		{"entity bomb", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>` +
			`<opml><body><outline text="&lol2;" xmlUrl="https://a.example/"/></body></opml>`, "entity"},
		{"bad charset", `<?xml version="1.0" encoding="klingon"?><opml><body/></opml>`, "klingon"},
		{"invalid utf-8", "<opml><body><outline text=\"\xff\" xmlUrl=\"https://a.example/\"/></body></opml>", "UTF-8"},
		{"control character", "<opml><body><outline text=\"\x01\" xmlUrl=\"https://a.example/\"/></body></opml>", "illegal character"},
		{"too deep", "<opml><body>" + deep + "</body></opml>", "nested more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %+v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

// endless yields an opening of an OPML body and then empty folders forever.
type endless struct{ started bool }

func (e *endless) Read(p []byte) (int, error) {
	if !e.started {
		e.started = true
		return copy(p, "<opml><body>"), nil
	}
	return copy(p, `<outline text="x"/>`), nil
}

func TestParseStopsAtSizeLimit(t *testing.T) {
	defer func(n int64) { maxSize = n }(maxSize)
	maxSize = 1 << 16
	_, err := Parse(&endless{})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("endless input: %v, want ErrTooLarge", err)
	}
}

func TestParseEmptyListIsNoError(t *testing.T) {
	got, err := Parse(strings.NewReader(`<opml version="2.0"><head/><body/></opml>`))
	if err != nil || len(got) != 0 {
		t.Errorf("empty list: %+v, %v", got, err)
	}
}

var sample = []Outline{
	{Title: "The Go Blog", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog"},
	{Title: `Quotes "and" <tags> & 'apostrophes'`, XMLURL: "https://example.org/feed?a=1&b=2", Category: "Odd & ends"},
	{XMLURL: "https://example.org/untitled.xml", Category: "Odd & ends"},
	{Title: "Line\nbreak\tand tab", XMLURL: "https://example.org/ws.xml"},
	{Title: "Ünïcödé 日本", XMLURL: "https://例え.jp/feed", Category: "Tokyo"},
}

func TestWriteGolden(t *testing.T) {
	var b bytes.Buffer
	created := time.Date(2026, 11, 22, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	if err := Write(&b, `Ada's feeds <& friends>`, created, sample); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "write.golden.opml"), b.Bytes())
}

func TestWriteThenParse(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "x", time.Time{}, sample); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "dateCreated") {
		t.Error("a zero time wrote a dateCreated")
	}
	got, err := Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if want := sorted(sample); !reflect.DeepEqual(sorted(got), want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestWriteRefusesOutlineWithoutURL(t *testing.T) {
	if err := Write(io.Discard, "x", time.Time{}, []Outline{{Title: "nothing"}}); err == nil {
		t.Error("an outline without xmlUrl was written")
	}
}

// sorted orders outlines independently of Write's grouping by folder.
func sorted(list []Outline) []Outline {
	s := slices.Clone(list)
	slices.SortStableFunc(s, func(a, b Outline) int {
		return cmp.Or(strings.Compare(a.Category, b.Category), strings.Compare(a.XMLURL, b.XMLURL),
			strings.Compare(a.Title, b.Title), strings.Compare(a.HTMLURL, b.HTMLURL))
	})
	return s
}

// FuzzParse checks that no input panics, that a parsed list is always
// writable, and that writing and parsing it again gives the same feeds.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"subscriptions.opml", "latin1.opml", "write.golden.opml"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<opml><body><outline text="a"><outline xmlUrl="u" title="t"/></outline></body></opml>`))
	f.Add([]byte(`<opml><body><outline xmlUrl="u"><outline xmlUrl="v"/></outline></body></opml>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := Parse(bytes.NewReader(doc))
		if err != nil {
			return
		}
		for _, o := range got {
			if o.XMLURL == "" {
				t.Fatalf("outline without xmlUrl: %+v", o)
			}
		}
		var b bytes.Buffer
		if err := Write(&b, "fuzz", time.Time{}, got); err != nil {
			t.Fatalf("Write of parsed outlines: %v", err)
		}
		again, err := Parse(&b)
		if err != nil {
			t.Fatalf("Parse of written outlines: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(sorted(got), sorted(again)) {
			t.Fatalf("round trip:\n got %+v\nthen %+v", got, again)
		}
	})
}

func TestWriteKeepsOnlyWebSiteLinks(t *testing.T) {
	for link, kept := range map[string]bool{
		"https://example.org/":              true,
		"HTTP://example.org/blog":           true,
		"javascript:alert(1)":               false,
		"JavaScript:alert(1)":               false,
		" javascript:alert(1)":              false,
		"data:text/html,<script>x</script>": false,
		"vbscript:msgbox":                   false,
		"/relative/path":                    false,
		"//example.org/no-scheme":           false,
		"https://":                          false,
	} {
		var b bytes.Buffer
		if err := Write(&b, "x", time.Time{}, []Outline{{XMLURL: "https://example.org/feed", HTMLURL: link}}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "htmlUrl"); got != kept {
			t.Errorf("site link %q: written %v, want %v\n%s", link, got, kept, b.String())
		}
	}
}
