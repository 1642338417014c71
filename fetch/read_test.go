package fetch

import (
	"context"
	"net/http"
	"testing"
)

// The body is read (parse.Read) with what the conversation knows of it:
// the charset of its Content-Type, and the URL it came from after
// redirects, which its relative links resolve against.
func TestBodyIsReadWithItsContentTypeAndURL(t *testing.T) {
	body := "<rss version=\"2.0\"><channel><title>\xcf\xf0\xe8\xe2\xe5\xf2</title>" +
		"<item><guid>1</guid><title>x</title><link>posts/1</link></item></channel></rss>"
	_, ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new/feed", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml; charset=windows-1251")
		w.Write([]byte(body))
	})
	res := testClient(Options{}).Poll(context.Background(), Request{URL: ts.URL + "/old"}, testNow)
	if res.Outcome != OutcomeFresh {
		t.Fatalf("outcome %v err %v", res.Outcome, res.Err)
	}
	if res.Feed.Title != "Привет" {
		t.Errorf("title %q: the header's charset did not reach the reading", res.Feed.Title)
	}
	if got, want := res.Feed.Entries[0].Link, ts.URL+"/new/posts/1"; got != want {
		t.Errorf("entry link %q, want %q (against the URL after the redirect)", got, want)
	}
}
