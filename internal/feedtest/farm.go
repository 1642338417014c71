package feedtest

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Farm serves RSS feeds from many loopback hosts (127.0.1.1, 127.0.1.2,
// ...: each a host of its own to the per-host limits), for the tests of
// runs that share passes: each answer comes after a delay, and the farm
// records per pass how often each feed was asked for and how many
// requests it answered 304 Not Modified, and the most requests any host
// had in flight at once. A feed is its posts, newest first, twenty at
// most; an entry is dated with the pass it was posted in, as a real feed
// dates it. Its methods are safe to call while it serves.
type Farm struct {
	mu       sync.Mutex
	pass     string
	asked    map[string]map[string]int // pass -> feed URL -> requests
	gets     map[string]map[string]int // pass -> feed URL -> GETs
	unmoved  map[string]int            // pass -> requests answered 304
	inFlight map[string]int            // host -> requests being answered
	peak     map[string]int            // host -> most in flight at once
	posts    map[string][]string       // feed URL -> entry ids, oldest first
	dated    map[string]string         // entry id -> its date, the pass it was posted in
	delay    time.Duration
	padding  int
	hold     func(*http.Request)
	hosts    []string // base URLs, http://127.0.x.y:port
	servers  []*http.Server
}

// NewFarm starts hosts servers, each answering after delay; Close stops
// them. It needs 127.0.0.0/8 as loopback (all of it is, on Linux).
func NewFarm(hosts int, delay time.Duration) (*Farm, error) {
	f := &Farm{asked: map[string]map[string]int{}, gets: map[string]map[string]int{}, unmoved: map[string]int{}, inFlight: map[string]int{},
		peak: map[string]int{}, posts: map[string][]string{}, dated: map[string]string{}, delay: delay}
	f.StartPass("") // until the test names one
	for i := range hosts {
		ip := fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250)
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("listen on %s (the farm needs 127.0.0.0/8 as loopback): %w", ip, err)
		}
		srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(l)
		f.servers = append(f.servers, srv)
		f.hosts = append(f.hosts, "http://"+l.Addr().String())
	}
	return f, nil
}

// StartFarm starts a farm that stops when the test ends, or ends the
// test.
func StartFarm(t interface {
	Cleanup(func())
	Fatal(args ...any)
}, hosts int, delay time.Duration) *Farm {
	f, err := NewFarm(hosts, delay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// Close stops the servers.
func (f *Farm) Close() {
	for _, s := range f.servers {
		s.Close()
	}
}

// Hosts are the base URLs of the hosts, http://127.0.x.y:PORT.
func (f *Farm) Hosts() []string { return f.hosts }

// URL is the address of path on the host numbered host.
func (f *Farm) URL(host int, path string) string { return f.hosts[host] + path }

// SetPadding gives each entry's description paragraphs paragraphs of
// text beyond its first: a heavier body takes longer to parse and
// sanitise.
func (f *Farm) SetPadding(paragraphs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.padding = paragraphs
}

// Hold makes every request, once counted in flight, wait in hold before
// it is answered (nil: no more): a test can hold an answer until what it
// waits for has happened, instead of a delay long enough.
func (f *Farm) Hold(hold func(*http.Request)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = hold
}

// StartPass makes the requests from now on, and the posts, belong to the
// pass name.
func (f *Farm) StartPass(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pass = name
	if f.asked[name] == nil {
		f.asked[name], f.gets[name] = map[string]int{}, map[string]int{}
	}
}

// Post adds the entry id to the feed at url, dated with the pass.
func (f *Farm) Post(url, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts[url] = append(f.posts[url], id)
	f.dated[id] = f.pass
}

// Requests are, by pass and feed URL, the requests of any method.
func (f *Farm) Requests() map[string]map[string]int { return f.counts(f.asked) }

// Gets are, by pass and feed URL, the GET requests.
func (f *Farm) Gets() map[string]map[string]int { return f.counts(f.gets) }

func (f *Farm) counts(of map[string]map[string]int) map[string]map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]map[string]int, len(of))
	for pass, n := range of {
		out[pass] = maps.Clone(n)
	}
	return out
}

// NotModified is, by pass, how many requests were answered 304 (they
// echoed the feed's ETag).
func (f *Farm) NotModified() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.unmoved)
}

// Peaks are, by host (127.0.x.y:PORT), the most requests it had in
// flight at once.
func (f *Farm) Peaks() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.peak)
}

func (f *Farm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	url := "http://" + r.Host + r.URL.Path
	f.mu.Lock()
	f.asked[f.pass][url]++
	if r.Method == http.MethodGet {
		f.gets[f.pass][url]++
	}
	f.inFlight[r.Host]++
	f.peak[r.Host] = max(f.peak[r.Host], f.inFlight[r.Host])
	pass := f.pass
	ids := append([]string(nil), f.posts[url]...)
	dates := make([]string, len(ids))
	for i, id := range ids {
		dates[i] = f.dated[id]
	}
	delay, padding, hold := f.delay, f.padding, f.hold
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight[r.Host]--
		f.mu.Unlock()
	}()
	if hold != nil {
		hold(r)
	}
	select {
	case <-time.After(delay):
	case <-r.Context().Done(): // the client went away (a killed run)
		return
	}
	etag := fmt.Sprintf(`"%d"`, len(ids))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		f.mu.Lock()
		f.unmoved[pass]++
		f.mu.Unlock()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<rss version="2.0"><channel><title>%s</title>`, r.URL.Path)
	for i := len(ids) - 1; i >= 0 && i >= len(ids)-20; i-- {
		fmt.Fprintf(&b, `<item><guid>%[1]s</guid><title>Post %[1]s</title><link>https://site.example/%[1]s</link><description>Text of %[1]s`, ids[i])
		for p := range padding {
			fmt.Fprintf(&b, `&lt;p&gt;Paragraph %d of %s, &lt;em&gt;with some&lt;/em&gt; &lt;a href="https://site.example/%s/%d"&gt;markup&lt;/a&gt; to sanitise, and words enough to make an excerpt of it all.&lt;/p&gt;`, p, ids[i], ids[i], p)
		}
		b.WriteString(`</description>`)
		if when, err := time.Parse(time.RFC3339, dates[i]); err == nil {
			fmt.Fprintf(&b, `<pubDate>%s</pubDate>`, when.Format(time.RFC1123Z))
		}
		b.WriteString(`</item>`)
	}
	b.WriteString(`</channel></rss>`)
	fmt.Fprint(w, b.String())
}
