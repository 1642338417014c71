package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"feeddigest/config"
	"feeddigest/internal/feedtest"
)

// digestSizes returns user's digests as date -> entry count.
func digestSizes(t *testing.T, statePath, user string) map[string]int {
	t.Helper()
	st, err := OpenReader(context.Background(), &config.Config{State: statePath})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ds, err := st.Digests(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, d := range ds {
		out[d.Date] = d.EntryCount
	}
	return out
}

// tenEntries adds ten entries to path of pub, published a day apart.
func tenEntries(pub *feedtest.Server, path string) {
	for i := 1; i <= 10; i++ {
		pub.Add(path, entry(fmt.Sprintf("%s-%d", path[1:], i), fmt.Sprintf("2026-11-%02dT10:00:00Z", i)))
	}
}

// A first digest shows at most the five newest entries of each feed; the
// other five were first seen before it and never show up later, whether
// the feed answers 304 (publisher) or the very same body without
// validators (bare). The same holds for a feed added to a user later.
func TestBacklogNeverFloodsALaterDigest(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		for _, p := range []string{"/a", "/b", "/c", "/late"} {
			tenEntries(pub, p)
		}
		bare := feedtest.Start(t)
		var bareEntries []feedtest.Entry
		for i := 1; i <= 10; i++ {
			bareEntries = append(bareEntries, feedtest.Entry{ID: fmt.Sprintf("bare-%d", i), Title: fmt.Sprintf("Bare %d", i),
				Published: time.Date(2026, 11, i, 10, 0, 0, 0, time.UTC)})
		}
		bare.Publish("/feed", feedtest.Feed{Title: "Bare", Entries: bareEntries, NoValidators: true})

		feeds := []string{pub.URL + "/a", pub.URL + "/b", pub.URL + "/c", bare.URL + "/feed"}
		cfg := testConfig(t, state, oneUser(t, feeds...), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		got := delivered(t, cfg, "ada")
		if len(got) != 20 {
			t.Fatalf("first digest has %d entries, want 5 of each of 4 feeds: %v", len(got), keys(got))
		}
		for _, id := range []string{"a-6", "a-10", "b-6", "c-10", "bare-6", "bare-10"} {
			if got[id] != 1 {
				t.Errorf("first digest lacks %s", id)
			}
		}

		sum := runAt(t, cfg, "2026-11-22T00:05:00Z")
		if sum.Unchanged != 4 {
			t.Fatalf("second day: %+v, want all four feeds unchanged", sum)
		}
		if n := digestSizes(t, cfg.State, "ada")["2026-11-22"]; n != 0 {
			t.Errorf("second digest has %d entries, want none: the feeds did not change", n)
		}

		// A feed added to the same user later starts with its five newest, and
		// its older entries do not follow the day after.
		cfg2 := testConfig(t, state, oneUser(t, append(feeds, pub.URL+"/late")...), "")
		cfg2.State, cfg2.SiteDir = cfg.State, cfg.SiteDir
		runAt(t, cfg2, "2026-11-22T12:00:00Z") // not due: subscribes, polls nothing
		runAt(t, cfg2, "2026-11-23T00:05:00Z")
		runAt(t, cfg2, "2026-11-24T00:05:00Z")
		sizes := digestSizes(t, cfg.State, "ada")
		if sizes["2026-11-23"] != 5 || sizes["2026-11-24"] != 0 {
			t.Errorf("digests after adding a feed: %v, want 5 on 2026-11-23 and 0 on 2026-11-24", sizes)
		}
		got = delivered(t, cfg, "ada")
		for i := 1; i <= 10; i++ {
			for _, f := range []string{"a", "b", "c", "bare", "late"} {
				id, want := fmt.Sprintf("%s-%d", f, i), 0
				if i > 5 {
					want = 1
				}
				if got[id] != want {
					t.Errorf("%s in %d digests, want %d", id, got[id], want)
				}
			}
		}
	})
}

// A feed whose first poll fails brings its backlog later: the first
// digest that has it shows its five newest, and nothing older after.
func TestBacklogOfAFeedThatFailedAtFirst(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		tenEntries(pub, "/a")
		tenEntries(pub, "/b")
		pub.Respond("/b", feedtest.Response{Status: http.StatusServiceUnavailable})
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a", pub.URL+"/b"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		pub.Respond("/b", feedtest.Response{Status: 0})
		runAt(t, cfg, "2026-11-21T18:00:00Z") // the retry
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		runAt(t, cfg, "2026-11-23T00:05:00Z")
		sizes := digestSizes(t, cfg.State, "ada")
		if sizes["2026-11-21"] != 5 || sizes["2026-11-22"] != 5 || sizes["2026-11-23"] != 0 {
			t.Errorf("digest sizes %v, want 5 (a), 5 (b, once it answered), 0", sizes)
		}
	})
}

// A feed down when the user subscribed, that publishes while it is down,
// loses none of it: what is dated after the subscription is news, all of
// it shown when the feed answers again, however many; only the older
// backlog is cut (here to nothing, the news filling the five).
func TestFeedDownAtFirstKeepsWhatItPublishedMeanwhile(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		pub := feedtest.Start(t)
		tenEntries(pub, "/a")
		tenEntries(pub, "/b")
		pub.Respond("/b", feedtest.Response{Status: http.StatusServiceUnavailable})
		cfg := testConfig(t, state, oneUser(t, pub.URL+"/a", pub.URL+"/b"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z")
		for i := 1; i <= 7; i++ {
			pub.Add("/b", entry(fmt.Sprintf("bnew-%d", i), fmt.Sprintf("2026-11-21T13:%02d:00Z", 5*i)))
		}
		pub.Respond("/b", feedtest.Response{Status: 0})
		runAt(t, cfg, "2026-11-21T18:00:00Z") // the retry
		runAt(t, cfg, "2026-11-22T00:05:00Z")
		runAt(t, cfg, "2026-11-23T00:05:00Z")
		got := delivered(t, cfg, "ada")
		for i := 1; i <= 10; i++ {
			if id, want := fmt.Sprintf("b-%d", i), 0; got[id] != want {
				t.Errorf("%s, of the backlog, in %d digests, want %d", id, got[id], want)
			}
			if id := fmt.Sprintf("bnew-%d", i); i <= 7 && got[id] != 1 {
				t.Errorf("%s, published while the feed was down, in %d digests, want 1", id, got[id])
			}
		}
	})
}
