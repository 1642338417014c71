package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/London on machines without a zone database

	"feeddigest/domain"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/render")

// golden compares got with testdata/render/<name>.golden, or rewrites the
// file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "render", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s; run go test ./render/ -update and review the diff\n--- got:\n%s", name, path, got)
	}
}

func london(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// sampleDigest has a bit of everything: a relative entry link, an entry
// without a title, a feed without a name, notices, an intro and links.
func sampleDigest(t testing.TB) Digest {
	return Digest{
		User:      "ada",
		Email:     "ada@example.org",
		Date:      "2020-11-22",
		Location:  london(t),
		BuiltAt:   utc("2020-11-22T00:05:00Z"),
		IntroHTML: "<p>Good morning, Ada.</p>",
		Groups: []FeedGroup{
			{
				FeedURL:  "https://blog.example.org/feed.xml",
				FeedName: "Example <b>Blog</b>",
				SiteURL:  "https://blog.example.org/",
				Entries: []domain.Entry{
					{
						Title:     "Hello <em>world</em>",
						Link:      "/posts/hello",
						Author:    "Ada",
						Published: utc("2020-11-21T14:05:00Z"),
						FirstSeen: utc("2020-11-21T15:00:00Z"),
						Content: `<p>First post. See <a href="/about">about me</a> and ` +
							`<a href="https://other.example.com/x" rel="nofollow">a friend</a>.</p>` +
							`<p><img src="img/cat.png" alt="A cat"><img src="https://t.example/p.gif" width="1" height="1"></p>`,
					},
					{
						Link:      "https://blog.example.org/posts/note",
						FirstSeen: utc("2020-11-21T18:30:00Z"),
						Content:   "<p>Just a quick note about the weather today, which was grey and wet and long.</p>",
					},
				},
			},
			{
				FeedURL: "https://news.example.net/rss",
				Entries: []domain.Entry{
					{
						Title:     "Links of the week",
						Link:      "https://news.example.net/2020/links",
						Published: utc("2020-11-20T09:00:00Z"),
						Summary: `<ul><li><a href="https://other.example.com/y">Other</a></li>` +
							`<li><a href="https://www.third.example/">Third</a></li></ul>`,
					},
				},
			},
		},
		Notices: []Notice{
			{Notice: domain.Notice{FeedURL: "https://old.example.com/feed", Kind: "gone"}, FeedName: "Old Blog"},
			{Notice: domain.Notice{FeedURL: "https://moving.example.com/rss", Kind: "moved", NewURL: "https://moving.example.com/feed.xml"}, FeedName: "Moving Blog"},
		},
	}
}

// goldenDigest is sampleDigest as a reader who sorts their feeds sees it:
// the blog in a folder "Friends", the news feed without one, and an
// Arabic feed in "Friends" too, listed after the news feed (the digest
// gathers a folder's feeds at the place of its first) whose language is
// given and whose entry is longer than an excerpt; and a feed that could
// not be read. The others' entries are short: their content stands in
// for the excerpt.
func goldenDigest(t testing.TB) Digest {
	d := sampleDigest(t)
	d.Groups[0].Folder = "Friends"
	d.Prev, d.Next = "2020-11-21", "2020-11-23"
	d.Problems = []Problem{{FeedName: "Broken Blog", Problem: domain.Problem{FeedURL: "https://broken.example.com/feed",
		State: domain.ProblemFailing, Reason: "not found (404)", Since: utc("2020-11-19T23:05:00Z")}}}
	d.Groups = append(d.Groups, FeedGroup{
		FeedURL:  "https://ar.example.com/feed",
		FeedName: "مدونة المثال",
		Folder:   "Friends",
		Lang:     "ar",
		Entries: []domain.Entry{{
			Title:     "مرحبا بالعالم",
			Link:      "https://ar.example.com/2020/hello",
			Author:    "ليلى",
			Published: utc("2020-11-21T10:00:00Z"),
			// Longer than an excerpt: the page folds the whole away.
			Content: "<p>هذه تدوينة عن الطقس اليوم، مع <a href=\"https://ar.example.com/about\">رابط</a>.</p><p>" +
				strings.Repeat("كان الجو باردا وممطرا طوال اليوم، ثم خرجت الشمس في المساء. ", 5) + "</p>",
		}},
	})
	return d
}

func emptyDigest(t testing.TB) Digest {
	return Digest{
		User: "ada", Email: "ada@example.org", Date: "2020-11-23",
		Location: london(t), BuiltAt: utc("2020-11-23T00:05:00Z"),
	}
}

func sampleStatus() []FeedStatus {
	return []FeedStatus{
		{
			URL: "https://blog.example.org/feed.xml", Title: "Example Blog",
			LastPoll: utc("2020-11-22T00:01:00Z"), LastStatus: 304,
			NextPoll: utc("2020-11-22T01:00:00Z"), Reason: "max-age hint",
			State: "ok", Subscribers: []string{"ada", "bob"}, Entries: 12,
		},
		{
			URL: "https://moving.example.com/rss", EffectiveURL: "https://moving.example.com/feed.xml",
			Title: "Moving Blog", LastPoll: utc("2020-11-22T00:02:00Z"), LastStatus: 200,
			State: "moved", Subscribers: []string{"ada"},
		},
		{
			URL: "https://flaky.example.net/atom", Title: "Flaky <i>news</i>",
			LastPoll: utc("2020-11-22T00:03:00Z"), LastError: "dial tcp: connection refused",
			NextPoll: utc("2020-11-22T02:03:00Z"), Reason: "penalty (connection error)",
			ErrorCount: 3, State: "failing", Subscribers: []string{"bob"},
		},
		{URL: "https://new.example.org/feed", State: "ok", Subscribers: []string{"bob"}},
	}
}

func TestGoldenDigestPage(t *testing.T) {
	got, err := DigestPage(goldenDigest(t))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "digest", got)
}

func TestGoldenEmptyDay(t *testing.T) {
	d := emptyDigest(t)
	d.Prev = "2020-11-22" // the newest digest: no next one yet
	got, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "empty", got)
}

func TestGoldenIndex(t *testing.T) {
	d := goldenDigest(t)
	archive := []DigestRef{
		{Date: "2020-11-20", Entries: 1},
		{Date: "2020-11-22", Entries: 3},
		{Date: "2020-11-21", Entries: 0},
	}
	got, err := IndexPage("ada", &d, archive)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "index", got)
}

func TestGoldenIndexWithoutDigest(t *testing.T) {
	got, err := IndexPage("bob", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "index-empty", got)
}

func TestGoldenStatus(t *testing.T) {
	got, err := StatusPage(sampleStatus(), nil, utc("2020-11-22T00:10:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "status", got)
}

func TestGoldenAtom(t *testing.T) {
	got, err := AtomFeed("ada", "https://example.org/digest", []Digest{emptyDigest(t), goldenDigest(t)}, utc("2020-11-23T00:05:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "feed.xml", got)
}

func TestGoldenEmail(t *testing.T) {
	msg, err := EmailMessage(goldenDigest(t), "Digest <digest@example.org>", "https://example.org/digest/")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "email.eml", buf.Bytes())
}

func TestGoldenEmailEmptyDay(t *testing.T) {
	msg, err := EmailMessage(emptyDigest(t), "digest@example.org", "")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "email-empty.eml", buf.Bytes())
}
