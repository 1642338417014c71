package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/sqlite"
	"feeddigest/store"
)

func entry(id string, published string) feedtest.Entry {
	return feedtest.Entry{ID: id, Title: "Title " + id, Body: "<p>Body of " + id + "</p>", Published: at(published)}
}

// The Artemis rule: a feed polled at one user's midnight brings entries
// that every subscriber gets at their own next digest, even when their own
// poll is answered 304.
func TestEntriesReachEverySubscriberAtTheirOwnMidnight(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "kenji"
	timezone = "Asia/Tokyo"
	feeds = ["%[1]s"]
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	feeds = ["%[1]s"]
	`, pub.URL+"/a"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z") // first digests for both
		pub.Add("/a", entry("a-2", "2026-11-21T13:00:00Z"))

		sum := runAt(t, cfg, "2026-11-21T15:05:00Z") // midnight in Tokyo
		if sum.UsersDue != 1 || sum.NewEntries != 1 {
			t.Fatalf("Tokyo midnight: %+v", sum)
		}
		sum = runAt(t, cfg, "2026-11-22T00:05:00Z") // midnight in London
		if sum.UsersDue != 1 || sum.Unchanged != 1 || sum.NewEntries != 0 {
			t.Fatalf("London midnight: want one due user and a 304, got %+v", sum)
		}
		reqs := pub.Requests()
		if last := reqs[len(reqs)-1]; !strings.HasSuffix(last, " /a 304") {
			t.Fatalf("London's poll: %s (all: %v)", last, reqs)
		}
		for _, user := range []string{"kenji", "ada"} {
			page := readFile(t, filepath.Join(cfg.SiteDir, user, "2026-11-22.html"))
			if !strings.Contains(page, "https://site.example/a-2") {
				t.Errorf("%s's digest of 2026-11-22 lacks a-2", user)
			}
		}
	})
}

func TestSchedulingThroughRuns(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	digest_hour = 6
	feeds = ["%s"]
	`, pub.URL+"/a"), "")
		steps := []struct {
			now      string
			wantDue  int
			wantPoll int
			page     string
		}{
			{"2026-11-21T14:00:00Z", 1, 1, "2026-11-21"}, // first run: at once, mid-afternoon
			{"2026-11-21T14:40:00Z", 0, 0, ""},           // same hour again: nothing
			{"2026-11-22T05:05:00Z", 0, 0, ""},           // before digest_hour
			{"2026-11-22T06:05:00Z", 1, 1, "2026-11-22"}, // digest hour
			{"2026-11-22T07:05:00Z", 0, 0, ""},
			{"2026-11-25T09:05:00Z", 1, 1, "2026-11-25"}, // cron was off for days: one catch-up digest
		}
		for _, s := range steps {
			sum := runAt(t, cfg, s.now)
			if sum.UsersDue != s.wantDue || sum.FeedsPolled != s.wantPoll {
				t.Fatalf("at %s: due %d polled %d, want %d %d", s.now, sum.UsersDue, sum.FeedsPolled, s.wantDue, s.wantPoll)
			}
			if s.page != "" {
				if _, err := os.Stat(filepath.Join(cfg.SiteDir, "ada", s.page+".html")); err != nil {
					t.Fatalf("at %s: %v", s.now, err)
				}
			}
		}
		pages, _ := filepath.Glob(filepath.Join(cfg.SiteDir, "ada", "????-??-??.html"))
		if len(pages) != 3 {
			t.Errorf("pages %v, want 3 (no page per missed day)", pages)
		}
	})
}

func TestFirstDigestShowsFiveNewestPerFeed(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		for i := 1; i <= 8; i++ {
			pub.Add("/a", entry(fmt.Sprintf("a-%d", i), fmt.Sprintf("2026-11-1%dT10:00:00Z", i)))
		}
		pub.Add("/b", entry("b-1", "2026-11-10T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		got := keys(delivered(t, cfg, "ada"))
		want := []string{"a-4", "a-5", "a-6", "a-7", "a-8"}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("first digest entries %v, want %v", got, want)
		}

		// A feed added later also starts with its five newest; the old feed
		// only brings what is new.
		for i := 2; i <= 7; i++ {
			pub.Add("/b", entry(fmt.Sprintf("b-%d", i), fmt.Sprintf("2026-11-1%dT11:00:00Z", i)))
		}
		pub.Add("/a", entry("a-9", "2026-11-21T18:00:00Z"))
		cfg2 := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	feeds = ["%s", "%s"]
	`, pub.URL+"/a", pub.URL+"/b"), "")
		cfg2.State, cfg2.SiteDir = cfg.State, cfg.SiteDir
		runAt(t, cfg2, "2026-11-22T00:05:00Z")
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html"))
		for _, id := range []string{"a-9", "b-3", "b-4", "b-5", "b-6", "b-7"} {
			if !strings.Contains(page, "site.example/"+id+`"`) {
				t.Errorf("second digest lacks %s", id)
			}
		}
		for _, id := range []string{"a-8", "b-1", "b-2"} {
			if strings.Contains(page, "site.example/"+id+`"`) {
				t.Errorf("second digest has %s", id)
			}
		}
	})
}

// Many days, several zones, feeds changing at random hours, retries and
// overflow polls in between: every entry lands in exactly one daily page
// of every subscriber, and none is lost.
func TestEveryEntryExactlyOncePerSubscriber(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		pub := feedtest.Start(t)
		pub.SetWindow(6) // a short window: busy days overflow and trigger extra polls
		feeds := []string{"/a", "/b", "/c"}
		for _, f := range feeds {
			pub.Add(f, entry(f[1:]+"-0", "2026-11-01T00:00:00Z"))
		}
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	feeds = ["%[1]s", "%[2]s", "%[3]s"]
	[[users]]
	name = "grace"
	timezone = "America/New_York"
	digest_hour = 7
	feeds = ["%[1]s", "%[2]s"]
	[[users]]
	name = "kenji"
	timezone = "Asia/Tokyo"
	feeds = ["%[2]s", "%[3]s"]
	`, pub.URL+"/a", pub.URL+"/b", pub.URL+"/c"), "")
		subscribers := map[string][]string{"/a": {"ada", "grace"}, "/b": {"ada", "grace", "kenji"}, "/c": {"ada", "kenji"}}
		published := map[string]string{} // entry id -> feed
		postedAt := map[string]int{}     // entry id -> hour
		start := at("2026-11-01T00:20:00Z")
		n := 0
		for h := 0; h < 24*6; h++ {
			now := start.Add(time.Duration(h) * time.Hour)
			// Feed /a posts every 3 hours, /b twice a day, /c every 2 hours:
			// faster than its 6-entry window between two subscribers' midnights.
			post := func(f string) {
				n++
				id := fmt.Sprintf("%s-%d", f[1:], n)
				pub.Add(f, feedtest.Entry{ID: id, Title: "T " + id, Body: "B " + id, Published: now})
				published[id] = f
				postedAt[id] = h
			}
			if h%3 == 1 {
				post("/a")
			}
			if h%12 == 5 {
				post("/b")
			}
			if h%2 == 0 {
				post("/c")
			}
			if h == 30 {
				pub.Respond("/b", feedtest.Response{Status: 503}) // an outage: retried between midnights
			}
			if h == 34 {
				pub.Respond("/b", feedtest.Response{Status: 0})
			}
			if _, err := Run(context.Background(), cfg, Options{Now: now}); err != nil {
				t.Fatalf("run at %s: %v", now, err)
			}
		}
		// One more day with no posts, so the last entries reach every digest.
		for h := 0; h < 26; h++ {
			runAt(t, cfg, start.Add(time.Duration(24*6+h)*time.Hour).Format(time.RFC3339))
		}
		for _, user := range []string{"ada", "grace", "kenji"} {
			got := delivered(t, cfg, user)
			for id, feed := range published {
				want := 0
				for _, s := range subscribers[feed] {
					if s == user {
						want = 1
					}
				}
				// Until its first overflow is seen, /c loses entries it can never
				// get back; from the second day on, nothing may be lost.
				if got[id] != want && (got[id] > want || postedAt[id] >= 24) {
					t.Errorf("%s: entry %s of %s in %d pages, want %d", user, id, feed, got[id], want)
				}
			}
		}
		if t.Failed() {
			t.Logf("requests: %v", pub.Requests())
			if os.Getenv("KEEP") != "" {
				exec.Command("cp", cfg.State, "/tmp/dbg.db").Run()
			}
		}
	})
}

func TestBrokenFeedBesideGoodOnes(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/good", entry("g-1", "2026-11-20T10:00:00Z"))
		pub.Add("/also-good", entry("h-1", "2026-11-20T10:00:00Z"))
		pub.Respond("/malformed", feedtest.Response{Status: 200, Body: "<rss><channel><item><title>broken"})
		pub.Respond("/down", feedtest.Response{Status: 500})
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	email = "ada@example.org"
	feeds = ["%s", "%s", "%s", "%s", "%s"]
	`, pub.URL+"/good", pub.URL+"/malformed", pub.URL+"/down", pub.URL+"/missing", pub.URL+"/also-good"), "")
		sum := runAt(t, cfg, "2026-11-21T12:00:00Z")
		if sum.Failed != 3 || sum.Fresh != 2 {
			t.Fatalf("summary %+v", sum)
		}
		page := readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-21.html"))
		for _, id := range []string{"g-1", "h-1"} {
			if !strings.Contains(page, "site.example/"+id) {
				t.Errorf("digest lacks %s", id)
			}
		}
		status := readFile(t, filepath.Join(cfg.SiteDir, "status.html"))
		for _, want := range []string{pub.URL + "/malformed", "not a feed", pub.URL + "/down", "HTTP 500", pub.URL + "/missing", "HTTP 404", "penalty"} {
			if !strings.Contains(status, want) {
				t.Errorf("status.html lacks %q", want)
			}
		}
		eml := readFile(t, filepath.Join(cfg.Email.Outbox, "ada-2026-11-21.eml"))
		if !strings.Contains(eml, "site.example/g-1") {
			t.Error("email lacks g-1")
		}
	})
}

func TestOverlappingRunChangesNothing(t *testing.T) {
	pub := feedtest.Start(t)
	pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
	cfg := testConfig(t, onSQLite, oneUser(t, pub.URL+"/a"), "")
	held, err := sqlite.Open(context.Background(), cfg.State)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), cfg, Options{Now: at("2026-11-21T12:00:00Z")})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second run: err %v, want ErrLocked", err)
	}
	if len(pub.Requests()) != 0 {
		t.Errorf("a locked-out run polled: %v", pub.Requests())
	}
	if _, err := os.Stat(cfg.SiteDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a locked-out run wrote the site: %v", err)
	}
	held.Close()
	runAt(t, cfg, "2026-11-21T12:00:00Z")
}

func TestGoneFeedNoticedOnceAndNeverPolledAgain(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		pub.Add("/a", entry("a-1", "2026-11-20T10:00:00Z"))
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		pub.Respond("/a", feedtest.Response{Status: 410})
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		runAt(t, cfg, "2026-11-23T00:05:00Z")
		runAt(t, cfg, "2026-11-24T00:05:00Z")
		polls := 0
		for _, r := range pub.Requests() {
			if strings.HasSuffix(r, " 410") {
				polls++
			}
		}
		if polls != 1 {
			t.Errorf("gone feed polled %d times after its 410", polls)
		}
		if !strings.Contains(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-22.html")), "410") {
			t.Error("the digest after the 410 does not say the feed is gone")
		}
		if strings.Contains(readFile(t, filepath.Join(cfg.SiteDir, "ada", "2026-11-23.html")), "410") {
			t.Error("the gone notice shows twice")
		}
		if !strings.Contains(readFile(t, filepath.Join(cfg.SiteDir, "status.html")), "gone") {
			t.Error("status does not show the feed gone")
		}
	})
}
