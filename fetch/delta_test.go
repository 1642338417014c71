package fetch

import (
	"context"
	"net/http"
	"testing"
)

// deltaFeed speaks RFC 3229 with A-IM: feed: a client that sends the
// header and a validator gets only the newest entry, as 226 IM Used.
func deltaFeed(full, delta []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Header().Set("ETag", `"v2"`)
		w.Header().Set("Vary", "A-IM, If-Modified-Since")
		if r.Header.Get("A-IM") == "feed" && r.Header.Get("If-None-Match") != "" {
			w.Header().Set("IM", "feed")
			w.WriteHeader(http.StatusIMUsed)
			w.Write(delta)
			return
		}
		w.Write(full)
	}
}

const deltaBody = `<?xml version="1.0"?><rss version="2.0"><channel><title>Delta</title>
<item><title>Only the new one</title><guid>urn:new</guid></item></channel></rss>`

func TestIMUsedIsAPartialFeed(t *testing.T) {
	rec, ts := serve(t, deltaFeed(readTestdata(t, "rss.xml"), []byte(deltaBody)))
	c := testClient(Options{})
	// Known validators; the server is known to answer conditionally, so GET alone.
	req := Request{URL: ts.URL, ETag: `"v1"`, Answers304: true}
	res := c.Poll(context.Background(), req, testNow)
	if got := rec.last().Header.Get("A-IM"); got != "feed" {
		t.Fatalf("A-IM %q, want feed", got)
	}
	if res.Outcome != OutcomeFresh || res.Status != http.StatusIMUsed || !res.Partial {
		t.Fatalf("outcome %v status %d partial %v err %v", res.Outcome, res.Status, res.Partial, res.Err)
	}
	if len(res.Feed.Entries) != 1 || res.Feed.Entries[0].Key != "id:urn:new" {
		t.Errorf("entries %+v, want the delta's one", res.Feed.Entries)
	}
	if res.ETag != `"v2"` {
		t.Errorf("ETag %q", res.ETag)
	}
	// The same delta again is still a delta to merge, not "unchanged": its
	// hash says nothing about the whole feed.
	req.BodyHash = res.BodyHash
	again := c.Poll(context.Background(), req, testNow)
	if again.Outcome != OutcomeFresh || !again.Partial {
		t.Errorf("repeated delta: outcome %v partial %v", again.Outcome, again.Partial)
	}
}

func TestAIMOnlyWithValidators(t *testing.T) {
	full := readTestdata(t, "rss.xml")
	tests := []struct {
		name    string
		req     Request
		wantAIM string
		partial bool
	}{
		{"first fetch: no validators, no A-IM, a whole feed", Request{}, "", false},
		{"ETag stored", Request{ETag: `"v1"`, Answers304: true}, "feed", true},
		{"Last-Modified stored", Request{LastModified: "Sat, 21 Nov 2026 10:00:00 GMT", Answers304: true}, "feed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ts := serve(t, deltaFeed(full, []byte(deltaBody)))
			tt.req.URL = ts.URL
			res := testClient(Options{}).Poll(context.Background(), tt.req, testNow)
			if got := rec.last().Header.Values("A-IM"); (tt.wantAIM == "" && len(got) != 0) || (tt.wantAIM != "" && (len(got) != 1 || got[0] != tt.wantAIM)) {
				t.Errorf("A-IM %q, want %q", got, tt.wantAIM)
			}
			if res.Partial != tt.partial || res.Outcome != OutcomeFresh {
				t.Errorf("partial %v outcome %v err %v", res.Partial, res.Outcome, res.Err)
			}
		})
	}
}
