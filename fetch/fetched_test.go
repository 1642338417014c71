package fetch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Fetch does the requests and stops before a new body is parsed; Read
// parses it (an HTML page's announced feed included), Abandon gives it
// up. An answer with nothing to parse is final at once.
func TestFetchStopsBeforeTheBodyIsParsed(t *testing.T) {
	page := readTestdata(t, "page.html") // links /feed.xml
	rss := readTestdata(t, "rss.xml")
	rec, base := site(t, map[string]route{
		"/":         {contentType: "text/html", body: page},
		"/feed.xml": {contentType: "application/rss+xml", body: rss, etag: `"feed"`},
	})
	c := testClient(Options{})
	ctx := context.Background()

	f := c.Fetch(ctx, Request{URL: base + "/"}, testNow)
	if !f.BodyWaiting() || rec.paths() != "GET /" {
		t.Fatalf("after Fetch: body waiting %v, requests %s; want the page's body, one request", f.BodyWaiting(), rec.paths())
	}
	res := c.Read(ctx, f)
	if res.Outcome != OutcomeFresh || res.DiscoveredURL != base+"/feed.xml" || rec.paths() != "GET /,GET /feed.xml" {
		t.Fatalf("after Read: %v %v, discovered %q, requests %s", res.Outcome, res.Err, res.DiscoveredURL, rec.paths())
	}

	f = c.Fetch(ctx, Request{URL: base + "/feed.xml", ETag: `"feed"`}, testNow)
	if f.BodyWaiting() {
		t.Fatal("a 304 left a body to parse")
	}
	if res := c.Read(ctx, f); res.Outcome != OutcomeUnchanged {
		t.Errorf("304 read as %v %v", res.Outcome, res.Err)
	}

	f = c.Fetch(ctx, Request{URL: base + "/feed.xml"}, testNow)
	if !f.BodyWaiting() {
		t.Fatal("no body waiting")
	}
	why := errors.New("the attempt could not be recorded")
	res = f.Abandon(why)
	if res.Outcome != OutcomeBroken || !errors.Is(res.Err, ErrNotParsed) || !strings.Contains(res.Err.Error(), why.Error()) ||
		res.Feed != nil || res.BodyHash != "" || res.BodyError != "" {
		t.Errorf("abandoned: %v %v, feed %v, hash %q, body error %q", res.Outcome, res.Err, res.Feed, res.BodyHash, res.BodyError)
	}
	// Its parse turn was given back: a whole budget can be taken.
	tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := c.parsing.Acquire(tctx, ParseBudget); err != nil {
		t.Errorf("the abandoned body still holds its parse turn: %v", err)
	}
}
