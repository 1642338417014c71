package fetch

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// A feed that moved as it was (a 301 or 308 to a URL with the same body)
// moves at once: the target's answer that nothing changed, a 304 to the
// stored validators or the stored body again, proves it serves the feed.
func TestPermanentRedirectToTheSameFeed(t *testing.T) {
	body := readTestdata(t, "rss.xml")
	hash := hashOf(body)
	etag := `"v1"`
	tests := []struct {
		name       string
		redirect   int
		target     http.HandlerFunc
		req        Request
		opts       Options
		wantMoved  bool
		wantMethod string
	}{
		{"301, same body", http.StatusMovedPermanently, func(w http.ResponseWriter, r *http.Request) { w.Write(body) },
			Request{BodyHash: hash}, Options{}, true, "GET,GET"},
		{"308, same body", http.StatusPermanentRedirect, func(w http.ResponseWriter, r *http.Request) { w.Write(body) },
			Request{BodyHash: hash}, Options{}, true, "GET,GET"},
		{"301, 304 to the stored validators", http.StatusMovedPermanently, conditionalFeed(body, etag, ""),
			Request{ETag: etag, BodyHash: hash, Answers304: true}, Options{}, true, "GET,GET"},
		{"301, HEAD answered 304", http.StatusMovedPermanently, conditionalFeed(body, etag, ""),
			Request{ETag: etag, BodyHash: hash, LastGet: testNow.Add(-24 * time.Hour)}, Options{HeadAlways: true}, true, "HEAD,HEAD"},
		{"302, same body: nothing to record", http.StatusFound, func(w http.ResponseWriter, r *http.Request) { w.Write(body) },
			Request{BodyHash: hash}, Options{}, false, "GET,GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/new", tt.redirect) })
			mux.HandleFunc("/new", tt.target)
			rec, ts := serve(t, mux.ServeHTTP)
			tt.req.URL = ts.URL + "/old"
			res := testClient(tt.opts).Poll(context.Background(), tt.req, testNow)
			if res.Outcome != OutcomeUnchanged || res.Err != nil {
				t.Fatalf("outcome %v err %v, want unchanged", res.Outcome, res.Err)
			}
			if got := rec.methods(); got != tt.wantMethod {
				t.Errorf("requests %s, want %s", got, tt.wantMethod)
			}
			want := ""
			if tt.wantMoved {
				want = ts.URL + "/new"
			}
			if res.PermanentURL != want || res.OriginChanged {
				t.Errorf("permanent URL %q (origin changed %v), want %q", res.PermanentURL, res.OriginChanged, want)
			}
		})
	}
}
