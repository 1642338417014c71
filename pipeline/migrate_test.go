package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/feedtest"
	"feeddigest/internal/pgtest"
	"feeddigest/store"
)

// withState is cfg with another state and its own site and outbox.
func withState(t *testing.T, cfg *config.Config, state string) *config.Config {
	t.Helper()
	c := *cfg
	dir := t.TempDir()
	c.State, c.SiteDir, c.Email.Outbox = state, filepath.Join(dir, "site"), filepath.Join(dir, "outbox")
	return &c
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// digestRecords reads a user's digests and the keys each lists, as
// comparable text.
func digestRecords(t *testing.T, cfg *config.Config, user string) []string {
	t.Helper()
	ctx := context.Background()
	st, err := OpenReader(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	digests, err := st.Digests(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range digests {
		entries, _, err := st.DigestListing(ctx, user, d.Date, 0)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, e := range entries {
			keys = append(keys, fmt.Sprintf("%s %s %s %s enclosures %+v shown %+v", e.FeedURL, e.Key,
				e.FirstSeen.UTC().Format(time.RFC3339), e.Content, e.Enclosures, e.Fragments))
		}
		out = append(out, fmt.Sprintf("%s %s since %s built %s, %d entries, notices %v, problems %v, backlogs %v, rendered %s\n  %s",
			d.User, d.Date, d.Since.UTC(), d.BuiltAt.UTC(), d.EntryCount, d.Notices, d.Problems, d.Backlogs, d.RenderedAt.UTC(),
			strings.Join(keys, "\n  ")))
	}
	return out
}

// feedRecords reads every feed record of a state, as comparable text.
func feedRecords(t *testing.T, cfg *config.Config) []string {
	t.Helper()
	st, err := OpenReader(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	feeds, err := st.Feeds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range feeds {
		f.LastPoll, f.LastSuccess, f.NextPoll, f.FirstError = f.LastPoll.UTC(), f.LastSuccess.UTC(), f.NextPoll.UTC(), f.FirstError.UTC()
		f.ProblemAt, f.ProblemSince, f.NextExtraPoll, f.LastGet = f.ProblemAt.UTC(), f.ProblemSince.UTC(), f.NextExtraPoll.UTC(), f.LastGet.UTC()
		out = append(out, fmt.Sprintf("%+v", f))
	}
	return out
}

// bFrench is feed /b with its language given, and a podcast's episode
// enclosed, as its first polls find it.
const bFrench = `<?xml version="1.0"?><rss version="2.0"><channel><title>B</title><link>https://site.example/b/</link>
<language>fr</language><item><guid>b-1</guid><title>Title b-1</title><description>&lt;p&gt;Body of b-1&lt;/p&gt;</description>
<enclosure url="https://site.example/b/b-1.mp3" type="audio/mpeg" length="12345"/>
<pubDate>Fri, 20 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>`

// A state copied from SQLite into PostgreSQL goes on as the SQLite one
// does: the digests built after the move, and their pages, are those
// built without it; the digests from before are all there.
func TestMigratedStateGoesOnAsTheOriginal(t *testing.T) {
	if testing.Short() {
		t.Skip("eighty hours of passes on both states")
	}
	t.Parallel() // with the other tests of a PostgreSQL state of their own, after the rest
	db := pgtest.NewDatabase(t)
	pub := feedtest.Start(t)
	for i := 1; i <= 9; i++ { // a first look passes over the four oldest
		pub.Add("/a", entry(fmt.Sprintf("a-%d", i), fmt.Sprintf("2026-11-%02dT10:00:00Z", i)))
	}
	pub.Add("/b", entry("b-1", "2026-11-20T10:00:00Z"))
	pub.Add("/gone", entry("gone-1", "2026-11-20T10:00:00Z"))
	// Before the move, /b gives its language and /gone is down: the copy
	// carries the feeds' languages and problems, and the first digests'
	// "Could not read".
	pub.Respond("/b", feedtest.Response{Status: 200, Header: http.Header{"Content-Type": {"application/rss+xml"}}, Body: bFrench})
	pub.Respond("/gone", feedtest.Response{Status: 500})
	cfg := testConfig(t, onSQLite, fmt.Sprintf(`
[[users]]
name = "ada"
timezone = "Europe/London"
email = "ada@example.org"
feeds = ["%[1]s", "%[2]s", "%[3]s"]
[[users]]
name = "kenji"
timezone = "Asia/Tokyo"
feeds = ["%[2]s", "%[3]s"]
`, pub.URL+"/a", pub.URL+"/b", pub.URL+"/gone"), "")
	// The move comes after the first digests and before the second: the
	// entries a first look passed over must stay passed over.
	const before, after = 3, 80
	start := at("2026-11-21T00:05:00Z")
	hour := func(h int) time.Time { return start.Add(time.Duration(h) * time.Hour) }
	post := func(h int) {
		if h%5 == 0 {
			pub.Add("/a", feedtest.Entry{ID: fmt.Sprintf("a-%d", 100+h), Title: "A", Body: fmt.Sprintf("<p>text %d</p>", h), Published: hour(h)})
		}
		if h%11 == 3 {
			pub.Add("/b", feedtest.Entry{ID: fmt.Sprintf("b-%d", 100+h), Title: "B", Body: "<p>b</p>", Published: hour(h)})
		}
		if h == before {
			pub.Respond("/b", feedtest.Response{})
			pub.Respond("/gone", feedtest.Response{})
		}
		if h == 20 {
			pub.Respond("/gone", feedtest.Response{Status: 410})
		}
	}
	for h := range before {
		post(h)
		runAt(t, cfg, hour(h).Format(time.RFC3339))
	}
	// And a run died reading /b: the next run, on either state, records
	// the poll as failed.
	markUnfinished(t, cfg.State, pub.URL+"/b", hour(before-1))
	// And /a's record counts article pages, as a full_text poll leaves it.
	editFeedRecord(t, cfg.State, pub.URL+"/a", func(f *domain.Feed) { f.ArticlesAsked, f.ArticlesRead = 4, 3 })
	control := withState(t, cfg, "")
	control.State = filepath.Join(filepath.Dir(control.SiteDir), "state.db")
	copyFile(t, cfg.State, control.State)

	n, err := Migrate(context.Background(), cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	if n.Feeds != 3 || n.Subscriptions != 5 || n.Entries == 0 || n.Digests != 2 || n.Given == 0 || n.Attempts != 1 {
		t.Fatalf("copied %+v", n)
	}
	if _, err := Migrate(context.Background(), cfg, db); !errors.Is(err, store.ErrNotEmpty) {
		t.Errorf("a second copy into the same database: %v, want ErrNotEmpty", err)
	}
	moved := withState(t, cfg, db)
	for _, user := range []string{"ada", "kenji"} {
		got, want := digestRecords(t, moved, user), digestRecords(t, cfg, user)
		if !slices.Equal(got, want) {
			t.Errorf("%s's digests copied:\n%s\nwant\n%s", user, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// Its problem as a code, HTTP status 500, not as words.
		if !strings.Contains(strings.Join(want, "\n"), "/gone failing {http 500 ") {
			t.Errorf("%s's digests before the move tell no coded problem with /gone: the test proves little\n%s", user, strings.Join(want, "\n"))
		}
		if user == "ada" && !strings.Contains(strings.Join(want, "\n"), "/a 5}]") {
			t.Errorf("ada's first digest does not record the 5 older entries of /a it left out: the test proves little\n%s", strings.Join(want, "\n"))
		}
		// The entries' enclosures and fragments (made when they were
		// stored) go over with them.
		if all := strings.Join(want, "\n"); !strings.Contains(all, "b-1.mp3") || !strings.Contains(all, fmt.Sprintf("Rules:%d Title:Title b-1", ingest.FragmentRules)) {
			t.Errorf("%s's digests before the move show no enclosure or no fragments: the test proves little\n%s", user, all)
		}
	}
	got, want := feedRecords(t, moved), feedRecords(t, cfg)
	if !slices.Equal(got, want) {
		t.Errorf("feed records copied:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if all := strings.Join(want, "\n"); !strings.Contains(all, "Language:fr") || !strings.Contains(all, "ProblemCode:{Kind:http Status:500 ") ||
		!strings.Contains(all, "ArticlesAsked:4 ArticlesRead:3") {
		t.Errorf("the feeds before the move have no language, problem or article pages: the test proves little\n%s", all)
	}
	for h := before; h < before+after; h++ {
		post(h)
		for _, c := range []*config.Config{control, moved} {
			if _, err := Run(context.Background(), c, Options{Now: hour(h)}); err != nil {
				t.Fatalf("run at %s on %s: %v", hour(h), c.State, err)
			}
		}
	}
	for _, user := range []string{"ada", "kenji"} {
		got, want := digestRecords(t, moved, user), digestRecords(t, control, user)
		if !slices.Equal(got, want) {
			t.Errorf("%s's digests after the move:\n%s\nwant (without the move)\n%s", user, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(got) < 4 {
			t.Errorf("%s has %d digests: the test proves little", user, len(got))
		}
		pages := sitePages(t, filepath.Join(control.SiteDir, user))
		movedPages := sitePages(t, filepath.Join(moved.SiteDir, user))
		if len(pages) < 3 || len(movedPages) != len(pages) {
			t.Errorf("%s: %d pages after the move, %d without it", user, len(movedPages), len(pages))
		}
		for path, page := range pages {
			if movedPages[path] != page {
				t.Errorf("%s's page %s differs after the move", user, path)
			}
		}
	}
}
