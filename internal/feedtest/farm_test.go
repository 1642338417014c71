package feedtest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// A farm's hosts are distinct loopback addresses; each feed lists its
// posts newest first, twenty at most, dated with the pass they were
// posted in; a request echoing the ETag is answered 304, and counted;
// requests are counted by pass, GETs apart.
func TestFarmServesPostsAndCountsRequestsByPass(t *testing.T) {
	farm := StartFarm(t, 2, 0)
	a, b := farm.URL(0, "/feed"), farm.URL(1, "/feed")
	if ua, ub := mustParse(t, a), mustParse(t, b); ua.Hostname() == ub.Hostname() {
		t.Fatalf("two hosts on one address: %s, %s", a, b)
	}
	farm.StartPass("2026-11-21T10:05:00Z")
	for i := range 25 {
		farm.Post(a, fmt.Sprintf("p-%d", i))
	}
	resp, body := get(t, http.MethodGet, a, nil)
	feed, err := gofeed.NewParser().ParseString(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(feed.Items) != 20 || feed.Items[0].GUID != "p-24" || feed.Items[19].GUID != "p-5" {
		t.Fatalf("%d items, first %q: want the 20 newest, newest first", len(feed.Items), feed.Items[0].GUID)
	}
	if got := feed.Items[0].PublishedParsed; got == nil || !got.Equal(time.Date(2026, 11, 21, 10, 5, 0, 0, time.UTC)) {
		t.Errorf("dated %v, want the pass it was posted in", got)
	}
	etag := resp.Header.Get("ETag")
	if resp, _ := get(t, http.MethodGet, a, http.Header{"If-None-Match": {etag}}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET echoing %s: %d, want 304", etag, resp.StatusCode)
	}
	get(t, http.MethodHead, a, nil)
	farm.StartPass("next")
	get(t, http.MethodGet, b, nil)
	if got := farm.Gets()["2026-11-21T10:05:00Z"][a]; got != 2 {
		t.Errorf("%d GETs of a in the first pass, want 2", got)
	}
	if got := farm.Requests()["2026-11-21T10:05:00Z"][a]; got != 3 {
		t.Errorf("%d requests of a in the first pass, want 3 (the HEAD too)", got)
	}
	if next := farm.Requests()["next"]; len(next) != 1 || next[b] != 1 {
		t.Errorf("the next pass asked %v, want b once", next)
	}
	if got := farm.NotModified(); got["2026-11-21T10:05:00Z"] != 1 || got["next"] != 0 {
		t.Errorf("answered 304 by pass: %v, want once in the first pass, never in the next", got)
	}
}

// Hold keeps requests waiting, counted in flight, until it returns: the
// peak of a host is how many it had at once.
func TestFarmHoldsRequestsAndCountsThePeak(t *testing.T) {
	farm := StartFarm(t, 1, 0)
	farm.StartPass("p")
	arrived, release := make(chan struct{}, 3), make(chan struct{})
	farm.Hold(func(*http.Request) {
		arrived <- struct{}{}
		<-release
	})
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			resp, err := http.Get(farm.URL(0, fmt.Sprintf("/f%d", i)))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	for range 3 {
		<-arrived
	}
	close(release)
	wg.Wait()
	host := strings.TrimPrefix(farm.Hosts()[0], "http://")
	if got := farm.Peaks()[host]; got != 3 {
		t.Errorf("peak of %s: %d, want 3 held at once", host, got)
	}
	farm.Hold(nil)
	get(t, http.MethodGet, farm.URL(0, "/f0"), nil) // answered, not held
	if got := farm.Peaks()[host]; got != 3 {
		t.Errorf("peak of %s after a lone request: %d, want 3 still", host, got)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
