package demo

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"sync/atomic"
	"time"
)

// feedServer serves the sample feeds as a well-behaved publisher would:
// ETag and Last-Modified, 304 to conditional requests, and 410 for a feed
// that was taken down. Some feeds carry a wrong Content-Type on purpose,
// to show the parser's fallback. The snapshot served follows the
// simulated clock, so new entries appear on the second day.
type feedServer struct {
	feeds    fs.FS
	snapshot atomic.Value // string: "day1" or "day2"
	gone     map[string]bool
}

// contentTypes lie for notes.atom (Atom labelled as RSS) and links.json
// (JSON Feed labelled as text), as real servers do.
var contentTypes = map[string]string{
	".xml":  "application/rss+xml; charset=utf-8",
	".atom": "application/rss+xml; charset=utf-8",
	".json": "text/plain; charset=utf-8",
}

func newFeedServer(feeds fs.FS) *feedServer {
	s := &feedServer{feeds: feeds, gone: map[string]bool{"/old-blog.xml": true}}
	s.snapshot.Store("day1")
	return s
}

func (s *feedServer) setSnapshot(name string) { s.snapshot.Store(name) }

func (s *feedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	snap := s.snapshot.Load().(string)
	body, err := fs.ReadFile(s.feeds, path.Join(snap, path.Clean(r.URL.Path)))
	if err != nil {
		if s.gone[r.URL.Path] {
			http.Error(w, "this feed has been retired", http.StatusGone)
			return
		}
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", snapshotTime[snap].Format(http.TimeFormat))
	w.Header().Set("Content-Type", contentTypes[path.Ext(r.URL.Path)])
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// snapshotTime is when each snapshot was "published".
var snapshotTime = map[string]time.Time{
	"day1": time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC),
	"day2": time.Date(2026, 11, 21, 16, 10, 0, 0, time.UTC),
}
