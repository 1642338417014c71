package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/golden"
	"feeddigest/render"
)

// statusFixture is a status with what makes lines long: long titles and
// URLs, a title in wide (CJK) characters, feeds without a title, a move,
// network failures in words, long server notes, users in three zones and
// mail not sent.
func statusFixture(t *testing.T) statusReport {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	now := at("2026-11-22T16:10:00Z")
	return statusReport{
		now: now, zone: zone("Europe/London"), whose: "ada",
		feeds: []render.FeedStatus{
			{URL: "https://go.dev/blog/feed.atom", Title: "The Go Blog", State: "failing", LastPoll: at("2026-11-22T15:05:00Z"),
				LastError: "could not find the host go.dev (DNS lookup failed): check the URL or your network", ErrorCount: 3,
				NextPoll: at("2026-11-23T00:00:00Z"), Reason: "at ada's digest hour, 00:00 London, after its penalty (network error)",
				Server: "supports conditional requests (by ETag)"},
			{URL: "http://127.0.0.1:8000/feed.xml", State: "failing", LastPoll: at("2026-11-22T15:05:00Z"),
				LastError: "connection refused by 127.0.0.1:8000: is the server running?", ErrorCount: 1,
				NextPoll: at("2026-11-22T17:05:00Z"), Reason: "retry after its penalty (network error)"},
			{URL: "https://news.example.com/feeds/category/technology/subcategory/programming-languages/rss.xml?token=…",
				Title: "An Extraordinarily Long Title for a Weblog About Nothing in Particular, Volume Two", State: "ok",
				LastPoll: at("2026-11-22T15:05:00Z"), LastStatus: 200, NextPoll: at("2026-11-23T00:00:00Z"),
				Reason: "at ada's and 2 others' digest hour, 00:00 London",
				Server: "ignores conditional requests; a quick check (HEAD) by its Last-Modified first, a full download when it changed and at least weekly; its ETag stayed the same while the feed changed, so it is not used"},
			{URL: "https://moving.example.org/rss", EffectiveURL: "https://moving.example.org/feeds/all.atom.xml", Title: "Moving Blog",
				State: "moved", LastPoll: at("2026-11-22T11:05:00Z"), LastStatus: 304, NextPoll: at("2026-11-23T11:00:00Z"),
				Reason: "at grace's digest hour, 06:00 New York", Server: "supports conditional requests (by Last-Modified)"},
			{URL: "https://tokyo.example.jp/rss", Title: "東京の毎日ニュースと天気予報と季節の便り", State: "ok", LastPoll: at("2026-11-22T15:05:00Z"),
				LastStatus: 304, NextPoll: at("2026-11-29T15:00:00Z"), Reason: "at kenji's digest hour, 00:00 Tokyo",
				Server: "sends no ETag or Last-Modified, so a poll cannot ask whether the feed changed: every poll downloads the whole feed"},
			{URL: "https://a-very-long-host-name.example.net/path/to/a/feed/without/a/title/index.xml", State: "ok",
				LastPoll: at("2026-11-22T15:05:00Z"), LastStatus: 200, NextPoll: at("2026-11-23T00:00:00Z"),
				Reason: "at ada's digest hour, 00:00 London", Server: "offers conditional requests (by ETag)"},
			{URL: "https://old.example.com/feed", Title: "An Old Blog", State: "gone", LastPoll: at("2026-11-21T00:05:00Z"), LastStatus: 410,
				LastError: "HTTP 410 Gone", Reason: "gone (410): never polled again"},
			{URL: "https://new.example.com/feed", State: "new", Reason: "at ada's digest hour, 00:00 London"},
		},
		users: []render.UserStatus{
			{Name: "ada", Rhythm: "daily at 00:00 Europe/London", NextDigest: at("2026-11-23T00:00:00Z")},
			{Name: "grace", Rhythm: "daily at 06:00 America/New_York", NextDigest: at("2026-11-23T11:00:00Z")},
			{Name: "kenji", Rhythm: "weekly on Monday at 00:00 Asia/Tokyo", NextDigest: at("2026-11-29T15:00:00Z")},
			{Name: "lucia", Rhythm: "weekly on Wednesday at 06:00 America/Argentina/Buenos_Aires", Due: true},
		},
		mail: []render.MailStatus{{User: "grace", Unsent: []string{"2026-11-22"}, Attempts: 2,
			LastError: "451 4.3.0 mailbox temporarily unavailable", NextTry: at("2026-11-22T17:10:00Z")}},
	}
}

// `status` at 80 and 100 columns: every line fits, the times all in the
// header's zone, long titles cut with "…" and long URLs cut in their
// middle (and shown whole where a line has room), the long facts under
// each feed. The golden files show the layout.
func TestStatusFitsTheTerminal(t *testing.T) {
	for _, width := range []int{80, 100} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeStatus(&buf, statusFixture(t), width); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", fmt.Sprintf("status-%d.golden", width)), buf.Bytes())
			out := buf.String()
			for l := range strings.Lines(out) {
				if w := textWidth(strings.TrimSuffix(l, "\n")); w > width {
					t.Errorf("a line of %d columns: %q", w, l)
				}
			}
			for _, want := range []string{
				"Status at Sun 22 Nov 2026 16:10 GMT; times in Europe/London (ada's zone).",
				"An Extraordinarily Long Titl", "…",
				"  error: could not find the host go.dev (DNS lookup failed): check the URL or",
				"connection refused by 127.0.0.1:8000: is the server running?",
				"  https://moving.example.org/rss\n  now https://moving.example.org/feeds/all.atom.xml\n",
				"grace: 1 digest not sent (2026-11-22): a passing failure (2 attempts): 451",
				"22 Nov 17:10.",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in\n%s", want, out)
				}
			}
			if strings.Contains(out, "UTC") || strings.Contains(out, "JST") || strings.Contains(out, "2026-11-22 17:10") {
				t.Errorf("a time in another zone than the header's:\n%s", out)
			}
		})
	}
}

// Where the full table fits, each feed is one line of it, with every
// fact; at any width from the narrowest up, no line is wider than the
// width.
func TestStatusFullTableWhereThereIsRoom(t *testing.T) {
	rep := statusFixture(t)
	var buf bytes.Buffer
	if err := writeStatus(&buf, rep, 1000); err != nil {
		t.Fatal(err)
	}
	_, feeds, _ := strings.Cut(buf.String(), "\n\n")
	feeds, _, _ = strings.Cut(feeds, "\n\n")
	lines := strings.Split(feeds, "\n")
	if len(lines) != len(rep.feeds)+1 || !strings.HasPrefix(lines[0], "FEED ") || !strings.Contains(lines[0], " SERVER") {
		t.Fatalf("want a heading and a line per feed, got\n%s", feeds)
	}
	if !strings.Contains(lines[3], "An Extraordinarily Long Title for a Weblog About Nothing in Particular, Volume Two") ||
		!strings.Contains(lines[3], "programming-languages/rss.xml?token=…") || !strings.Contains(lines[3], "its ETag stayed the same") {
		t.Errorf("the full table cuts a line: %q", lines[3])
	}
	for width := minWidth; width <= 400; width++ {
		buf.Reset()
		writeStatus(&buf, rep, width)
		for l := range strings.Lines(buf.String()) {
			if w := textWidth(strings.TrimSuffix(l, "\n")); w > width {
				t.Fatalf("at %d columns, a line of %d: %q", width, w, l)
			}
		}
	}
}

// The width is $COLUMNS when set (a script's or an operator's choice),
// else the terminal's, else 80 (a pipe, a file: not a terminal).
func TestTerminalWidth(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	var buf bytes.Buffer
	for _, tt := range []struct {
		columns string
		want    int
	}{{"", defaultWidth}, {"132", 132}, {"abc", defaultWidth}, {"0", defaultWidth}, {"10", minWidth}} {
		if got := terminalWidth(&buf, env(tt.columns)); got != tt.want {
			t.Errorf("COLUMNS=%q, not a terminal: %d, want %d", tt.columns, got, tt.want)
		}
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := terminalWidth(f, env("")); got != defaultWidth {
		t.Errorf("a file: %d, want %d", got, defaultWidth)
	}
}

// Text is cut and wrapped by the columns it takes on a terminal.
func TestTextFit(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{cutEnd("A Calm Blog", 20), "A Calm Blog"},
		{cutEnd("A Calm Blog About Nothing", 10), "A Calm Bl…"},
		{cutEnd("東京の毎日ニュース", 9), "東京の毎…"},
		{cutURL("https://example.org/a/very/long/path/to/the/feed.xml", 36), "https://example.org/…/the/feed.xml"},
		{cutURL("https://example.org/a/very/long/path/to/the/feed.xml", 60), "https://example.org/a/very/long/path/to/the/feed.xml"},
		{cutURL("http://127.0.0.1:43719/missing.xml", 29), "http://127.0.0.1…/missing.xml"},
		{cutURL("https://example.org/feeds/a-very-long-name-of-a-feed-file.xml", 30), "https://exampl…a-feed-file.xml"},
		{cutURL("https://example.org/a/very/long/path/to/the/feed.xml", 32), "https://example.org/…/feed.xml"},
		{strings.Join(wrap("one two three four", "> ", "  ", 9), "|"), "> one two|  three|  four"},
		{strings.Join(wrap("abcdefghijkl", "", "", 5), "|"), "abcde|fghij|kl"},
	} {
		if tt.got != tt.want {
			t.Errorf("%q, want %q", tt.got, tt.want)
		}
	}
}
