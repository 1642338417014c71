// Package feedtest serves web feeds on a loopback port, for tests and the
// demo, as net/http/httptest serves handlers: feeds built from entries
// and answered as a well-configured server would (an ETag, Last-Modified
// when given, 304 to a conditional request that matches, 405 to methods
// other than GET and HEAD); scripted answers in a feed's place (404, 410,
// 429 or 503 with Retry-After, a redirect, an HTML page); a latency;
// bespoke handlers; and a folder of files. It records every request, by
// path and method, and how many were in flight at once, per host. A Farm
// serves simple feeds from many loopback hosts at once, for the runs that
// share passes.
package feedtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"time"
)

// Server is a running feed server. Its methods are safe to call while it
// serves.
type Server struct {
	// URL is the base URL, http://127.0.0.1:PORT, with no trailing slash.
	URL string
	ts  *httptest.Server

	mu       sync.Mutex
	feeds    map[string]*Feed
	answers  map[string]Response
	handlers map[string]http.Handler
	files    *Files
	window   int
	latency  time.Duration
	log      []request
	inFlight map[string]int // by host
	// uncounted are paths left out of the in-flight counts (see Uncounted).
	uncounted map[string]bool
	peak      map[string]int // by host
	total     int
	peakAll   int
}

type request struct {
	method, path string
	status       int
}

// New starts a server; Close stops it.
func New() *Server {
	s := &Server{feeds: map[string]*Feed{}, answers: map[string]Response{}, handlers: map[string]http.Handler{},
		inFlight: map[string]int{}, peak: map[string]int{}}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.ts.URL
	return s
}

// NewOn starts a server listening on ip (any address of 127.0.0.0/8 on
// Linux), so that tests can have many hosts, each with its own politeness
// gate in the client; Close stops it.
func NewOn(ip string) (*Server, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, err
	}
	s := &Server{feeds: map[string]*Feed{}, answers: map[string]Response{}, handlers: map[string]http.Handler{},
		inFlight: map[string]int{}, peak: map[string]int{}}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.Listener.Close()
	s.ts.Listener = l
	s.ts.Start()
	s.URL = s.ts.URL
	return s, nil
}

// Start starts a server that stops when the test ends.
func Start(t interface{ Cleanup(func()) }) *Server {
	s := New()
	t.Cleanup(s.Close)
	return s
}

// Close stops the server, waiting for the requests in progress.
func (s *Server) Close() { s.ts.Close() }

// Add appends entries, oldest first, to the RSS feed at path, creating
// it titled "Feed <path>" with the site https://site.example<path>/.
func (s *Server) Add(path string, entries ...Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.feeds[path]
	if f == nil {
		f = &Feed{Title: "Feed " + path, SiteURL: "https://site.example" + path + "/"}
		s.feeds[path] = f
	}
	f.Entries = append(f.Entries, entries...)
}

// Publish puts f at path, replacing what was there.
func (s *Server) Publish(path string, f Feed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f.Entries = append([]Entry(nil), f.Entries...)
	f.Header = canonical(f.Header)
	s.feeds[path] = &f
}

// Respond answers requests for path with r instead of the feed there,
// until Respond is called again; the zero Response clears it.
func (s *Server) Respond(path string, r Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Status == 0 {
		delete(s.answers, path)
		return
	}
	r.Header = canonical(r.Header)
	s.answers[path] = r
}

// canonical is a copy of h with its keys in canonical form, so a literal
// http.Header{"ETag": ...} is found by Get.
func canonical(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		for _, value := range v {
			out.Add(k, value)
		}
	}
	return out
}

// Redirect answers requests for path with a redirect to to (a path on
// this server or a URL) with status code.
func (s *Server) Redirect(path, to string, code int) {
	s.Respond(path, Response{Status: code, Header: http.Header{"Location": {to}}})
}

// Handle serves path with h, ahead of anything else there; its requests
// are recorded like the others.
func (s *Server) Handle(path string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[path] = h
}

// ServeFiles serves the files of f for paths that have no feed, answer
// or handler.
func (s *Server) ServeFiles(f Files) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = &f
}

// SetWindow makes a feed's body list only its n newest entries, as
// servers do (0: all).
func (s *Server) SetWindow(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.window = n
}

// SetLatency delays every answer by d, or until the client gives up.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// Requests lists the requests so far, in order, as "METHOD /path STATUS"
// (status 0: the client went away first).
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.log))
	for i, r := range s.log {
		out[i] = fmt.Sprintf("%s %s %d", r.method, r.path, r.status)
	}
	return out
}

// Count is the number of requests for path so far, of any method.
func (s *Server) Count(path string) int { return s.CountMethod("", path) }

// CountMethod is the number of requests with method ("": any) for path
// so far.
func (s *Server) CountMethod(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.path == path && (method == "" || r.method == method) {
			n++
		}
	}
	return n
}

// PeakInFlight is the most requests the server was answering at once.
func (s *Server) PeakInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peakAll
}

// PeakInFlightPerHost is, per host (the request's Host, with the port),
// the most requests the server was answering at once.
func (s *Server) PeakInFlightPerHost() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.peak)
}

// Uncounted leaves path out of PeakInFlight and PeakInFlightPerHost: for
// a handler that holds its answer until the client gives up, which the
// server learns only a moment after the client, who may by then have sent
// its next request to the host.
func (s *Server) Uncounted(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uncounted == nil {
		s.uncounted = map[string]bool{}
	}
	s.uncounted[path] = true
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w}
	counted := s.begin(r.Host, r.URL.Path)
	defer func() {
		s.end(r.Host, counted, request{method: r.Method, path: r.URL.Path, status: rec.status})
	}()
	if !s.wait(r.Context()) {
		return
	}
	s.answer(rec, r)
}

func (s *Server) begin(host, path string) (counted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uncounted[path] {
		return false
	}
	s.inFlight[host]++
	s.peak[host] = max(s.peak[host], s.inFlight[host])
	s.total++
	s.peakAll = max(s.peakAll, s.total)
	return true
}

func (s *Server) end(host string, counted bool, r request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if counted {
		s.inFlight[host]--
		s.total--
	}
	s.log = append(s.log, r)
}

// wait waits out the latency; false when the client gave up first.
func (s *Server) wait(ctx context.Context) bool {
	s.mu.Lock()
	d := s.latency
	s.mu.Unlock()
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// answer serves r from a snapshot of path's configuration, taken under
// the lock, so a test may change the server while a request is answered.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h, hasHandler := s.handlers[r.URL.Path]
	a, hasAnswer := s.answers[r.URL.Path]
	var body []byte
	var feed Feed
	f, hasFeed := s.feeds[r.URL.Path]
	if hasFeed {
		feed = *f
		body = f.body(r.URL.Path, s.window)
	}
	files := s.files
	s.mu.Unlock()
	switch {
	case hasHandler:
		h.ServeHTTP(w, r)
	case hasAnswer:
		a.write(w)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case hasFeed:
		feed.write(w, r, body)
	case files != nil:
		files.serve(w, r)
	default:
		http.NotFound(w, r)
	}
}

// Response is a scripted answer.
type Response struct {
	Status     int
	RetryAfter string // the Retry-After header, when not empty: seconds or an HTTP date
	Header     http.Header
	Body       string
}

func (a Response) write(w http.ResponseWriter) {
	maps.Copy(w.Header(), a.Header)
	if a.RetryAfter != "" {
		w.Header().Set("Retry-After", a.RetryAfter)
	}
	w.WriteHeader(a.Status)
	w.Write([]byte(a.Body))
}

// Files is a folder of files to serve, such as sample feeds.
type Files struct {
	FS fs.FS
	// Modified is every file's Last-Modified (none when zero).
	Modified time.Time
	// ContentTypes maps a file name extension (".xml") to the
	// Content-Type to send, before the standard table.
	ContentTypes map[string]string
}

func (f *Files) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	body, err := fs.ReadFile(f.FS, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ext := path.Ext(name)
	ct, ok := f.ContentTypes[ext]
	if !ok {
		ct = mime.TypeByExtension(ext)
	}
	h := http.Header{"Content-Type": {ct}}
	if !f.Modified.IsZero() {
		h.Set("Last-Modified", f.Modified.UTC().Format(http.TimeFormat))
	}
	ServeConditional(w, r, h, body)
}

// ServeConditional answers with body, or 304 when the request's
// validators match: If-None-Match against the ETag (which the server
// makes from the body when h has none), else If-Modified-Since against
// Last-Modified.
func ServeConditional(w http.ResponseWriter, r *http.Request, h http.Header, body []byte) {
	maps.Copy(w.Header(), h)
	etag := h.Get("ETag")
	if etag == "" {
		etag = hashETag(body)
		w.Header().Set("ETag", etag)
	}
	if notModified(r, etag, w.Header().Get("Last-Modified")) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body)
}

func notModified(r *http.Request, etag, lastModified string) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etag != "" && inm == etag
	}
	ims, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	if err != nil || lastModified == "" {
		return false
	}
	lm, err := http.ParseTime(lastModified)
	return err == nil && !lm.After(ims)
}

func hashETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

// recorder notes the status a handler answered with.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush lets a handler stream its body.
func (r *recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
