package demo

import (
	"io/fs"
	"net/http"
	"path"
	"time"

	"feeddigest/internal/feedtest"
)

// The sample feeds are served as a well-behaved publisher would (ETag and
// Last-Modified, 304 to conditional requests) by feedtest, which the
// tests use too. Some feeds carry a wrong Content-Type on purpose, to
// show the parser's fallback: notes.atom (Atom labelled as RSS) and
// links.json (JSON Feed labelled as text), as real servers do.
var contentTypes = map[string]string{
	".xml":  "application/rss+xml; charset=utf-8",
	".atom": "application/rss+xml; charset=utf-8",
	".json": "text/plain; charset=utf-8",
}

// retired are the feeds answered 410 Gone once a snapshot lacks them.
var retired = []string{"/old-blog.xml"}

// snapshotTime is when each snapshot was "published".
var snapshotTime = map[string]time.Time{
	"day1": time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC),
	"day2": time.Date(2026, 11, 21, 16, 10, 0, 0, time.UTC),
}

// serveSnapshot makes s serve the snapshot name ("day1", "day2") of
// feeds: the simulated clock decides which is up.
func serveSnapshot(s *feedtest.Server, feeds fs.FS, name string) error {
	snap, err := fs.Sub(feeds, name)
	if err != nil {
		return err
	}
	s.ServeFiles(feedtest.Files{FS: snap, Modified: snapshotTime[name], ContentTypes: contentTypes})
	if err := serveArticles(s, feeds); err != nil {
		return err
	}
	for _, p := range retired {
		gone := feedtest.Response{} // served from the snapshot
		if _, err := fs.Stat(snap, path.Base(p)); err != nil {
			gone = feedtest.Response{Status: http.StatusGone, Body: "this feed has been retired\n"}
		}
		s.Respond(p, gone)
	}
	return nil
}

// serveArticles serves the article pages of teasers.xml (a feed that
// publishes only a teaser, followed with full_text = true) at
// /articles/NAME, the same every day: a page is there before its story.
func serveArticles(s *feedtest.Server, feeds fs.FS) error {
	pages, err := fs.ReadDir(feeds, "articles")
	if err != nil {
		return err
	}
	for _, p := range pages {
		body, err := fs.ReadFile(feeds, path.Join("articles", p.Name()))
		if err != nil {
			return err
		}
		s.Handle("/articles/"+p.Name(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		}))
	}
	return nil
}
