package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/domain"
	"feeddigest/internal/htmltest"
)

func digestDoc(t *testing.T, d Digest) (*goquery.Document, []byte) {
	t.Helper()
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	return htmltest.Parse(t, string(page)), page
}

func TestDigestPageIsCalmAndAccessible(t *testing.T) {
	doc, page := digestDoc(t, sampleDigest(t))
	checks := map[string]int{
		`html[lang="en"]`:                        1,
		`meta[name="robots"][content="noindex"]`: 1,
		`meta[name="viewport"]`:                  1,
		"header":                                 1,
		"main":                                   1,
		"header nav":                             1,
		"footer":                                 1,
		"h1":                                     1,
		"style":                                  1,
		"script":                                 0,
		"link[rel=stylesheet]":                   0,
		`nav a[href="index.html#archive"]`:       1,
		`nav a[href="../status.html"]`:           1,
	}
	for sel, want := range checks {
		if got := doc.Find(sel).Length(); got != want {
			t.Errorf("%s: %d, want %d", sel, got, want)
		}
	}
	css := doc.Find("style").Text()
	for _, want := range []string{"prefers-color-scheme:dark", "max-width:40em", "focus-visible"} {
		if !strings.Contains(css, want) {
			t.Errorf("stylesheet lacks %q", want)
		}
	}
	if strings.Contains(string(page), "@import") || strings.Contains(css, "url(") {
		t.Error("stylesheet loads remote resources")
	}
	checkHeadingOrder(t, doc)
}

// checkHeadingOrder: one h1, and no heading more than one level below the
// previous one.
func checkHeadingOrder(t *testing.T, doc *goquery.Document) {
	t.Helper()
	prev := 0
	doc.Find("h1, h2, h3, h4, h5, h6").Each(func(_ int, h *goquery.Selection) {
		level := int(h.Nodes[0].Data[1] - '0')
		if level > prev+1 {
			t.Errorf("heading %q is h%d after h%d", h.Text(), level, prev)
		}
		prev = level
	})
}

func TestDigestPageEntries(t *testing.T) {
	d := sampleDigest(t)
	d.IntroHTML = "<h1>Welcome</h1><p>Hi.</p><h2>News</h2>"
	d.Groups[1].Entries[0].Content = "<h1>Big</h1><p>text</p><h2>Smaller</h2>"
	// Longer than its excerpt, so its content is folded away (a short
	// entry's content stands in for its excerpt).
	d.Groups[0].Entries[0].Content += "<p>" + strings.Repeat("More words about the first post. ", 10) + "</p>"
	doc, _ := digestDoc(t, d)
	checkHeadingOrder(t, doc)
	entries := doc.Find("main article")
	if entries.Length() != 3 {
		t.Fatalf("%d entries, want 3", entries.Length())
	}
	first := entries.First()
	link := first.Find("h3 a")
	if link.AttrOr("href", "") != "https://blog.example.org/posts/hello" || link.AttrOr("rel", "") != htmltest.RelSafe {
		t.Errorf("entry link: href=%q rel=%q", link.AttrOr("href", ""), link.AttrOr("rel", ""))
	}
	// The section's heading names the feed: the line under the title
	// names the author and the time only.
	if got := first.Find("p.m").Text(); got != "Ada · 21 Nov 2020, 14:05" {
		t.Errorf("entry's meta line %q, want its author and time only", got)
	}
	details := first.Find("details")
	if details.Length() != 1 || details.Is("[open]") || !strings.HasPrefix(details.Find("summary").Text(), "Read it all") {
		t.Error("full content is not in a closed <details><summary>Read it all</summary>")
	}
	// The summary says what it opens: the entry, by its title, for a
	// screen reader (visually hidden), not a bare "Read here".
	if got, title := details.Find("summary .vh").Text(), first.Find("h3").Text(); got != ": "+title {
		t.Errorf("the summary names %q, want the entry's title %q", got, title)
	}
	if details.Find(`a[href="https://blog.example.org/about"]`).Length() != 1 {
		t.Error("relative link in content not resolved against the entry")
	}
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		href := a.AttrOr("href", "")
		if strings.HasPrefix(href, "http") && a.AttrOr("rel", "") != htmltest.RelSafe {
			t.Errorf("outside link %s without rel=%q", href, htmltest.RelSafe)
		}
	})
	if got := doc.Find("main > section > h2").First().Text(); got != "Feed changes" {
		t.Errorf("first section is %q, want the notices", got)
	}
	if got := doc.Find("main h2").Last().Text(); got != "Links mentioned" {
		t.Errorf("last section is %q, want the links", got)
	}
	if doc.Find("main > div:first-child h2").Text() != "Welcome" {
		t.Error("intro missing at the top")
	}
	if !strings.Contains(entries.Eq(1).Find("p.m").Text(), "first seen") {
		t.Error("an entry without a date does not say when it was first seen")
	}
}

func TestDigestPageShowsLocalTimes(t *testing.T) {
	d := sampleDigest(t)
	d.Groups[0].Entries[0].Published = utc("2020-07-01T12:00:00Z") // BST in London
	doc, _ := digestDoc(t, d)
	tm := doc.Find("article time").First()
	if tm.Text() != "1 Jul 2020, 13:00" || tm.AttrOr("datetime", "") != "2020-07-01T13:00:00+01:00" {
		t.Errorf("time shown as %q (%s)", tm.Text(), tm.AttrOr("datetime", ""))
	}
	d.Location = nil
	doc, _ = digestDoc(t, d)
	if got := doc.Find("article time").First().Text(); got != "1 Jul 2020, 12:00" {
		t.Errorf("without a zone: %q, want UTC", got)
	}
}

func TestDigestPageEmptyDay(t *testing.T) {
	doc, _ := digestDoc(t, emptyDigest(t))
	if !strings.Contains(doc.Find("main").Text(), "Nothing new was published") {
		t.Error("empty day does not say so")
	}
	if doc.Find("article").Length() != 0 {
		t.Error("entries on an empty day")
	}
}

func TestDigestPageBadDate(t *testing.T) {
	d := sampleDigest(t)
	d.Date = "22/11/2020"
	if _, err := DigestPage(d); err == nil {
		t.Error("bad date accepted")
	}
	if _, err := IndexPage("ada", nil, &d, nil); err == nil {
		t.Error("bad date accepted by IndexPage")
	}
}

// TestDigestPageSize: a busy day stays a small page.
func TestDigestPageSize(t *testing.T) {
	d := sampleDigest(t)
	d.Groups = nil
	for f := 0; f < 5; f++ {
		g := FeedGroup{FeedURL: fmt.Sprintf("https://feed%d.example.org/feed.xml", f), FeedName: fmt.Sprintf("Feed number %d", f)}
		for e := 0; e < 10; e++ {
			g.Entries = append(g.Entries, domain.Entry{
				Title:     fmt.Sprintf("A reasonably typical entry title, number %d", e),
				Link:      fmt.Sprintf("/2020/11/entry-%d.html", e),
				Published: utc("2020-11-21T10:00:00Z"),
				Content:   "<p>" + strings.Repeat("A short paragraph of text. ", 3) + "</p>",
			})
		}
		d.Groups = append(d.Groups, g)
	}
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("50 entries: %d bytes", len(page))
	if len(page) >= 40<<10 {
		t.Errorf("a 50-entry digest is %d bytes, want under 40 KB", len(page))
	}
}

func TestIndexPage(t *testing.T) {
	d := sampleDigest(t)
	page, err := IndexPage("ada", nil, &d, []DigestRef{{Date: "2020-11-20"}, {Date: "2020-11-22"}, {Date: "2020-11-21"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.Parse(t, string(page))
	var dates []string
	doc.Find("#archive li a").Each(func(_ int, a *goquery.Selection) { dates = append(dates, a.AttrOr("href", "")) })
	if strings.Join(dates, " ") != "2020-11-22.html 2020-11-21.html 2020-11-20.html" {
		t.Errorf("archive order %v, want newest first", dates)
	}
	if doc.Find("main article").Length() != 3 {
		t.Error("index does not show the newest digest")
	}
	checkHeadingOrder(t, doc)

	page, err = IndexPage("bob", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "No digest yet") {
		t.Error("index without digests does not say so")
	}
}

func TestStatusPage(t *testing.T) {
	page, err := StatusPage(sampleStatus(), nil, utc("2020-11-22T00:10:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.Parse(t, string(page))
	if doc.Find("table caption").Length() != 1 {
		t.Error("table without caption")
	}
	if n := doc.Find(`thead th[scope="col"]`).Length(); n != 10 {
		t.Errorf("%d column headers, want 10", n)
	}
	if n := doc.Find(`tbody th[scope="row"]`).Length(); n != 4 {
		t.Errorf("%d row headers, want 4", n)
	}
	text := doc.Text()
	for _, want := range []string{
		"https://moving.example.com/feed.xml", "2020-11-22 00:03 UTC", "penalty (connection error)",
		"connection refused by flaky.example.net: is the server running?", "failing", "never", "4 feeds: 1 failing, 1 moved, 2 ok.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	checkHeadingOrder(t, doc)
}

func TestAtomFeed(t *testing.T) {
	ds := []Digest{emptyDigest(t), sampleDigest(t)}
	out, err := AtomFeed("ada", nil, testSite, ds, utc("2020-11-23T00:05:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	var f atomFeed
	if err := xml.Unmarshal(out, &f); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if len(f.Entries) != 2 || !strings.HasPrefix(f.Entries[0].ID, "urn:uuid:") || !strings.HasPrefix(f.ID, "urn:uuid:") {
		t.Fatalf("feed id %q, entries %+v: want urn:uuid: ids", f.ID, f.Entries)
	}
	if f.Entries[1].Link.Href != "2020-11-22.html" {
		t.Errorf("link without site URL = %q", f.Entries[1].Link.Href)
	}
	if c := f.Entries[1].Content; c.Type != "html" || !strings.Contains(c.Body, "Hello world") || !strings.Contains(c.Body, "Example Blog") {
		t.Errorf("content %+v", c)
	}
	// Ids stay with the installation, user and date, whatever other
	// digests the feed lists; another installation's differ.
	same, _ := AtomFeed("ada", nil, testSite, ds[1:], utc("2020-11-24T00:05:00Z"))
	if !strings.Contains(string(same), "<id>"+f.Entries[1].ID+"</id>") || !strings.Contains(string(same), "<id>"+f.ID+"</id>") {
		t.Error("ids change with the other digests or the time")
	}
	other, _ := AtomFeed("ada", nil, AtomSite{Installation: "another"}, ds, utc("2020-11-23T00:05:00Z"))
	if strings.Contains(string(other), f.ID) || strings.Contains(string(other), f.Entries[0].ID) || strings.Contains(string(other), f.Entries[1].ID) {
		t.Error("two installations share ids")
	}
	if strings.Contains(string(out), `rel="self"`) {
		t.Error("a self link without a site URL")
	}
	again, _ := AtomFeed("ada", nil, AtomSite{URL: "https://example.org/digest", Installation: "ignored"}, ds[1:], utc("2020-11-23T00:05:00Z"))
	for _, want := range []string{
		"<id>https://example.org/digest/ada/feed.xml</id>",
		"<id>https://example.org/digest/ada/2020-11-22.html</id>",
		`<link rel="self" type="application/atom+xml" href="https://example.org/digest/ada/feed.xml">`,
		`href="https://example.org/digest/ada/2020-11-22.html"`,
	} {
		if !strings.Contains(string(again), want) {
			t.Errorf("no %s with a site URL:\n%s", want, again)
		}
	}
}

// TestStylesheetContrast checks WCAG AA (4.5:1) for text colours against
// the background, in both colour schemes.
func TestStylesheetContrast(t *testing.T) {
	css := string(stylesheet)
	dark := strings.Index(css, "prefers-color-scheme:dark")
	if dark < 0 {
		t.Fatal("no dark scheme")
	}
	for name, part := range map[string]string{"light": css[:dark], "dark": css[dark:]} {
		vars := cssVars(part)
		for _, fg := range []string{"--fg", "--mu", "--a", "--av"} {
			if r := contrast(vars[fg], vars["--bg"]); r < 4.5 {
				t.Errorf("%s scheme: %s %s on %s has contrast %.2f, want >= 4.5", name, fg, vars[fg], vars["--bg"], r)
			}
		}
	}
}

var cssVar = regexp.MustCompile(`(--[a-z]+):(#[0-9a-fA-F]{3,6})`)

func cssVars(css string) map[string]string {
	m := map[string]string{}
	for _, v := range cssVar.FindAllStringSubmatch(css, -1) {
		if _, ok := m[v[1]]; !ok {
			m[v[1]] = v[2]
		}
	}
	return m
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(hex string) float64 {
	hex = strings.TrimPrefix(hex, "#")
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	var l float64
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		v, _ := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += w * c
	}
	return l
}

func TestStatusSaysGoneFeedsAreNeverPolled(t *testing.T) {
	page, err := StatusPage([]FeedStatus{
		{URL: "https://gone.example/feed", State: "gone", LastStatus: 410, LastError: "HTTP 410 Gone"},
		{URL: "https://new.example/feed", State: "new"},
	}, nil, time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	gone := s[strings.Index(s, "gone.example"):strings.Index(s, "new.example")]
	if !strings.Contains(gone, ">never<") || strings.Contains(gone, "subscriber is due") {
		t.Errorf("a gone feed's next poll should be never:\n%s", gone)
	}
	if !strings.Contains(s[strings.Index(s, "new.example"):], "when a subscriber is due") {
		t.Error("a new feed waits for a subscriber")
	}
}

// A feed.xml written again copies the entries of the digests it had,
// byte for byte, without their titles; never one of another site or of
// a digest built again.
func TestAtomFeedKeeping(t *testing.T) {
	site := AtomSite{URL: "https://example.org/digest", Installation: "this"}
	now := utc("2020-11-23T00:05:00Z")
	full := []Digest{emptyDigest(t), goldenDigest(t)}
	before, err := AtomFeed("ada", nil, site, full, now)
	if err != nil {
		t.Fatal(err)
	}
	kept := ReadAtomEntries(bytes.NewReader(before))
	bare := make([]Digest, len(full))
	for i, d := range full {
		bare[i] = Digest{User: d.User, Date: d.Date, BuiltAt: d.BuiltAt}
		if !kept.Keeps("ada", nil, site, d.Date, d.BuiltAt) {
			t.Errorf("%s not kept", d.Date)
		}
	}
	var again bytes.Buffer
	if err := WriteAtomFeedKeeping(&again, "ada", nil, site, bare, now, kept); err != nil {
		t.Fatal(err)
	}
	if again.String() != string(before) {
		t.Errorf("feed written again from its kept entries differs:\n%s\nwant\n%s", again.String(), before)
	}
	d := full[1]
	for name, keeps := range map[string]bool{
		"another site":  kept.Keeps("ada", nil, AtomSite{URL: "https://other.example/"}, d.Date, d.BuiltAt),
		"no site":       kept.Keeps("ada", nil, AtomSite{Installation: "this"}, d.Date, d.BuiltAt),
		"built again":   kept.Keeps("ada", nil, site, d.Date, d.BuiltAt.Add(time.Second)),
		"build unknown": kept.Keeps("ada", nil, site, d.Date, time.Time{}),
		"another user":  kept.Keeps("bob", nil, site, d.Date, d.BuiltAt),
		"nothing read":  ReadAtomEntries(strings.NewReader("<feed")).Keeps("ada", nil, site, d.Date, d.BuiltAt),
	} {
		if keeps {
			t.Errorf("%s: entry kept", name)
		}
	}
}

// testSite is an installation without site_url.
var testSite = AtomSite{Installation: "3b0a6d55-8f0e-4c1e-9d2a-6f1c2b7e4a10"}

// A user's index shows the archive near its top, before the newest
// digest: the newest few open, the older ones folded away; a digest's
// "Archive" link opens the index at that list.
func TestIndexShowsTheArchiveFirst(t *testing.T) {
	d := sampleDigest(t)
	var refs []DigestRef
	for day := 1; day <= 10; day++ {
		refs = append(refs, DigestRef{Date: fmt.Sprintf("2020-11-%02d", day), Entries: day})
	}
	page, err := IndexPage("ada", nil, &d, refs)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	archive, newest := strings.Index(s, `<section id="archive">`), strings.Index(s, "The newest digest")
	if archive < 0 || newest < 0 || archive > newest {
		t.Fatalf("the archive (at %d) does not come before the newest digest (at %d)", archive, newest)
	}
	doc := htmltest.Parse(t, s)
	open := doc.Find("#archive > ul > li a")
	folded := doc.Find("#archive details li a")
	if open.Length() != RecentDigests || folded.Length() != 10-RecentDigests || open.First().AttrOr("href", "") != "2020-11-10.html" {
		t.Errorf("archive: %d open (first %s), %d folded; want the newest %d open", open.Length(), open.First().AttrOr("href", ""), folded.Length(), RecentDigests)
	}
	if got := doc.Find("#archive summary").Text(); got != "3 older digests" {
		t.Errorf("folded archive says %q", got)
	}
}
