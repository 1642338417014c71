package render

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/locale"
)

// goldenLanguages have golden files of their own: a page and the plain
// text of an email of the golden digest, read by a native reader.
var goldenLanguages = []string{"fr", "ja", "ar", "ru"}

func readerOf(t testing.TB, d Digest, tag string) Digest {
	t.Helper()
	l, err := locale.Match(tag)
	if err != nil {
		t.Fatal(err)
	}
	d.Lang = l
	return d
}

func TestGoldenLanguages(t *testing.T) {
	for _, tag := range goldenLanguages {
		d := readerOf(t, goldenDigest(t), tag)
		page, err := DigestPage(d)
		if err != nil {
			t.Fatal(err)
		}
		goldenCheck(t, "digest."+tag, page)
		e := buildEmail(t, d, "https://example.org/digest/")
		goldenCheck(t, "email."+tag+".txt", []byte("Subject: "+e.Subject+"\n\n"+e.Text))
	}
}

// rendered is everything a digest makes, in one reader's language.
type rendered struct {
	name string
	out  string
}

// renderAll makes every output of d in its language: the page, the
// email's two parts and Subject, the index with an archive, and the Atom
// feed.
func renderAll(t *testing.T, d Digest) []rendered {
	t.Helper()
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	e := buildEmail(t, d, "https://example.org/digest/")
	cut, err := DigestEmail(d, testFrom, "")
	if err != nil {
		t.Fatal(err)
	}
	short, err := cut.FirstEntries(1)
	if err != nil {
		t.Fatal(err)
	}
	archive := []DigestRef{{Date: d.Date, Entries: 3, Weekly: d.Weekly, Since: d.Since, BuiltAt: d.BuiltAt, Location: d.Location}}
	for i := range 9 {
		archive = append(archive, DigestRef{Date: time.Date(2020, 10, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), Entries: i})
	}
	index, err := IndexPage(d.User, d.Lang, &d, archive)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := IndexPage(d.User, d.Lang, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	atom, err := AtomFeed(d.User, d.Lang, AtomSite{URL: "https://example.org/digest/"}, []Digest{d}, d.BuiltAt)
	if err != nil {
		t.Fatal(err)
	}
	return []rendered{
		{"page", string(page)}, {"subject", e.Subject}, {"text", e.Text}, {"html", e.HTML},
		{"cut text", short.Text}, {"cut html", short.HTML}, {"index", string(index)}, {"empty index", string(empty)},
		{"atom", string(atom)},
	}
}

// variety is the golden digest and the others of testdata, and what none
// of them has: a weekly digest, a feed read again, a reminder, a mail in
// doubt, a dead feed's last error, an unknown problem's code.
func variety(t *testing.T) map[string]Digest {
	full := goldenDigest(t)
	weekly := goldenDigest(t)
	weekly.Weekly = true
	weekly.Since = weekly.BuiltAt.Add(-6 * 24 * time.Hour)
	weekly.MailInDoubt = "2020-11-15"
	weekly.Unsubscribe = "https://example.org/unsubscribe?u=ada"
	weekly.Problems = append(weekly.Problems,
		Problem{FeedName: "Flaky", Problem: domain.Problem{FeedURL: "https://flaky.example/feed", State: domain.ProblemRecovered, Reason: "server error (503)",
			Since: weekly.BuiltAt.Add(-48 * time.Hour), Until: weekly.BuiltAt.Add(-24 * time.Hour)}},
		Problem{FeedName: "Stubborn", Problem: domain.Problem{FeedURL: "https://stubborn.example/feed", State: domain.ProblemFailing, Reason: "timed out",
			Since: weekly.BuiltAt.Add(-200 * time.Hour), Again: true}},
		Problem{FeedName: "Dead", Problem: domain.Problem{FeedURL: "https://dead.example/feed", State: domain.ProblemDead, Reason: "could not connect: unknown host"}},
	)
	weekly.Notices = append(weekly.Notices, Notice{FeedName: "Dead", Notice: domain.Notice{FeedURL: "https://dead2.example/feed", Kind: domain.NoticeDead, Detail: "last error: HTTP 500"}},
		Notice{FeedName: "Elsewhere", Notice: domain.Notice{FeedURL: "https://elsewhere.example/feed", Kind: domain.NoticeOrigin, NewURL: "https://other.example/feed"}})
	return map[string]Digest{"full": full, "weekly": weekly, "busy": busyDigest(t), "empty": emptyDigest(t), "story": loadDigest(t, "digest-story")}
}

// leftovers is what a page must never show: a message's id, template
// syntax, an unfilled placeholder, a slot's mark.
var leftovers = regexp.MustCompile(`\{\{|<no value>|[\x{E000}-\x{E03F}]|\b(digest|count|entry|file|problem|reason|notice|links|index|atom|email|text|feed|left_out)\.[a-z_]+\b`)

// TestEveryLanguage renders every digest of testdata in every language
// on offer: each output names its language and direction, holds no
// message id, template syntax or unfilled placeholder, and no sentence of
// the English catalogue where the language has its own.
func TestEveryLanguage(t *testing.T) {
	digests := variety(t)
	english := englishPhrases()
	for _, lang := range locale.Offered() {
		l, err := locale.Match(lang.Tag)
		if err != nil {
			t.Fatal(err)
		}
		own := strings.Join(l.Texts(), "\n")
		for name, d := range digests {
			d.Lang = l
			for _, r := range renderAll(t, d) {
				where := lang.Tag + " " + name + " " + r.name
				for _, m := range leftovers.FindAllString(r.out, -1) {
					if !strings.HasSuffix(m, ".xml") && !strings.HasSuffix(m, ".html") { // files: feed.xml, index.html
						t.Errorf("%s shows %q", where, m)
					}
				}
				if lang.Tag != "en" {
					for _, phrase := range english {
						if strings.Contains(r.out, phrase) && !strings.Contains(own, phrase) {
							t.Errorf("%s shows the English %q", where, phrase)
						}
					}
				}
				switch r.name {
				case "page", "index", "empty index":
					want := `<html lang="` + lang.Tag + `"`
					if lang.Dir == "rtl" {
						want += ` dir="rtl"`
					}
					if !strings.Contains(r.out, want+">") {
						t.Errorf("%s does not open with %s>", where, want)
					}
				case "html":
					if !strings.Contains(r.out, `lang="`+lang.Tag+`" dir="`+lang.Dir+`"`) {
						t.Errorf("%s: the email's wrapper does not say lang %s dir %s", where, lang.Tag, lang.Dir)
					}
				case "atom":
					if !strings.Contains(r.out, `xml:lang="`+lang.Tag+`"`) {
						t.Errorf("%s does not say its xml:lang", where)
					}
				}
			}
		}
	}
}

// englishPhrases are the English catalogue's words that no other
// language shares by chance: the runs of three words or more between
// its placeholders.
func englishPhrases() []string {
	var out []string
	for _, text := range locale.English().Texts() {
		for _, run := range regexp.MustCompile(`\{\{[^}]*\}\}`).Split(text, -1) {
			run = strings.Trim(run, " ,.:;“”")
			if len(strings.Fields(run)) >= 3 && !slices.Contains(out, run) {
				out = append(out, run)
			}
		}
	}
	return out
}

// TestRightToLeftPage: an Arabic or Hebrew page reads right to left as a
// whole, while a feed's own text keeps its own direction and language,
// and an English entry's line of our words reads left to right with our
// words in the page's direction within it.
func TestRightToLeftPage(t *testing.T) {
	for _, tag := range []string{"ar", "he"} {
		page, err := DigestPage(readerOf(t, goldenDigest(t), tag))
		if err != nil {
			t.Fatal(err)
		}
		s := string(page)
		for _, want := range []string{
			`<html lang="` + tag + `" dir="rtl">`,
			`<h4 class="e" dir="auto" lang="ar">`, // the Arabic feed's own language
			`<p class="m" dir="ltr">`,             // an English entry's meta line
			`dir="rtl">`,                          // our words within it
		} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: the page lacks %s", tag, want)
			}
		}
	}
	page, err := DigestPage(readerOf(t, goldenDigest(t), "fr"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), `dir="rtl">`) && !strings.Contains(string(page), `<p class="m" dir="rtl">`) {
		t.Error("a French page marks our words right to left")
	}
}

// TestUnknownReasonKeepsItsWords: words an older version kept instead
// of a problem's code are shown as they were kept, never as an empty
// reason or a message id (its own words read as the code they stood
// for); a code of a kind this version does not know reads "could not be
// read".
func TestUnknownReasonKeepsItsWords(t *testing.T) {
	ja, _ := locale.Match("ja")
	none := domain.ProblemCode{}
	if got := reasonText(ja, none, "a reason from the future", time.UTC); got != "a reason from the future" {
		t.Errorf("unknown words: %q", got)
	}
	if got := reasonText(ja, none, "server error (503)", time.UTC); got != "サーバーエラー（503）" {
		t.Errorf("server error (503) in Japanese: %q", got)
	}
	if got := reasonText(ja, none, "", time.UTC); got != "読み込めません" {
		t.Errorf("no code: %q", got)
	}
	if got := reasonText(ja, domain.ProblemCode{Kind: "from-the-future"}, "", time.UTC); got != "読み込めません" {
		t.Errorf("a kind from a newer version: %q", got)
	}
}

// The test above finds English left in a language: a French page with
// one English sentence in it is caught.
func TestEnglishPhrasesAreFound(t *testing.T) {
	phrases := englishPhrases()
	if len(phrases) < 50 {
		t.Fatalf("only %d English phrases to look for: %q", len(phrases), phrases)
	}
	page, err := DigestPage(readerOf(t, goldenDigest(t), "fr"))
	if err != nil {
		t.Fatal(err)
	}
	leaked := strings.Replace(string(page), "Retour au sommaire", "Back to the contents", 1)
	found := slices.ContainsFunc(phrases, func(p string) bool { return strings.Contains(leaked, p) && !strings.Contains(string(page), p) })
	if !found {
		t.Error("an English sentence on a French page is not found")
	}
}

// TestStoredWordsInTheReadersLanguage: the few words a poll stores in an
// entry's fragments (an untitled entry's title, the words before a
// frame's link) are worded in the reader's language when the page is
// written, whatever language the poll ran in.
func TestStoredWordsInTheReadersLanguage(t *testing.T) {
	feed := "https://blog.example.org/feed.xml"
	untitled := domain.Entry{ID: 1, Link: "https://blog.example.org/empty", Published: time.Date(2020, 11, 21, 9, 0, 0, 0, time.UTC)}
	framed := domain.Entry{ID: 2, Title: "A talk", Link: "https://blog.example.org/talk", Published: time.Date(2020, 11, 21, 10, 0, 0, 0, time.UTC),
		Content: `<p>Watch it: <iframe src="https://www.youtube.com/embed/x1"></iframe> then <iframe src="https://maps.example/embed?q=a"></iframe></p><iframe src="https://www.youtube.com/embed/x2"></iframe>`}
	for _, e := range []*domain.Entry{&untitled, &framed} {
		e.Fragments = ingest.MakeFragments(feed, *e)
	}
	d := Digest{User: "ada", Date: "2020-11-22", BuiltAt: time.Date(2020, 11, 22, 0, 5, 0, 0, time.UTC),
		Groups: []FeedGroup{{FeedURL: feed, FeedName: "Blog", Entries: []domain.Entry{untitled, framed}}}}
	english, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Untitled post", "<p>Video: <a ", "<span> Video: <a ", "<span> Embedded page: <a "} {
		if !strings.Contains(string(english), want) {
			t.Errorf("the English page lacks %q", want)
		}
	}
	page, err := DigestPage(readerOf(t, d, "ja"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"無題の投稿", "<p>動画：<a ", "<span> 動画：<a ", "<span> 埋め込みページ：<a "} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the Japanese page lacks %q", want)
		}
	}
	for _, english := range []string{"Untitled post", "Video: ", "Embedded page: "} {
		if strings.Contains(string(page), english) {
			t.Errorf("the Japanese page says %q", english)
		}
	}
}
