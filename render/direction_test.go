package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/domain"
	"feeddigest/internal/htmltest"
)

// rtlDigest has a Hebrew feed that names its language, a short entry and
// a long one, beside a feed that names none.
func rtlDigest(t *testing.T) Digest {
	d := sampleDigest(t)
	d.Groups = append(d.Groups, FeedGroup{
		FeedURL: "https://he.example/feed", FeedName: "יומן", Lang: "he", Folder: "עברית",
		Entries: []domain.Entry{
			{Title: "שלום עולם", Link: "https://he.example/1", Author: "דנה", Content: "<p>רשומה קצרה.</p>"},
			{Title: "רשומה ארוכה", Link: "https://he.example/2",
				Content: "<p>" + strings.Repeat("מילים רבות על מזג האוויר היום. ", 20) + "</p>"},
		},
	})
	d.Problems = []Problem{{FeedName: "בלוג שבור", Problem: domain.Problem{FeedURL: "https://he.example/broken",
		State: domain.ProblemFailing, Reason: "timed out", Since: d.BuiltAt}}}
	return d
}

// Feed-supplied text sits in elements that take their direction from
// the text, and the feed's language where it gives one.
func TestFeedTextHasDirectionAndLanguage(t *testing.T) {
	d := rtlDigest(t)
	doc, _ := digestDoc(t, d)
	page := doc.Find("main")
	// Every piece of feed text, by where it is shown.
	pieces := map[string]string{
		"folder heading":  "h2.d",
		"feed heading":    ".f",
		"entry title":     ".e",
		"author and feed": "article p.m span",
		"contents name":   `nav[aria-label="Contents"] a[href^="#feed-"], nav[aria-label="Contents"] li > span:not(.m)`,
		"notice feed":     "section:not(#unread) li strong",
		"unread feed":     "#unread strong",
	}
	for what, sel := range pieces {
		found := page.Find(sel)
		if found.Length() == 0 {
			t.Errorf("%s: nothing matches %s", what, sel)
		}
		found.Each(func(_ int, s *goquery.Selection) {
			if s.AttrOr("dir", "") != "auto" {
				t.Errorf("%s %q has no dir=auto", what, s.Text())
			}
		})
	}
	he := page.Find(`section[id]`).FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Find(".f").Text() == "יומן" })
	if he.Length() != 1 {
		t.Fatal("no section of the Hebrew feed")
	}
	for _, sel := range []string{".e", "article > p:not(.m)", "article > div", "details > div"} {
		he.Find(sel).Each(func(_ int, s *goquery.Selection) {
			if s.AttrOr("lang", "") != "he" || s.AttrOr("dir", "") != "auto" {
				t.Errorf("Hebrew %s %q: dir=%q lang=%q", sel, s.Text(), s.AttrOr("dir", ""), s.AttrOr("lang", ""))
			}
		})
	}
	if author := he.Find("p.m span").First(); author.Text() != "דנה" || author.AttrOr("lang", "") != "he" {
		t.Errorf("the author %q is not in the feed's language", author.Text())
	}
	if n := page.Find("[lang]").NotSelection(he.Find("[lang]")).Length(); n != 0 {
		t.Errorf("%d elements outside the Hebrew feed claim a language it did not give", n)
	}
	if page.Find("article p.m time[lang], article p.m[lang]").Length() != 0 {
		t.Error("our own words (dates, 'first seen') are marked as the feed's language")
	}

	_, html := emailParts(t, d)
	mail := htmltest.Parse(t, html)
	for _, sel := range []string{"h3, h4", "p span"} {
		mail.Find(sel).Each(func(_ int, s *goquery.Selection) {
			if strings.Contains(s.AttrOr("style", ""), "color:#555555") && s.Parent().Is("li") {
				return // a count in the contents, ours
			}
			if s.AttrOr("dir", "") != "auto" {
				t.Errorf("email: %s %q has no dir=auto", sel, s.Text())
			}
		})
	}
	if got := mail.Find(`[lang="he"]`).Length(); got < 4 {
		t.Errorf("email: %d elements with lang=he", got)
	}
}

// A short entry's text is shown once: its content stands where the
// excerpt would, with its links, and no "Read it all" repeats it. A long
// one has its excerpt and its content folded away.
func TestShortEntryShownOnce(t *testing.T) {
	d := rtlDigest(t)
	doc, page := digestDoc(t, d)
	short := doc.Find(`article:has(a[href="https://he.example/1"])`)
	if short.Find("details").Length() != 0 {
		t.Error("a short entry has a Read it all repeating it")
	}
	if n := strings.Count(string(page), "רשומה קצרה."); n != 1 {
		t.Errorf("the short entry's text is on the page %d times", n)
	}
	if short.Find("article > div > p").Text() != "רשומה קצרה." {
		t.Error("the short entry's content is not shown in place of its excerpt")
	}
	long := doc.Find(`article:has(a[href="https://he.example/2"])`)
	if long.Find("details").Length() != 1 || long.Find("article > p:not(.m)").Length() != 1 {
		t.Error("a long entry lacks its excerpt or its folded content")
	}
	// The sample's short entry with links keeps them.
	hello := doc.Find(`article:has(a[href="https://blog.example.org/posts/hello"])`)
	if hello.Find(`a[href="https://blog.example.org/about"]`).Length() != 1 || hello.Find("img").Length() != 1 {
		t.Error("a short entry shown whole lost its links or image")
	}
	// An entry with no text (an image alone) keeps its folded content.
	d.Groups[0].Entries[0].Content = `<p><img src="https://blog.example.org/cat.png" alt="A cat"></p>`
	doc, _ = digestDoc(t, d)
	if doc.Find(`article:has(a[href="https://blog.example.org/posts/hello"]) details`).Length() != 1 {
		t.Error("an entry without text lost its folded content")
	}
}

// The line under an entry's title names its author and time, not the
// feed its section names, and aligns with the entry: right to left under
// a Hebrew title, the page's own direction under an English one; with
// neither author nor time there is no line at all.
func TestMetaLineFollowsTheEntry(t *testing.T) {
	d := rtlDigest(t)
	d.Groups[0].Entries = append(d.Groups[0].Entries, domain.Entry{Link: "https://blog.example.org/bare", Content: "<p>No time, no author.</p>"})
	cases := []struct {
		link, text, dir string
	}{
		{"https://he.example/1", "דנה · 21 Nov 2020, 14:05", "rtl"},
		{"https://he.example/2", "", "rtl"},
		{"https://blog.example.org/posts/hello", "Ada · 21 Nov 2020, 14:05", ""},
		{"https://blog.example.org/bare", "", ""},
	}
	he := &d.Groups[len(d.Groups)-1]
	he.Entries[0].Published = utc("2020-11-21T14:05:00Z")
	doc, _ := digestDoc(t, d)
	_, mailHTML := emailParts(t, d)
	mail := htmltest.Parse(t, mailHTML)
	for _, c := range cases {
		meta := doc.Find(`article:has(a[href="` + c.link + `"]) p.m`)
		if c.text == "" {
			if meta.Length() != 0 {
				t.Errorf("%s: a meta line %q without author or time", c.link, meta.Text())
			}
		} else if meta.Text() != c.text || meta.AttrOr("dir", "") != c.dir {
			t.Errorf("%s: meta line %q dir=%q, want %q dir=%q", c.link, meta.Text(), meta.AttrOr("dir", ""), c.text, c.dir)
		}
		if c.text == "" {
			continue
		}
		// Our words in a right-to-left line (a time, "2 min read") are
		// isolated left to right, or the day before the month would be
		// moved to the line's far end ("Nov 2020, 14:05 21").
		if tm := meta.Find("time"); c.dir == "rtl" && tm.AttrOr("dir", "") != "ltr" {
			t.Errorf("%s: time %q in a right-to-left line, not isolated left to right", c.link, tm.Text())
		}
		line := mail.Find(`h3:has(a[href="` + c.link + `"]), h4:has(a[href="` + c.link + `"])`).Next()
		if line.Text() != c.text || line.AttrOr("dir", "") != c.dir {
			t.Errorf("email %s: meta line %q dir=%q, want %q dir=%q", c.link, line.Text(), line.AttrOr("dir", ""), c.text, c.dir)
		}
		if c.dir == "rtl" && line.Find(`span[dir="ltr"]`).Length() == 0 {
			t.Errorf("email %s: the time in a right-to-left line is not isolated left to right", c.link)
		}
	}
}

// In the plain-text email every line of a wrapped paragraph reads in the
// paragraph's direction, as a plain-text client takes a line's direction
// from its first letter that has one: the lines of a Hebrew excerpt
// that wrap to start with an English phrase in brackets start with a
// right-to-left mark, and an English paragraph's line that wraps to start
// with Hebrew with a left-to-right one.
func TestTextPartLinesKeepTheirParagraphsDirection(t *testing.T) {
	for _, c := range []struct {
		file string
		rtl  bool
	}{
		{"hebrew-bracket.txt", true},
		{"english-quoting-hebrew.txt", false},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "rtl", c.file))
		if err != nil {
			t.Fatal(err)
		}
		sample := strings.TrimSpace(string(raw))
		d := sampleDigest(t)
		d.Groups = d.Groups[:1]
		d.Groups[0].Entries = []domain.Entry{{Title: "T", Link: "https://blog.example.org/t", Content: "<p>" + sample + "</p>"}}
		text, _ := emailParts(t, d)
		var lines []string
		for _, line := range strings.Split(text, "\n") {
			unmarked := strings.NewReplacer(leftToRightMark, "", rightToLeftMark, "").Replace(line)
			if unmarked != "" && strings.Contains(sample, strings.TrimSpace(unmarked)) {
				lines = append(lines, line)
			}
		}
		if len(lines) < 2 {
			t.Fatalf("%s: the sample is on %d lines of the text part:\n%s", c.file, len(lines), text)
		}
		misread := false // would a line read the other way without its mark?
		for _, line := range lines {
			words := strings.TrimLeft(line, " ")
			if rtl, _ := strongDirection(words); rtl != c.rtl {
				t.Errorf("%s: line %q reads the other way (rtl %v)", c.file, line, rtl)
			}
			if rtl, _ := strongDirection(strings.TrimLeft(words, leftToRightMark+rightToLeftMark)); rtl != c.rtl {
				misread = true
			}
			if !strings.HasPrefix(line, "  ") {
				t.Errorf("%s: line %q lost its indent", c.file, line)
			}
		}
		if !misread {
			t.Errorf("%s: no line of the sample wraps to start in the other direction; the test proves nothing", c.file)
		}
	}
}
