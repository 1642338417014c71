package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"feeddigest/config"
)

// site is a publisher's feed whose items the test sets between runs,
// counting the requests it answers.
type publisher struct {
	mu       sync.Mutex
	body     string
	requests int
}

func (s *publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	w.Header().Set("Content-Type", "application/rss+xml")
	fmt.Fprint(w, s.body)
}

func (s *publisher) set(items string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = `<?xml version="1.0"?><rss version="2.0"><channel><title>Site</title><link>https://site.example/</link>` +
		items + `</channel></rss>`
}

func (s *publisher) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.requests
	s.requests = 0
	return n
}

func item(guid, link, title, text string, published time.Time) string {
	return fmt.Sprintf(`<item><guid isPermaLink="false">%s</guid><link>%s</link><title>%s</title><description>%s</description><pubDate>%s</pubDate></item>`,
		guid, link, title, text, published.Format(time.RFC1123Z))
}

// listedLinks counts, over every digest of user, how many digests list
// each entry link, and fails on a digest that lists one twice.
func listedLinks(t *testing.T, cfg *config.Config, user string) map[string]int {
	t.Helper()
	st, err := openState(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	digests, err := st.Digests(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, d := range digests {
		entries, _, err := st.DigestListing(context.Background(), user, d.Date, 0)
		if err != nil {
			t.Fatal(err)
		}
		onPage := map[string]bool{}
		for _, e := range entries {
			if onPage[e.Link] {
				t.Errorf("%s's digest of %s lists %s twice", user, d.Date, e.Link)
			}
			onPage[e.Link] = true
			counts[e.Link]++
		}
	}
	return counts
}

// A static site rebuilt twice a day gives every post a new guid at each
// build (a build id in it); links, titles and texts stay. Over a week of
// hourly runs each post reaches the digests once.
func TestRebuiltSiteDeliversEachPostOnce(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		pub := &publisher{}
		srv := httptest.NewServer(pub)
		defer srv.Close()
		cfg := testConfig(t, state, oneUser(t, srv.URL+"/feed.xml"), "")
		start := at("2026-11-02T09:30:00Z")
		var posts []time.Time
		for i := range 3 {
			posts = append(posts, start.Add(-time.Duration(3-i)*time.Hour))
		}
		rebuild := func(now time.Time) {
			build := now.Unix() / (12 * 3600)
			var items strings.Builder
			for i := len(posts) - 1; i >= 0; i-- {
				link := fmt.Sprintf("https://site.example/post-%d", i)
				items.WriteString(item(fmt.Sprintf("build-%d/post-%d", build, i), link, fmt.Sprintf("Post %d", i), "Text of the post.", posts[i]))
			}
			pub.set(items.String())
		}
		end := start.Add(7 * 24 * time.Hour)
		for now := start; now.Before(end); now = now.Add(time.Hour) {
			if now.Hour() == 15 {
				posts = append(posts, now) // a post a day
			}
			rebuild(now)
			runAt(t, cfg, now.Format(time.RFC3339))
		}
		got := listedLinks(t, cfg, "ada")
		for i := range posts {
			link := fmt.Sprintf("https://site.example/post-%d", i)
			if got[link] != 1 {
				t.Errorf("%s is in %d digests, want 1", link, got[link])
			}
		}
	})
}

// One feed written four ways in one user's list, and a fifth in
// another's, is one feed: one request a poll, each post once in each
// user's digests, over a week of hourly runs.
func TestOneFeedWrittenSeveralWaysIsPolledAndShownOnce(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		pub := &publisher{}
		srv := httptest.NewServer(pub)
		defer srv.Close()
		base := strings.TrimPrefix(srv.URL, "http://")
		users := fmt.Sprintf(`[[users]]
	name = "ada"
	timezone = "Europe/London"
	feeds = ["HTTP://%[1]s/x", "http://%[1]s/./x", "http://%[1]s/x#top", "http://%[1]s/x"]
	[[users]]
	name = "bob"
	timezone = "Asia/Tokyo"
	feeds = ["http://%[1]s/a/../x"]
	`, base)
		cfg := testConfig(t, state, users, "")
		if len(cfg.Warnings) != 3 {
			t.Errorf("warnings %q, want one for each repeat", cfg.Warnings)
		}
		start := at("2026-11-02T09:30:00Z")
		var items []string
		var postedAt []time.Time
		end := start.Add(7 * 24 * time.Hour)
		polls := 0
		for now := start; now.Before(end); now = now.Add(time.Hour) {
			if now.Hour()%8 == 3 {
				i := len(items)
				items = append([]string{item(fmt.Sprintf("p%d", i), fmt.Sprintf("https://site.example/post-%d", i), fmt.Sprintf("Post %d", i), "Text.", now)}, items...)
				pub.set(strings.Join(items, ""))
				postedAt = append(postedAt, now)
			}
			runAt(t, cfg, now.Format(time.RFC3339))
			switch n := pub.count(); {
			case n > 1:
				t.Errorf("run at %s: %d requests to the one feed", now.Format(time.RFC3339), n)
			case n == 1:
				polls++
			}
		}
		if polls < 14 {
			t.Errorf("%d polls in a week", polls)
		}
		for _, user := range []string{"ada", "bob"} {
			got := listedLinks(t, cfg, user)
			for i, posted := range postedAt {
				if posted.After(end.Add(-25 * time.Hour)) {
					continue // no digest since
				}
				if link := fmt.Sprintf("https://site.example/post-%d", i); got[link] != 1 {
					t.Errorf("%s: %s is in %d digests, want 1", user, link, got[link])
				}
			}
		}
	})
}

// words makes n bytes or so of text from a small vocabulary, as prose
// compresses.
func words(r *rand.Rand, n int) string {
	vocabulary := strings.Fields(`the a of to and in is it that for on was with as be at by this had not are but from or
		have an they which one you were her all she there would their we him been has when who will more no if out so said
		what up its about into than them can only other new some could time these two may then do first any my now such like
		our over man me even most made after also did many before must through back years where much your way well down should
		because each just those people how too little state good very make world still own see men work long get here between
		both life being under never day same another know while last might us great old year off come since against go came
		right used take three feed digest server rebuild entry guid poll window busy`)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
		b.WriteByte(' ')
	}
	return b.String()
}

// A feed serving 1,000 new guids at every poll (2 MB), polled hourly
// once it has overflowed, keeps the state small: past what a digest
// shows, entries are stored without texts, and forgotten once delivered
// and gone from the feed. The state file's size after the days of runs
// is printed, and bounded.
func TestMonthOfThousandNewGuidsAPollKeepsStateSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("a month of hourly runs over a 2 MB feed")
	}
	longWithoutRace(t)
	// Beside the other tests (its own server, folder and state): minutes
	// of work on one core at a time, which alone kept the other idle.
	t.Parallel()
	days := 30
	if s := os.Getenv("FEEDDIGEST_BUSY_DAYS"); s != "" {
		fmt.Sscan(s, &days)
		days = max(days, 2) // the checks below read the second digest
	}
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = words(r, 2000)
	}
	pub := &publisher{}
	srv := httptest.NewServer(pub)
	defer srv.Close()
	cfg := testConfig(t, onSQLite, oneUser(t, srv.URL+"/busy"), "")
	start := at("2026-11-02T09:30:00Z")
	end := start.Add(time.Duration(days) * 24 * time.Hour)
	next := 0
	polls := 0
	for now := start; now.Before(end); now = now.Add(time.Hour) {
		var items strings.Builder
		for i := range 1000 {
			n := next + 999 - i
			items.WriteString(item(fmt.Sprintf("urn:uuid:busy-%08d", n), fmt.Sprintf("https://busy.example/posts/%08d", n),
				fmt.Sprintf("Busy post %d", n), texts[n%len(texts)]+fmt.Sprint(n), now.Add(-time.Duration(i)*time.Second)))
		}
		next += 1000
		pub.set(items.String())
		runAt(t, cfg, now.Format(time.RFC3339))
		polls += pub.count()
		if now.Hour() == 9 {
			t.Logf("day %d: state %.1f MB", int(now.Sub(start).Hours()/24), float64(stateSize(cfg))/1e6)
		}
	}
	size := stateSize(cfg)
	t.Logf("state after %d days of a feed of 1,000 new guids a poll (%d polls): %.1f MB", days, polls, float64(size)/1e6)
	// Daily at first; once it overflows, the gap halves down to an hour.
	if polls < (days-4)*24 {
		t.Errorf("only %d polls in %d days: not polled hourly", polls, days)
	}
	if size > 20e6 {
		t.Errorf("state of %.1f MB after %d days, want under 20 MB", float64(size)/1e6, days)
	}
	// Each digest lists max_entries_per_feed of the feed, with texts.
	st, err := openState(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	digests, err := st.Digests(context.Background(), "ada")
	if err != nil || len(digests) < days {
		t.Fatalf("%d digests, %v", len(digests), err)
	}
	// (Of a digest's entries stored without texts, those delivered a day
	// ago and gone from the feed are forgotten since: its count was
	// taken when it was built.)
	entries, _, err := st.DigestListing(context.Background(), "ada", digests[1].Date, cfg.MaxEntriesPerFeed)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != cfg.MaxEntriesPerFeed || digests[1].EntryCount < 1000 {
		t.Fatalf("digest of %s lists %d entries of %d", digests[1].Date, len(entries), digests[1].EntryCount)
	}
	for _, e := range entries {
		if e.Fragments.Rules == 0 && e.Content == "" {
			t.Errorf("listed entry %s has no texts", e.Key)
		}
	}
}

// stateSize is the size of the state file and its write-ahead log.
func stateSize(cfg *config.Config) int64 {
	size := int64(0)
	for _, suffix := range []string{"", "-wal"} {
		if info, err := os.Stat(cfg.State + suffix); err == nil {
			size += info.Size()
		}
	}
	return size
}
