// Command libfloor does the work of a feeddigest run with the libraries
// feeddigest uses and nothing of feeddigest's own code, written to need
// as little memory as it reasonably can: BenchmarkPeers measures it
// beside feeddigest as the least peak RSS any design built on these
// libraries needs, so that the rest of feeddigest's is ours to win back.
//
//	libfloor STATE OUTPUT URLS
//
// It polls every feed listed in URLS (one URL a line), eight at a time,
// with one shared http.Client and a conditional GET from the validators
// kept in the SQLite file STATE (WAL mode); parses each 200 with gofeed,
// sanitises each item's HTML with bluemonday's UGC policy and stores the
// new items and the feed's validators in one transaction a feed. If the
// run stored new entries it writes them, read back row by row, as one
// HTML page (html/template) and as one email with an HTML and a
// plain-text part (go-mail), both in OUTPUT. It prints "feeds N
// not-modified N new-entries N" and exits 0, or 1 if a feed failed.
//
// With LIBFLOOR_MEMSTATS=1 it samples its memory every 10 ms and prints
// to stderr at exit the peaks of each phase (poll, page, email), the Go
// runtime's figures (runtime/metrics) and its /proc/self/status
// resident set lines. `libfloor -version` prints its name and Go version and
// does nothing else: what starting the executable costs.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/microcosm-cc/bluemonday"
	"github.com/mmcdole/gofeed"
	"github.com/wneessen/go-mail"
	_ "modernc.org/sqlite"
)

// concurrency is how many feeds are polled at once, as feeddigest's
// default fetch settings poll concurrently: each in flight holds one
// body's parse. LIBFLOOR_CONCURRENCY sets another (1 to 8), to measure
// what polling in parallel costs.
func concurrency() int {
	if n, err := strconv.Atoi(os.Getenv("LIBFLOOR_CONCURRENCY")); err == nil && n >= 1 && n <= 8 {
		return n
	}
	return 8
}

const schema = `
CREATE TABLE IF NOT EXISTS feeds (
	url TEXT PRIMARY KEY,
	etag TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS entries (
	feed TEXT NOT NULL REFERENCES feeds(url),
	guid TEXT NOT NULL,
	title TEXT NOT NULL,
	link TEXT NOT NULL,
	html TEXT NOT NULL,
	published INTEGER,
	UNIQUE (feed, guid)
);`

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-version" {
		fmt.Println("libfloor", runtime.Version())
		return
	}
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: libfloor STATE OUTPUT URLS | libfloor -version")
		os.Exit(2)
	}
	var peaks *heapPeaks
	if os.Getenv("LIBFLOOR_MEMSTATS") == "1" {
		peaks = sampleHeap(10 * time.Millisecond)
	}
	code := 0
	if err := run(context.Background(), os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "libfloor:", err)
		code = 1
	}
	if peaks != nil {
		printMemStats(os.Stderr, peaks)
	}
	os.Exit(code)
}

// counts is what a run did, for its summary line.
type counts struct {
	feeds, notModified, newEntries atomic.Int64
}

func run(ctx context.Context, statePath, outDir, urlsPath string) error {
	urls, err := readURLs(urlsPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+statePath+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	// One connection: one SQLite page cache (its default, 2 MB at most),
	// and the writers take turns, as SQLite makes them anyway.
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	// Rows are only ever added, so the entries new in this run are the
	// rows after the largest rowid before it.
	var before int64
	if err := db.QueryRowContext(ctx, "SELECT coalesce(max(rowid), 0) FROM entries").Scan(&before); err != nil {
		return err
	}

	p := &poller{db: db, client: &http.Client{Timeout: 30 * time.Second}, policy: bluemonday.UGCPolicy()}
	var c counts
	var failed atomic.Int64
	queue := make(chan string)
	var wg sync.WaitGroup
	for range concurrency() {
		wg.Go(func() {
			parser := gofeed.NewParser()
			for url := range queue {
				if err := p.poll(ctx, parser, url, &c); err != nil {
					fmt.Fprintf(os.Stderr, "libfloor: %s: %v\n", url, err)
					failed.Add(1)
				}
			}
		})
	}
	for _, url := range urls {
		queue <- url
	}
	close(queue)
	wg.Wait()

	if c.newEntries.Load() > 0 {
		phase.Store(phasePage)
		if err := writePage(ctx, db, before, filepath.Join(outDir, "digest.html")); err != nil {
			return fmt.Errorf("page: %w", err)
		}
		phase.Store(phaseEmail)
		if err := writeEmail(ctx, db, before, filepath.Join(outDir, "digest.eml")); err != nil {
			return fmt.Errorf("email: %w", err)
		}
	}
	fmt.Printf("feeds %d not-modified %d new-entries %d\n", c.feeds.Load(), c.notModified.Load(), c.newEntries.Load())
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d feeds failed", n)
	}
	return nil
}

func readURLs(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var urls []string
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if u := strings.TrimSpace(lines.Text()); u != "" {
			urls = append(urls, u)
		}
	}
	return urls, lines.Err()
}

// poller is what the workers share: the state, the one HTTP client (its
// connections kept alive between a host's feeds) and the policy.
type poller struct {
	db     *sql.DB
	client *http.Client
	policy *bluemonday.Policy
}

// poll fetches one feed with its stored validators and stores what is
// new; a 304 changes nothing.
func (p *poller) poll(ctx context.Context, parser *gofeed.Parser, url string, c *counts) error {
	c.feeds.Add(1)
	var etag, lastModified string
	err := p.db.QueryRowContext(ctx, "SELECT etag, last_modified FROM feeds WHERE url = ?", url).Scan(&etag, &lastModified)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		req.Header.Set("If-Modified-Since", lastModified)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, resp.Body) // read to the end, so the connection is kept
		resp.Body.Close()
	}()
	switch resp.StatusCode {
	case http.StatusNotModified:
		c.notModified.Add(1)
		return nil
	case http.StatusOK:
	default:
		return fmt.Errorf("status %s", resp.Status)
	}
	feed, err := parser.Parse(resp.Body) // streamed from the body, not read whole first
	if err != nil {
		return err
	}
	added, err := p.store(ctx, url, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), feed.Items)
	c.newEntries.Add(added)
	return err
}

// store saves the feed's validators and its items not yet stored, in one
// transaction, and returns how many items were new.
func (p *poller) store(ctx context.Context, url, etag, lastModified string, items []*gofeed.Item) (int64, error) {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO feeds (url, etag, last_modified) VALUES (?, ?, ?)
		ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified`,
		url, etag, lastModified); err != nil {
		return 0, err
	}
	insert, err := tx.PrepareContext(ctx, "INSERT OR IGNORE INTO entries (feed, guid, title, link, html, published) VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		return 0, err
	}
	defer insert.Close()
	var added int64
	for _, item := range items {
		guid := item.GUID
		if guid == "" {
			guid = item.Link
		}
		body := item.Content
		if body == "" {
			body = item.Description
		}
		var published any
		if item.PublishedParsed != nil {
			published = item.PublishedParsed.Unix()
		}
		res, err := insert.ExecContext(ctx, url, guid, item.Title, item.Link, p.policy.Sanitize(body), published)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		added += n
	}
	return added, tx.Commit()
}

// entry is one row of the digest.
type entry struct {
	Feed, Title, Link string
	HTML              template.HTML // sanitised when stored
	Published         time.Time
}

// eachNewEntry calls do with every entry stored after rowid before, in
// the order stored (the rowid's: no sort), one row at a time.
func eachNewEntry(ctx context.Context, db *sql.DB, before int64, do func(entry) error) error {
	rows, err := db.QueryContext(ctx, "SELECT feed, title, link, html, coalesce(published, 0) FROM entries WHERE rowid > ? ORDER BY rowid", before)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e entry
		var body string
		var published int64
		if err := rows.Scan(&e.Feed, &e.Title, &e.Link, &body, &published); err != nil {
			return err
		}
		e.HTML = template.HTML(body)
		if published != 0 {
			e.Published = time.Unix(published, 0).UTC()
		}
		if err := do(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

var page = template.Must(template.New("page").Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Digest</title></head><body><h1>Digest</h1>
{{end}}{{define "entry"}}<article><h2><a href="{{.Link}}">{{.Title}}</a></h2>
<p>{{.Feed}}{{if not .Published.IsZero}}, <time datetime="{{.Published.Format "2006-01-02T15:04:05Z07:00"}}">{{.Published.Format "2 Jan 2006 15:04"}}</time>{{end}}</p>
{{.HTML}}</article>
{{end}}{{define "foot"}}</body></html>
{{end}}`))

// writePage writes the new entries as one HTML page, executing the
// template once a row into a buffered file.
func writePage(ctx context.Context, db *sql.DB, before int64, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	if err := page.ExecuteTemplate(w, "head", nil); err != nil {
		return err
	}
	err = eachNewEntry(ctx, db, before, func(e entry) error { return page.ExecuteTemplate(w, "entry", e) })
	if err != nil {
		return err
	}
	if err := page.ExecuteTemplate(w, "foot", nil); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// writeEmail writes the new entries as one email, a plain-text part and
// an HTML part, to path.
//
// Each part's body is a writer function that reads the rows as the
// message is written (SetBodyWriter, AddAlternativeWriter), so no string
// of a whole body is made here. go-mail still holds each part whole: its
// msgWriter.writeBody runs the function into a bytes.Buffer through the
// part's encoder (quoted-printable by default) and copies that buffer to
// the file afterwards, one part at a time. So the largest encoded part,
// with its buffer's growth, is held in memory whatever the caller does.
func writeEmail(ctx context.Context, db *sql.DB, before int64, path string) error {
	msg := mail.NewMsg()
	if err := msg.From("Digest <digest@example.org>"); err != nil {
		return err
	}
	if err := msg.To("ada@example.org"); err != nil {
		return err
	}
	msg.Subject("Digest")
	msg.SetDate()
	msg.SetMessageID()
	text := bluemonday.StrictPolicy() // the plain text of the sanitised HTML
	msg.SetBodyWriter(mail.TypeTextPlain, func(w io.Writer) (int64, error) {
		cw := &countingWriter{w: w}
		err := eachNewEntry(ctx, db, before, func(e entry) error {
			_, err := fmt.Fprintf(cw, "%s\n%s\n\n%s\n\n", e.Title, e.Link, strings.TrimSpace(html.UnescapeString(text.Sanitize(string(e.HTML)))))
			return err
		})
		return cw.n, err
	})
	msg.AddAlternativeWriter(mail.TypeTextHTML, func(w io.Writer) (int64, error) {
		cw := &countingWriter{w: w}
		if err := page.ExecuteTemplate(cw, "head", nil); err != nil {
			return cw.n, err
		}
		err := eachNewEntry(ctx, db, before, func(e entry) error { return page.ExecuteTemplate(cw, "entry", e) })
		if err != nil {
			return cw.n, err
		}
		err = page.ExecuteTemplate(cw, "foot", nil)
		return cw.n, err
	})
	return msg.WriteToFile(path)
}

// countingWriter counts what it writes, as go-mail's body writers report.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// phase is the part of the run under way, for the memory samples:
// phasePoll, then phasePage and phaseEmail if anything was new.
var phase atomic.Int32

const (
	phasePoll = iota
	phasePage
	phaseEmail
)

var phaseNames = [...]string{"poll", "page", "email"}

// heapPeaks are the largest memory figures sampled during each phase.
type heapPeaks struct {
	mu sync.Mutex
	of [len(phaseNames)]peak
}

// peak is one phase's largest figures: the Go heap's objects (live and
// not yet swept), what the runtime had mapped and not given back to the
// kernel, and the process's resident set.
type peak struct{ objects, held, rss uint64 }

// sampleHeap reads the runtime's heap and the resident set every
// interval until the process ends, keeping each phase's largest figures:
// a peak between samples is missed.
func sampleHeap(interval time.Duration) *heapPeaks {
	peaks := &heapPeaks{}
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	go func() {
		for range time.Tick(interval) {
			metrics.Read(samples)
			rss := residentBytes()
			peaks.mu.Lock()
			p := &peaks.of[phase.Load()]
			p.objects = max(p.objects, samples[0].Value.Uint64())
			p.held = max(p.held, samples[1].Value.Uint64()-samples[2].Value.Uint64())
			p.rss = max(p.rss, rss)
			peaks.mu.Unlock()
		}
	}()
	return peaks
}

// residentBytes is the process's VmRSS, 0 if it cannot be read.
func residentBytes() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb uint64
			fmt.Sscan(v, &kb)
			return kb << 10
		}
	}
	return 0
}

// printMemStats prints each phase's sampled peaks, the Go runtime's memory at
// exit (what it has mapped, the heap's objects, what it holds free or
// gave back) and the process's resident set as the kernel counts it:
// anonymous pages beyond the runtime's are mostly SQLite's (modernc's
// libc allocates outside the Go heap).
func printMemStats(w io.Writer, peaks *heapPeaks) {
	peaks.mu.Lock()
	for i, p := range peaks.of {
		if p.rss > 0 {
			fmt.Fprintf(w, "memstats %s-peak heap-objects %d runtime-held %d rss %d\n", phaseNames[i], p.objects, p.held, p.rss)
		}
	}
	peaks.mu.Unlock()
	names := []string{
		"/memory/classes/total:bytes",
		"/memory/classes/heap/objects:bytes",
		"/memory/classes/heap/unused:bytes",
		"/memory/classes/heap/free:bytes",
		"/memory/classes/heap/released:bytes",
		"/memory/classes/heap/stacks:bytes",
		"/memory/classes/metadata/other:bytes",
		"/gc/heap/goal:bytes",
		"/gc/heap/allocs:bytes",
		"/gc/cycles/total:gc-cycles",
	}
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	metrics.Read(samples)
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			fmt.Fprintf(w, "memstats %s %d\n", s.Name, s.Value.Uint64())
		}
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		for _, field := range []string{"VmHWM:", "VmRSS:", "RssAnon:", "RssFile:"} {
			if strings.HasPrefix(line, field) {
				fmt.Fprintf(w, "memstats %s", strings.Join(strings.Fields(line), " ")+"\n")
			}
		}
	}
}
