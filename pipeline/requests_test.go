package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// A week of hourly runs for three users in three zones, on feeds that
// answer conditional GETs correctly and change once a day at their own
// hour: every poll is one request, changed or not (no HEAD ever), counted
// by the pipeline and by the server alike.
func TestOneRequestPerPollOnCompliantFeeds(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		longOnPostgres(t, state)
		const feeds = 12
		pub := feedtest.Start(t)
		var urls []string
		for i := range feeds {
			path := fmt.Sprintf("/f%d", i)
			pub.Add(path, entry(fmt.Sprintf("f%d-0", i), "2026-11-01T00:00:00Z"))
			urls = append(urls, fmt.Sprintf("%q", pub.URL+path))
		}
		cfg := testConfig(t, state, fmt.Sprintf(`
	[[users]]
	name = "ada"
	timezone = "Europe/London"
	feeds = [%[1]s]
	[[users]]
	name = "grace"
	timezone = "America/New_York"
	digest_hour = 7
	feeds = [%[1]s]
	[[users]]
	name = "kenji"
	timezone = "Asia/Tokyo"
	feeds = [%[1]s]
	`, strings.Join(urls, ", ")), "")
		start := at("2026-11-02T00:10:00Z")
		var polls, requests, fresh int
		for h := range 7 * 24 {
			now := start.Add(time.Duration(h) * time.Hour)
			for i := range feeds {
				if (h+2*i)%24 == 0 { // each feed posts daily, at its own hour
					id := fmt.Sprintf("f%d-%d", i, h)
					pub.Add(fmt.Sprintf("/f%d", i), feedtest.Entry{ID: id, Title: "T " + id, Body: "B " + id, Published: now})
				}
			}
			sum, err := Run(context.Background(), cfg, Options{Now: now})
			if err != nil {
				t.Fatalf("run at %s: %v", now, err)
			}
			polls += sum.FeedsPolled
			requests += sum.Requests
			fresh += sum.Fresh
		}
		served := pub.Requests()
		heads := 0
		for _, r := range served {
			if strings.HasPrefix(r, "HEAD ") {
				heads++
			}
		}
		perPoll := float64(requests) / float64(polls)
		t.Logf("%d polls (%d with a new body), %d requests (%d served, %d HEAD): %.2f requests per poll",
			polls, fresh, requests, len(served), heads, perPoll)
		if polls < 3*7*feeds || fresh < 7*feeds {
			t.Fatalf("%d polls, %d fresh: the test does not poll enough", polls, fresh)
		}
		if requests != polls || len(served) != polls || heads != 0 {
			t.Errorf("%.2f requests per poll (%d requests, %d served, %d HEAD, %d polls), want exactly 1.00",
				perPoll, requests, len(served), heads, polls)
		}
	})
}

// A server that ignores conditional GETs (a 200 with the stored ETag) but
// answers HEAD with its validators: once that is learned, a poll is a
// HEAD, followed by a GET only when the HEAD says the feed changed.
func TestHeadFirstWhereConditionalGETsAreIgnored(t *testing.T) {
	forEachState(t, func(t *testing.T, state backend) {
		var mu sync.Mutex
		version := 1
		var log []string
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			log = append(log, r.Method)
			w.Header().Set("ETag", fmt.Sprintf(`"v%d"`, version))
			w.Header().Set("Content-Type", "application/rss+xml")
			if r.Method == http.MethodGet {
				fmt.Fprintf(w, `<rss version="2.0"><channel><title>Stubborn</title><item><guid>s-%[1]d</guid><title>Post</title>`+
					`<link>https://site.example/s-%[1]d</link></item></channel></rss>`, version)
			}
		}))
		defer ts.Close()
		cfg := testConfig(t, state, oneUser(t, ts.URL+"/feed"), "")
		runAt(t, cfg, "2026-11-21T12:00:00Z") // first poll: GET
		runAt(t, cfg, "2026-11-22T00:05:00Z") // conditional GET answered 200 with the same ETag: learned
		if f := feedRecord(t, cfg.State, ts.URL+"/feed"); !f.IgnoresConditional {
			t.Fatal("ignoring conditional GETs not learned")
		}
		runAt(t, cfg, "2026-11-23T00:05:00Z") // HEAD, same ETag: done
		mu.Lock()
		version = 2
		mu.Unlock()
		runAt(t, cfg, "2026-11-24T00:05:00Z") // HEAD, new ETag: GET
		mu.Lock()
		defer mu.Unlock()
		if got, want := strings.Join(log, ","), "GET,GET,HEAD,HEAD,GET"; got != want {
			t.Errorf("requests %s, want %s", got, want)
		}
	})
}
