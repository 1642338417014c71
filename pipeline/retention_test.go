package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/internal/feedtest"
	"feeddigest/internal/pgtest"
	"feeddigest/store"
	"feeddigest/store/storetest"
)

// A personal blog whose feed keeps its last ten posts for months (a post
// every three weeks, so each stays listed for seven months), read by
// daily runs for half a year with the default retention of 60 days: the
// state forgets no post while the feed lists it, so none is shown twice
// when the feed changes again, and none of those the first digest left
// out (older than its newest five) is shown later.
func TestBlogKeepingItsPostsForMonths(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		const days, every, window = 150, 21, 10
		pub := feedtest.Start(t)
		pub.SetWindow(window)
		cfg := testConfig(t, state, fmt.Sprintf(`
[[users]]
name = "ada"
timezone = "UTC"
digest_hour = 7
feeds = [%q]
`, pub.URL+"/blog"), "")
		if cfg.Retention != 60*24*time.Hour {
			t.Fatalf("retention %v, want the default 60 days", cfg.Retention)
		}
		start := at("2026-06-01T08:00:00Z")
		n := 0
		post := func(published time.Time) string {
			n++
			id := fmt.Sprintf("post-%d", n)
			pub.Add("/blog", feedtest.Entry{ID: id, Title: "Post " + id, Body: "<p>Words of " + id + ".</p>", Published: published})
			return id
		}
		// The blog as first read: its last ten posts (and two older it no
		// longer lists), one every three weeks.
		var before []string
		for i := 12; i > 0; i-- {
			before = append(before, post(start.AddDate(0, 0, -every*i)))
		}
		var later []string
		for d := range days {
			now := start.AddDate(0, 0, d)
			if d > 0 && d%every == 0 {
				later = append(later, post(now.Add(-3*time.Hour)))
			}
			runAt(t, cfg, now.Format(time.RFC3339))
		}
		got := delivered(t, cfg, "ada")
		// The first digest shows the five newest the feed listed, and
		// leaves out the five before them for good.
		checkShownOnce(t, got, before, later)
	})
}

// A state copied into PostgreSQL (migrate) keeps when each entry left its
// feed: the copy prunes what the original would, no sooner and no later.
func TestMigrateCopiesWhenEntriesLeftTheirFeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDatabase(t)
	const url = "https://blog.example/feed"
	cfg := testConfig(t, onSQLite, fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [%q]\n", url), "")
	day := func(n int) time.Time { return at("2026-06-01T08:00:00Z").AddDate(0, 0, n) }
	st, err := store.Open(ctx, cfg.State)
	if err != nil {
		t.Fatal(err)
	}
	f := storetest.Subscribe(t, st, map[string][]string{"ada": {url}}, day(0))[url]
	saveKeys(t, st, f, day(0), "id:1", "id:2")
	saveKeys(t, st, f, day(10), "id:2") // id:1 leaves
	st.Close()
	if _, err := Migrate(ctx, cfg, db); err != nil {
		t.Fatal(err)
	}
	moved, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer moved.Close()
	for _, c := range []struct {
		at   time.Time
		want int64
	}{{day(69), 0}, {day(71), 1}, {day(200), 0}} {
		if n, err := moved.Prune(ctx, c.at.Add(-cfg.Retention)); n != c.want || err != nil {
			t.Errorf("the copy pruned at %s: %d entries (%v), want %d", c.at.Format(time.DateOnly), n, err, c.want)
		}
	}
}

// saveKeys saves a poll of f at now whose body lists entries with keys.
func saveKeys(t *testing.T, st store.Store, f domain.Feed, now time.Time, keys ...string) {
	t.Helper()
	ctx := context.Background()
	tx, err := st.BeginPoll(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var entries []domain.Entry
	for _, k := range keys {
		entries = append(entries, domain.Entry{Key: k, Title: "T " + k, Link: "https://blog.example/" + k})
	}
	if _, err := tx.SaveEntries(ctx, entries, now, 0); err != nil {
		t.Fatal(err)
	}
	if err := tx.UpdateFeed(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// deltaBlog is a blog's feed speaking RFC 3229 (A-IM: feed): a client
// that sends the ETag of an older version gets only the posts since, as
// 226 IM Used; else the whole feed, its last ten posts. Once whole is
// set, it answers every GET with the whole feed (a server that dropped
// delta support, or lost the versions it diffs against).
type deltaBlog struct {
	mu    sync.Mutex
	posts []time.Time // post-<i+1> published at posts[i]
	whole bool
	// deltas counts the 226 answers.
	deltas int
}

// version is the number of posts of the version an ETag names, if
// the blog had that many.
func (b *deltaBlog) version(etag string) (int, bool) {
	var v int
	if _, err := fmt.Sscanf(etag, `"v%d"`, &v); err != nil || v > len(b.posts) {
		return 0, false
	}
	return v, true
}

func (b *deltaBlog) add(at time.Time) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.posts = append(b.posts, at)
	return fmt.Sprintf("post-%d", len(b.posts))
}

func (b *deltaBlog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.posts)
	etag := fmt.Sprintf(`"v%d"`, n)
	w.Header().Set("Content-Type", "application/rss+xml")
	w.Header().Set("ETag", etag)
	w.Header().Set("Vary", "A-IM")
	inm := r.Header.Get("If-None-Match")
	if inm == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	from := max(0, n-10)
	if since, ok := b.version(inm); ok && !b.whole && r.Header.Get("A-IM") == "feed" {
		from = since
		b.deltas++
		w.Header().Set("IM", "feed")
		w.WriteHeader(http.StatusIMUsed)
	}
	fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://site.example/</link>`)
	for i := n - 1; i >= from; i-- {
		fmt.Fprintf(w, `<item><guid>post-%d</guid><title>Post %[1]d</title><link>https://site.example/post-%[1]d</link>
<description>&lt;p&gt;Words of post %[1]d.&lt;/p&gt;</description><pubDate>%s</pubDate></item>`, i+1, b.posts[i].Format(time.RFC1123Z))
	}
	fmt.Fprint(w, `</channel></rss>`)
}

// A blog whose server sends only the posts since the last poll (226 IM
// Used), read daily for five months: a delta leaves out posts the feed
// still lists, so when the server sends the whole feed again (here after
// four months) none of them is new: none shown twice, none of those the
// first digest left out shown.
func TestDeltaFeedKeepsItsPostsForMonths(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		// The store's tests save deltas on both states; this one's 150
		// passes are for the full run on PostgreSQL.
		longOnPostgres(t, state)
		const days, every, wholeFrom = 150, 21, 130
		blog := &deltaBlog{}
		ts := httptest.NewServer(blog)
		t.Cleanup(ts.Close)
		cfg := testConfig(t, state, fmt.Sprintf("[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\ndigest_hour = 7\nfeeds = [%q]\n",
			ts.URL+"/blog"), "")
		start := at("2026-06-01T08:00:00Z")
		var before, later []string
		for i := 12; i > 0; i-- {
			before = append(before, blog.add(start.AddDate(0, 0, -every*i)))
		}
		for d := range days {
			now := start.AddDate(0, 0, d)
			if d > 0 && d%every == 0 {
				later = append(later, blog.add(now.Add(-3*time.Hour)))
			}
			if d == wholeFrom {
				blog.mu.Lock()
				blog.whole = true
				blog.mu.Unlock()
			}
			runAt(t, cfg, now.Format(time.RFC3339))
		}
		blog.mu.Lock()
		deltas := blog.deltas
		blog.mu.Unlock()
		if deltas < 5 {
			t.Fatalf("%d answers were deltas (226): the test proves little", deltas)
		}
		got := delivered(t, cfg, "ada")
		checkShownOnce(t, got, before, later)
	})
}

// checkShownOnce: of the posts a blog listed before the first digest,
// only the five newest are shown, once; every later post is shown once.
func checkShownOnce(t *testing.T, got map[string]int, before, later []string) {
	t.Helper()
	for i, id := range before {
		want := 0
		if i >= len(before)-5 {
			want = 1
		}
		if got[id] != want {
			t.Errorf("%s, posted before the first digest: in %d digests, want %d", id, got[id], want)
		}
	}
	for _, id := range later {
		if got[id] != 1 {
			t.Errorf("%s: in %d digests, want 1", id, got[id])
		}
	}
}
