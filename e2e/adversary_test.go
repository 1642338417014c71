package e2e

// The adversarial simulation: seeded random publishers that behave the
// way real servers do (well or badly), users around the world, runs of
// the real binary over months (daily, and hourly on some days), some
// killed with SIGKILL at moments timed from what the servers and the
// relay see, and a model written from the design's rules, not from the
// code, that says which digest of which user must hold each entry and
// when. See TestAdversarialSimulation.

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"feeddigest/internal/smtptest"
)

// simDefaultOff are the server kinds and events switched off unless
// FEEDDIGEST_SIM_OFF says otherwise (a comma-separated list of
// ignore-fixed, rebuild, url-variants, kill; "none": everything on). None
// is: the bugs of issue 22 they exercised are fixed.
const simDefaultOff = ""

// simCISeeds are the seeds CI runs (FEEDDIGEST_SIM_SEEDS=N runs seeds 1
// to N instead, FEEDDIGEST_TEST_SEED=N that one seed).
var simCISeeds = []uint64{1, 2, 3}

// simKind is how a simulated server behaves.
type simKind struct {
	honour   bool   // answers 304 to a matching conditional request
	etag, lm string // "none", "honest" (follows the body), "fixed" (never changes), "churn" (changes every hour, body or not)
	window   int    // the body lists only the window newest entries (0: all)
	rebuild  bool   // the site is rebuilt now and then, every guid new
	spells   bool   // spells of 404/500/503/429
	noHead   bool   // answers HEAD with 405
	slow     bool   // every answer after a delay
	atom     bool
	// Publishers whose HEAD is not their GET, whose clocks are wrong, and
	// the other ways real feeds differ.
	headErr   int    // HEAD alone answered with this status (404, 410, 500, 429; 405 is noHead)
	staleHead bool   // HEAD answered by a cache in front of the origin: the validators of an old GET
	noDate    bool   // answers carry no Date header
	encoding  string // "gzip" or "br" when asked for
	maxAge    int    // Cache-Control max-age, seconds
	blog      bool   // few posts, the last ten kept for months, some from before the start
	noGuid    bool   // items without guid or id: known by their link
	sloppy    bool   // ill-formed XML: bare ampersands, undeclared entities, control characters
	edits     bool   // posts edited after publication, some deleted
	gone      bool   // answers 410 from some time on
	moved     bool   // moves for good (301) from some time on
	fullText  bool   // a teaser feed the users read with full_text: its links are article pages, served through the proxy
}

// base is the kind's family: compliant, churn, ignore, ignore-fixed or
// bare.
func (k simKind) base() string {
	switch {
	case k.etag == "none" && k.lm == "none":
		return "bare"
	case k.honour && k.etag != "churn" && k.lm != "churn":
		return "compliant"
	case k.honour:
		return "churn"
	case k.etag == "fixed" || k.lm == "fixed":
		return "ignore-fixed"
	}
	return "ignore"
}

// tags name the kind's behaviours, for switching them off and for the
// story of a failure.
func (k simKind) tags() []string {
	tags := []string{k.base()}
	if k.window > 0 {
		tags = append(tags, "window")
	}
	for _, t := range []struct {
		on   bool
		name string
	}{{k.rebuild, "rebuild"}, {k.spells, "spells"}, {k.noHead, "no-head"}, {k.slow, "slow"},
		{k.headErr != 0, fmt.Sprintf("head-%d", k.headErr)}, {k.staleHead, "stale-head"}, {k.noDate, "no-date"},
		{k.encoding != "", k.encoding}, {k.maxAge > 0, fmt.Sprintf("max-age-%d", k.maxAge)}, {k.blog, "blog"},
		{k.noGuid, "no-guid"}, {k.sloppy, "sloppy"}, {k.edits, "edits"}, {k.gone, "gone"}, {k.moved, "moved"}, {k.fullText, "full-text"}} {
		if t.on {
			tags = append(tags, t.name)
		}
	}
	return tags
}

func (k simKind) String() string {
	return fmt.Sprintf("%s (etag %s, last-modified %s, window %d)", strings.Join(k.tags(), "+"), k.etag, k.lm, k.window)
}

type simPost struct {
	n       int
	at      time.Time
	edited  time.Time // zero: never
	deleted time.Time // zero: never
}

type simSpell struct {
	from, to   time.Time
	status     int
	retryAfter bool
}

type simFeed struct {
	name     string // f3
	host     int
	kind     simKind
	posts    []simPost   // oldest first
	rebuilds []time.Time // when the site was rebuilt
	spells   []simSpell
	latency  time.Duration
	fixedLM  time.Time
	goneAt   time.Time // zero: never
	movedAt  time.Time // from then on 301 onto /fN-new.xml; zero: never

	// What a cache in front of the origin answers a HEAD with: the
	// validators of the GET it last saw (under simWorld.mu).
	cacheETag, cacheLM string
}

func (f *simFeed) path() string { return "/" + f.name + ".xml" }

func simLink(feed string, n int) string { return fmt.Sprintf("https://site.example/%s/p%d", feed, n) }

// link is the address of post n: for a full_text feed a page the program
// fetches, over plain HTTP through the simulation's proxy (the only way a
// name other than a loopback address reaches a test server).
func (f *simFeed) link(n int) string {
	if f.kind.fullText {
		return fmt.Sprintf("http://site.example/%s/p%d", f.name, n)
	}
	return simLink(f.name, n)
}

// content is the feed's body at now and when it last changed.
func (f *simFeed) content(now, start time.Time) (body []byte, changed time.Time, links []string) {
	var shown []simPost
	changed = start
	for _, p := range f.posts {
		if !p.at.After(now) {
			changed = maxTime(changed, p.at)
			if !p.edited.IsZero() && !p.edited.After(now) {
				changed = maxTime(changed, p.edited)
			}
			if !p.deleted.IsZero() && !p.deleted.After(now) {
				changed = maxTime(changed, p.deleted)
				continue
			}
			shown = append(shown, p)
		}
	}
	if f.kind.window > 0 && len(shown) > f.kind.window {
		shown = shown[len(shown)-f.kind.window:]
	}
	build := 0
	for _, r := range f.rebuilds {
		if !r.After(now) {
			build++
			if r.After(changed) {
				changed = r
			}
		}
	}
	var b strings.Builder
	title := "Feed " + f.name
	site := "https://site.example/" + f.name + "/"
	if f.kind.atom {
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>%s</title><id>urn:sim:%s</id><link href="%s"/>`, title, f.name, site)
	} else {
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>%s</title><link>%s</link>`, title, site)
	}
	for i := len(shown) - 1; i >= 0; i-- {
		p := shown[i]
		link := f.link(p.n)
		links = append(links, link)
		id := fmt.Sprintf("tag:site.example,2026:%s/%d", f.name, p.n)
		if f.kind.rebuild {
			id = fmt.Sprintf("tag:site.example,2026:build-%d/%s/%d", build, f.name, p.n)
		}
		text := html.EscapeString(fmt.Sprintf("<p>Post %d of %s: something worth reading, written at %s.</p>", p.n, f.name, p.at.Format(time.RFC3339)))
		if !p.edited.IsZero() && !p.edited.After(now) {
			text += html.EscapeString("<p>Edited: a typo fixed.</p>")
		}
		ptitle := fmt.Sprintf("Post %d of %s", p.n, f.name)
		if f.kind.sloppy {
			ptitle += " &nbsp;& friends\x01"
		}
		idTag := fmt.Sprintf("<guid isPermaLink=\"false\">%s</guid>", id)
		if f.kind.atom {
			idTag = "<id>" + id + "</id>"
		}
		if f.kind.noGuid {
			idTag = ""
		}
		if f.kind.atom {
			fmt.Fprintf(&b, `<entry>%s<title>%s</title><link href="%s"/><updated>%s</updated><content type="html">%s</content></entry>`,
				idTag, ptitle, link, p.at.Format(time.RFC3339), text)
		} else {
			fmt.Fprintf(&b, `<item>%s<title>%s</title><link>%s</link><description>%s</description><pubDate>%s</pubDate></item>`,
				idTag, ptitle, link, text, p.at.Format(time.RFC1123Z))
		}
	}
	if f.kind.atom {
		b.WriteString("</feed>")
	} else {
		b.WriteString("</channel></rss>")
	}
	return []byte(b.String()), changed, links
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// shownAt is the numbers of the posts in the feed's body at now.
func (f *simFeed) shownAt(now time.Time) map[int]bool {
	var shown []int
	for _, p := range f.posts {
		if !p.at.After(now) && (p.deleted.IsZero() || p.deleted.After(now)) {
			shown = append(shown, p.n)
		}
	}
	if f.kind.window > 0 && len(shown) > f.kind.window {
		shown = shown[len(shown)-f.kind.window:]
	}
	out := map[int]bool{}
	for _, n := range shown {
		out[n] = true
	}
	return out
}

func (f *simFeed) spell(now time.Time) *simSpell {
	for i := range f.spells {
		if s := &f.spells[i]; !now.Before(s.from) && now.Before(s.to) {
			return s
		}
	}
	return nil
}

// simReq is one request a server answered, as the model reads it.
type simReq struct {
	run          int // index into simWorld.runs
	at           time.Time
	feed         int
	method       string
	status       int  // 0: the client went away before the answer
	conditional  bool // If-None-Match or If-Modified-Since sent
	inm, ims     string
	etag, lm     string // the validators answered (or that would have been)
	bodyHash     string // of the feed's body at that time, sent or not
	links        []string
	servedEntrys bool      // a 200 to a GET: links were in the body sent
	date         time.Time // the answer's Date header (zero: none sent)
	staleHead    bool      // a HEAD answered from the cache, with an old GET's validators
	path         string    // /f3.xml, /f3-new.xml, /f3-mirror.xml
}

type simRun struct {
	at      time.Time
	killed  bool
	trigger string // what the kill was timed from
}

// simWorld is the servers' side: the simulated clock and every feed.
type simWorld struct {
	start time.Time
	feeds []*simFeed
	hosts []string // base URLs, one per loopback host
	proxy string   // the proxy serving the article pages of full_text feeds

	mu     sync.Mutex
	run    int
	runs   []simRun
	log    []simReq
	killer *simKiller
	// Requests in flight, and the most at once, per host and run.
	inFlight, maxFlight map[[2]int]int
	pages               map[int]int // article pages asked for, per run
}

func simHash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

func (w *simWorld) handler(host int) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".xml")
		page := strings.HasSuffix(r.URL.Path, ".html")
		if page {
			name = strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".html")
		}
		name, variant, _ := strings.Cut(name, "-") // f3-new, f3-mirror
		i := slices.IndexFunc(w.feeds, func(f *simFeed) bool { return f.host == host && f.name == name })
		if i < 0 {
			http.NotFound(rw, r)
			return
		}
		f := w.feeds[i]
		run, now := w.runOf(r)
		if page {
			// An HTML page that announces its feed: the user listed the
			// page, the program finds the feed.
			rw.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(rw, `<!doctype html><html><head><title>%s</title><link rel="alternate" type="application/rss+xml" href="%s"></head><body><p>A site.</p></body></html>`, f.name, f.path())
			return
		}
		w.flight(host, run, 1)
		defer w.flight(host, run, -1)
		req := simReq{run: run, at: now, feed: i, method: r.Method, path: r.URL.Path,
			inm: r.Header.Get("If-None-Match"), ims: r.Header.Get("If-Modified-Since")}
		req.conditional = req.inm != "" || req.ims != ""
		body, changed, links := f.content(now, w.start)
		req.bodyHash = simHash(body)
		switch f.kind.etag {
		case "honest":
			req.etag = `"` + req.bodyHash + `"`
		case "fixed":
			req.etag = `"v1"`
		case "churn":
			req.etag = fmt.Sprintf(`"h%d"`, now.Unix()/3600)
		}
		switch f.kind.lm {
		case "honest":
			req.lm = changed.UTC().Format(http.TimeFormat)
		case "fixed":
			req.lm = f.fixedLM.UTC().Format(http.TimeFormat)
		case "churn":
			req.lm = now.UTC().Format(http.TimeFormat)
		case "future":
			// A wrong clock: a date years ahead, while the server compares
			// If-Modified-Since with the true time of its last change.
			req.lm = "Tue, 01 Jan 2030 00:00:00 GMT"
		}
		h := rw.Header()
		if f.kind.noDate {
			h["Date"] = nil
		} else {
			req.date = now
			h.Set("Date", now.UTC().Format(http.TimeFormat))
		}
		defer func() {
			w.mu.Lock()
			w.log = append(w.log, req)
			w.mu.Unlock()
		}()
		if wait := w.killer.request(run); wait != nil {
			// This request is the kill's moment: it hangs until the
			// process is dead.
			select {
			case <-wait:
			case <-r.Context().Done():
			}
			return
		}
		if f.latency > 0 {
			select {
			case <-time.After(f.latency):
			case <-r.Context().Done():
				return
			}
		}
		// Redirects: a feed moved for good (301) from some time on; spells
		// of a temporary one (302) onto a mirror, or of a loop.
		if !f.movedAt.IsZero() && !now.Before(f.movedAt) && variant == "" {
			req.status = http.StatusMovedPermanently
			http.Redirect(rw, r, "/"+f.name+"-new.xml", req.status)
			return
		}
		if s := f.spell(now); s != nil && (s.status == simTemporary || s.status == simLoop) && variant != "mirror" {
			req.status = http.StatusFound
			to := "/" + f.name + "-mirror.xml"
			if s.status == simLoop {
				to = r.URL.Path
			}
			http.Redirect(rw, r, to, req.status)
			return
		}
		if !f.goneAt.IsZero() && !now.Before(f.goneAt) {
			req.status = http.StatusGone
			http.Error(rw, "gone", req.status)
			return
		}
		if s := f.spell(now); s != nil && s.status != simTemporary {
			switch s.status {
			case simDrop:
				// The connection dropped without an answer.
				if hj, ok := rw.(http.Hijacker); ok {
					if c, _, err := hj.Hijack(); err == nil {
						c.Close()
					}
				}
				return
			case simHang:
				// No answer within the client's timeout.
				select {
				case <-time.After(simFetchTimeout + time.Second):
				case <-r.Context().Done():
				}
				return
			}
			if s.retryAfter {
				if s.status == 429 {
					rw.Header().Set("Retry-After", "3600")
				} else {
					rw.Header().Set("Retry-After", now.Add(2*time.Hour).UTC().Format(http.TimeFormat))
				}
			}
			req.status = s.status
			http.Error(rw, http.StatusText(s.status), s.status)
			return
		}
		if r.Method != http.MethodGet && (r.Method != http.MethodHead || f.kind.noHead) {
			rw.Header().Set("Allow", "GET")
			req.status = http.StatusMethodNotAllowed
			http.Error(rw, "method not allowed", req.status)
			return
		}
		if r.Method == http.MethodHead && f.kind.headErr != 0 {
			// A CDN rule or a framework without HEAD: the GET works.
			if f.kind.headErr == 429 {
				h.Set("Retry-After", "3600")
			}
			req.status = f.kind.headErr
			rw.WriteHeader(req.status)
			return
		}
		if f.kind.atom {
			h.Set("Content-Type", "application/atom+xml")
		} else {
			h.Set("Content-Type", "application/rss+xml")
		}
		if f.kind.maxAge > 0 {
			h.Set("Cache-Control", fmt.Sprintf("max-age=%d", f.kind.maxAge))
		}
		if r.Method == http.MethodHead && f.kind.staleHead {
			// A cache in front of the origin answers the HEAD with the
			// validators of the last GET it passed on.
			w.mu.Lock()
			if f.cacheETag != "" || f.cacheLM != "" {
				req.staleHead = req.etag != f.cacheETag || req.lm != f.cacheLM
				req.etag, req.lm = f.cacheETag, f.cacheLM
			}
			w.mu.Unlock()
		}
		if req.etag != "" {
			h.Set("ETag", req.etag)
		}
		if req.lm != "" {
			h.Set("Last-Modified", req.lm)
		}
		notModified := simNotModified(req)
		if f.kind.lm == "future" && req.inm == "" && req.ims != "" {
			ims, err := http.ParseTime(req.ims)
			notModified = err == nil && !changed.After(ims)
		}
		if f.kind.honour && notModified {
			req.status = http.StatusNotModified
			rw.WriteHeader(req.status)
			return
		}
		if r.Method == http.MethodGet {
			w.mu.Lock()
			f.cacheETag, f.cacheLM = req.etag, req.lm
			w.mu.Unlock()
		}
		sent := body
		if f.kind.encoding != "" && strings.Contains(r.Header.Get("Accept-Encoding"), f.kind.encoding) {
			sent = simEncode(f.kind.encoding, body)
			h.Set("Content-Encoding", f.kind.encoding)
		}
		h.Set("Content-Length", strconv.Itoa(len(sent)))
		req.status = http.StatusOK
		rw.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			req.servedEntrys = true
			req.links = links
			rw.Write(sent)
		}
	})
}

// runOf is the run that asks, named in the User-Agent (the config's
// contact, rewritten for each run): a killed run's request may be
// answered after the next run began.
func (w *simWorld) runOf(r *http.Request) (run int, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	run = w.run
	if m := simRunAgent.FindStringSubmatch(r.UserAgent()); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n < len(w.runs) {
			run = n
		}
	}
	return run, w.runs[run].at
}

// simArticleHost is the proxy's number among the hosts, for politeness.
const simArticleHost = 5

var simArticlePath = regexp.MustCompile(`^/(f\d+)/p(\d+)$`)

// articles is the proxy the program reaches site.example through: the
// article pages of full_text feeds. A kill in the articles phase hangs
// the nth page of the run until the process is dead; one page in
// sixteen fails (the entry keeps its teaser).
func (w *simWorld) articles() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		run, _ := w.runOf(r)
		w.flight(simArticleHost, run, 1)
		defer w.flight(simArticleHost, run, -1)
		w.mu.Lock()
		if w.pages == nil {
			w.pages = map[int]int{}
		}
		w.pages[run]++
		w.mu.Unlock()
		if wait := w.killer.article(run); wait != nil {
			select {
			case <-wait:
			case <-r.Context().Done():
			}
			return
		}
		m := simArticlePath.FindStringSubmatch(r.URL.Path)
		if r.Host != "site.example" || m == nil {
			http.NotFound(rw, r)
			return
		}
		if simHash([]byte(r.URL.Path))[0] == '0' {
			http.Error(rw, "busy", http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(rw, "<!doctype html><html><head><title>Post %s of %s</title></head><body><article><h1>Post %s of %s</h1>%s</article></body></html>",
			m[2], m[1], m[2], m[1], strings.Repeat(fmt.Sprintf("<p>The whole of post %s of %s, as its page has it, longer than the teaser the feed carries.</p>", m[2], m[1]), 8))
	})
}

// Spells that are not statuses.
const (
	simDrop = -1 // the connection is closed without an answer
	simHang = -2 // no answer within the timeout
	// Redirect spells.
	simTemporary = -3 // 302 onto a mirror
	simLoop      = -4 // 302 onto itself
)

// flight counts a host's requests in flight for a run, keeping the most.
func (w *simWorld) flight(host, run, d int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inFlight == nil {
		w.inFlight, w.maxFlight = map[[2]int]int{}, map[[2]int]int{}
	}
	k := [2]int{host, run}
	w.inFlight[k] += d
	w.maxFlight[k] = max(w.maxFlight[k], w.inFlight[k])
}

// simFetchTimeout is the config's [fetch] timeout: short, so that a
// server that hangs costs a run little.
const simFetchTimeout = 2 * time.Second

func simEncode(enc string, body []byte) []byte {
	var b bytes.Buffer
	var w io.WriteCloser
	if enc == "br" {
		w = brotli.NewWriter(&b)
	} else {
		w = gzip.NewWriter(&b)
	}
	w.Write(body)
	w.Close()
	return b.Bytes()
}

var simRunAgent = regexp.MustCompile(`/sim-run/([0-9]+)\)`)

// simNotModified: If-None-Match decides when sent, else
// If-Modified-Since, as RFC 9110 says.
func simNotModified(r simReq) bool {
	if r.inm != "" {
		return r.etag != "" && r.inm == r.etag
	}
	if r.ims == "" || r.lm == "" {
		return false
	}
	ims, err1 := http.ParseTime(r.ims)
	lm, err2 := http.ParseTime(r.lm)
	return err1 == nil && err2 == nil && !lm.After(ims)
}

type simUser struct {
	name, zone string
	hour       int
	weekly     bool
	day        time.Weekday
	feeds      []int    // feed indexes
	urls       []string // as written in the config
}

// digestKey is, by the design's rule, the date that names the user's digest of
// now: the local date at now minus the digest hour, or for a weekly user
// the most recent digest day at or before it.
func (u simUser) digestKey(now time.Time) string {
	loc, _ := time.LoadLocation(u.zone)
	local := now.In(loc)
	y, m, d := local.Date()
	if local.Hour() < u.hour {
		d--
	}
	day := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	if u.weekly {
		day = day.AddDate(0, 0, -((int(day.Weekday()) - int(u.day) + 7) % 7))
	}
	return day.Format(time.DateOnly)
}

// simSetup is one seed's world: feeds, their publishing and the users.
type simSetup struct {
	seed  uint64
	start time.Time
	hours int
	feeds []*simFeed
	users []simUser
	rng   *rand.Rand
	off   map[string]bool
}

func simOff() map[string]bool {
	v, ok := os.LookupEnv("FEEDDIGEST_SIM_OFF")
	if !ok {
		v = simDefaultOff
	}
	off := map[string]bool{}
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t != "" && t != "none" {
			off[t] = true
		}
	}
	return off
}

func newSimSetup(seed uint64, days int, off map[string]bool) *simSetup {
	rng := rand.New(rand.NewPCG(seed, 22))
	// Which feeds are read whole comes from a source of its own, so that
	// the rest of a seed's world stays as it was before full_text feeds
	// joined the simulation.
	whole := rand.New(rand.NewPCG(seed, 37))
	// A start anywhere in the year (daylight-saving days included), at a
	// minute past the hour that cron might choose.
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(360*24)) * time.Hour).Add(time.Duration(rng.IntN(60)) * time.Minute)
	hours := days * 24
	s := &simSetup{seed: seed, start: start, hours: hours, rng: rng, off: off}
	validators := []string{"none", "honest", "fixed", "churn", "future"}
	nfeeds := 15 + rng.IntN(8)
	for i := range nfeeds {
		f := &simFeed{name: fmt.Sprintf("f%d", i), host: rng.IntN(5), fixedLM: start.Add(-time.Duration(1+rng.IntN(1000)) * time.Hour)}
		for {
			k := simKind{honour: rng.IntN(2) == 0, etag: validators[rng.IntN(4)], lm: validators[rng.IntN(5)]}
			if k.lm == "future" {
				// A server comparing dates, its clock years ahead.
				k.honour, k.etag = true, "none"
			}
			if k.honour && (k.etag == "fixed" || k.lm == "fixed") {
				continue // its entries could never be seen: nothing to test
			}
			switch rng.IntN(3) {
			case 0:
				k.window = 3 + rng.IntN(8) // a busy feed's rolling window
			case 1:
				k.blog = true // few posts, ten kept for months
				k.window = 10
			}
			k.rebuild = rng.IntN(5) == 0
			k.spells = rng.IntN(3) == 0
			k.noHead = !k.honour && rng.IntN(6) == 0
			if !k.honour && !k.noHead && rng.IntN(3) == 0 {
				k.headErr = []int{404, 410, 500, 429}[rng.IntN(4)]
			}
			k.staleHead = !k.honour && k.headErr == 0 && !k.noHead && rng.IntN(3) == 0
			k.slow = rng.IntN(4) == 0
			k.atom = rng.IntN(3) == 0
			k.noDate = rng.IntN(4) == 0
			k.encoding = []string{"", "", "gzip", "br"}[rng.IntN(4)]
			if rng.IntN(6) == 0 {
				k.maxAge = []int{600, 3600, 7200}[rng.IntN(3)]
			}
			k.noGuid = !k.rebuild && rng.IntN(6) == 0
			k.sloppy = rng.IntN(6) == 0
			k.edits = rng.IntN(4) == 0
			k.gone = rng.IntN(15) == 0
			k.moved = rng.IntN(8) == 0
			if off[k.base()] {
				continue
			}
			for _, t := range k.tags()[1:] {
				if !off[t] && !off[strings.SplitN(t, "-", 2)[0]] {
					continue
				}
				switch {
				case t == "window" || t == "blog":
					k.window, k.blog = 0, false
				case t == "rebuild":
					k.rebuild = false
				case t == "spells":
					k.spells = false
				case t == "no-head":
					k.noHead = false
				case t == "slow":
					k.slow = false
				case strings.HasPrefix(t, "head-"):
					k.headErr = 0
				case t == "stale-head":
					k.staleHead = false
				case t == "no-date":
					k.noDate = false
				case t == "gzip" || t == "br":
					k.encoding = ""
				case strings.HasPrefix(t, "max-age"):
					k.maxAge = 0
				case t == "no-guid":
					k.noGuid = false
				case t == "sloppy":
					k.sloppy = false
				case t == "edits":
					k.edits = false
				case t == "gone":
					k.gone = false
				case t == "moved":
					k.moved = false
				}
			}
			k.fullText = !off["full-text"] && whole.IntN(4) == 0
			f.kind = k
			break
		}
		if f.kind.slow {
			f.latency = time.Duration(20+rng.IntN(150)) * time.Millisecond
		}
		// Publishing: a post in some hours, between runs; a blog's posts
		// days apart, ten of them before the start (a first digest shows
		// the five newest, the others never).
		rate := 2 + rng.IntN(30) // one post in rate hours on average
		switch {
		case f.kind.blog:
			rate = 48 + rng.IntN(300)
		case f.kind.window == 0:
			rate = 8 + rng.IntN(60) // every post kept: not too many
		}
		n := 0
		if f.kind.blog {
			for k := 10; k >= 1; k-- {
				n++
				f.posts = append(f.posts, simPost{n: n, at: start.Add(-time.Duration(k*rate) * time.Hour)})
			}
		}
		for h := 1; h < hours; h++ {
			if rng.IntN(rate) == 0 {
				n++
				p := simPost{n: n, at: start.Add(time.Duration(h)*time.Hour - time.Duration(1+rng.IntN(58))*time.Minute)}
				if f.kind.edits && rng.IntN(3) == 0 {
					p.edited = p.at.Add(time.Duration(1+rng.IntN(72)) * time.Hour)
				}
				if f.kind.edits && rng.IntN(8) == 0 {
					p.deleted = p.at.Add(time.Duration(1+rng.IntN(72)) * time.Hour)
				}
				f.posts = append(f.posts, p)
			}
		}
		if f.kind.rebuild {
			for h := 1; h < hours; h++ {
				if rng.IntN(30*days/7) == 0 {
					f.rebuilds = append(f.rebuilds, start.Add(time.Duration(h)*time.Hour-time.Duration(1+rng.IntN(58))*time.Minute))
				}
			}
		}
		if f.kind.spells {
			// Spells from the second day on (every feed is read at the
			// start), a few a month.
			for range 1 + rng.IntN(1+days/20) {
				from := start.Add(time.Duration(48+rng.IntN(hours-48))*time.Hour - 30*time.Minute)
				f.spells = append(f.spells, simSpell{from: from, to: from.Add(time.Duration(1+rng.IntN(12)) * time.Hour),
					status: []int{404, 500, 503, 429, simDrop, simHang, simTemporary, simLoop}[rng.IntN(8)], retryAfter: rng.IntN(2) == 0})
			}
		}
		if f.kind.moved {
			f.movedAt = start.Add(time.Duration(48+rng.IntN(hours-48)) * time.Hour)
		}
		if f.kind.gone {
			f.goneAt = start.Add(time.Duration(48+rng.IntN(hours-48)) * time.Hour)
		}
		s.feeds = append(s.feeds, f)
	}
	zones := []struct{ name, zone string }{{"ada", "Europe/London"}, {"bo", "America/New_York"}, {"chiyo", "Asia/Tokyo"},
		{"dev", "Asia/Kolkata"}, {"eru", "Pacific/Auckland"}}
	for i, z := range zones {
		u := simUser{name: z.name, zone: z.zone, hour: rng.IntN(24), weekly: i == len(zones)-1, day: time.Weekday(rng.IntN(7))}
		u.feeds = append(u.feeds, rng.Perm(nfeeds)[:4+rng.IntN(6)]...)
		s.users = append(s.users, u)
	}
	for fi := range nfeeds {
		if !slices.ContainsFunc(s.users, func(u simUser) bool { return slices.Contains(u.feeds, fi) }) {
			u := &s.users[rng.IntN(len(s.users))]
			u.feeds = append(u.feeds, fi)
		}
	}
	return s
}

// simRunner drives one seed: servers, config, runs, and the record.
type simRunner struct {
	t          *testing.T
	s          *simSetup
	w          *simWorld
	bin        string
	dir        string
	config     string
	configText string // with RUN for the run's number
	mail       *smtptest.Server
	kills      int
	runTime    time.Duration // spent in runs to the end
	loaded     int
	suspect    map[int]bool   // feeds read by two killed runs in a row: a penalty is then allowed
	died       []simViolation // feeds said to have died with a run, after a run to the end
	variant    map[int]bool   // feeds written another way in some user's list
	htmlPage   map[int]bool   // feeds some user listed by their site's HTML page
	events     map[int]*simFeedEvents
	cutInData  map[string][]time.Time // per user, kills that landed while the relay was taking the data of their email
	killer     *simKiller
	attempts   map[string]int // kills tried, by phase
	hits       map[string]int // kills that landed inside a run, by phase
	resumes    int            // moves to a fresh directory holding only what the workflow saves
	lastReqs   int            // requests of the last run to the end
	lastMails  int            // conversations with the relay of the last run to the end
	lastPages  int            // article pages of the last run that asked for any
	artRng     *rand.Rand     // picks kills in the articles phase (a source of its own: see newSimSetup)
}

func newSimRunner(t *testing.T, bin string, s *simSetup) *simRunner {
	w := &simWorld{start: s.start, feeds: s.feeds}
	for h := range 5 {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", 2+h))
		if err != nil {
			t.Fatalf("listen on 127.0.0.%d (the simulation needs 127.0.0.0/8 as loopback): %v", 2+h, err)
		}
		srv := httptest.NewUnstartedServer(w.handler(h))
		srv.Listener.Close()
		srv.Listener = l
		srv.Start()
		t.Cleanup(srv.Close)
		w.hosts = append(w.hosts, srv.URL)
	}
	proxy := httptest.NewServer(w.articles())
	t.Cleanup(proxy.Close)
	w.proxy = proxy.URL
	killer := newSimKiller()
	krng := rand.New(rand.NewPCG(s.seed, 35))
	killer.rng = krng.IntN
	w.killer = killer
	mail := smtptest.Start(t, smtptest.WithHook(killer.hook))
	dir := t.TempDir()
	r := &simRunner{t: t, s: s, w: w, bin: bin, dir: dir, mail: mail, suspect: map[int]bool{}, variant: map[int]bool{},
		killer: killer, attempts: map[string]int{}, hits: map[string]int{}, htmlPage: map[int]bool{}, cutInData: map[string][]time.Time{},
		artRng: rand.New(rand.NewPCG(s.seed, 38))}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "state = \"state.db\"\nsite_dir = \"site\"\nmax_entries_per_feed = 10000\n")
	fmt.Fprintf(&cfg, "[fetch]\nallow_private_networks = true\nconcurrency = 8\nper_host = 2\nhost_rate = 1000.0\ntimeout = \"2s\"\ncontact = \"https://example.org/sim-run/RUN\"\n")
	fmt.Fprintf(&cfg, "[email]\nfrom = \"Digest <digest@example.org>\"\noutbox = \"outbox\"\nsmtp = %q\ntls = \"none\"\n", mail.URL())
	for i := range s.users {
		u := &s.users[i]
		for _, fi := range u.feeds {
			u.urls = append(u.urls, w.hosts[s.feeds[fi].host]+s.feeds[fi].path())
		}
		if !s.off["url-variants"] && s.rng.IntN(2) == 0 {
			// The same feed written another way, in this user's list
			// (again) or in place of the plain form.
			k := s.rng.IntN(len(u.urls))
			variant := simVariant(u.urls[k], s.rng)
			r.variant[u.feeds[k]] = true
			if s.rng.IntN(3) == 0 && !s.off["html"] {
				// The site's page, which announces the feed.
				u.urls[k] = strings.TrimSuffix(u.urls[k], ".xml") + ".html"
				r.htmlPage[u.feeds[k]] = true
			} else if s.rng.IntN(2) == 0 {
				u.urls = append(u.urls, variant)
			} else {
				u.urls[k] = variant
			}
		}
		var quoted []string
		for _, url := range u.urls {
			if m := simListedFeed.FindStringSubmatch(url); m != nil && s.feeds[slices.IndexFunc(s.feeds, func(f *simFeed) bool { return f.name == m[1] })].kind.fullText {
				quoted = append(quoted, fmt.Sprintf("{ url = %q, full_text = true }", url))
				continue
			}
			quoted = append(quoted, strconv.Quote(url))
		}
		fmt.Fprintf(&cfg, "[[users]]\nname = %q\ntimezone = %q\nemail = \"%s@example.org\"\ndigest_hour = %d\n", u.name, u.zone, u.name, u.hour)
		if u.weekly {
			fmt.Fprintf(&cfg, "every = \"week\"\ndigest_day = %q\n", strings.ToLower(u.day.String()))
		}
		fmt.Fprintf(&cfg, "feeds = [%s]\n", strings.Join(quoted, ", "))
	}
	r.config = filepath.Join(dir, "config.toml")
	r.configText = cfg.String()
	return r
}

// simListedFeed finds the feed a listed URL names, however written.
var simListedFeed = regexp.MustCompile(`/(f\d+)\.(?:xml|html)`)

// simVariant writes url another way that DESIGN says is the same feed.
func simVariant(url string, rng *rand.Rand) string {
	rest := strings.TrimPrefix(url, "http://")
	host, path, _ := strings.Cut(rest, "/")
	switch rng.IntN(3) {
	case 0:
		return "HTTP://" + host + "/" + path
	case 1:
		return "http://" + host + "/./" + path
	}
	return url + "#top"
}

func (r *simRunner) command(now time.Time) *exec.Cmd {
	proxy := []string{"HTTP_PROXY=" + r.w.proxy, "http_proxy=" + r.w.proxy, "NO_PROXY=", "no_proxy="}
	return command(r.bin, proxy, "run", "-config", r.config, "-now", now.Format(time.RFC3339))
}

func (r *simRunner) beginRun(now time.Time) int {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.w.runs = append(r.w.runs, simRun{at: now})
	r.w.run = len(r.w.runs) - 1
	text := strings.Replace(r.configText, "/sim-run/RUN", fmt.Sprintf("/sim-run/%d", r.w.run), 1)
	writeConfig(r.t, r.dir, text)
	return r.w.run
}

func (r *simRunner) runToEnd(now time.Time) {
	run := r.beginRun(now)
	convs := r.conversations()
	began := time.Now()
	out, err := r.command(now).CombinedOutput()
	r.runTime += time.Since(began)
	if os.Getenv("FEEDDIGEST_SIM_TRACE") != "" {
		r.t.Logf("TRACE run %d at %s:\n%s", run, now.Format(time.RFC3339), out)
	}
	if err != nil {
		r.t.Fatalf("seed %d: run at %s: %v\n%s", r.s.seed, now.Format(time.RFC3339), err, out)
	}
	r.w.mu.Lock()
	reqs := 0
	for _, q := range r.w.log {
		if q.run == run {
			reqs++
		}
	}
	r.w.mu.Unlock()
	if reqs > 0 {
		r.lastReqs = reqs
	}
	if n := r.conversations() - convs; n > 0 {
		r.lastMails = n
	}
	r.w.mu.Lock()
	if n := r.w.pages[run]; n > 0 {
		r.lastPages = n
	}
	r.w.mu.Unlock()
	r.killer.mu.Lock()
	for _, to := range r.killer.droppedInData {
		user, _, _ := strings.Cut(to, "@")
		r.cutInData[user] = append(r.cutInData[user], now)
	}
	r.killer.droppedInData = nil
	r.killer.mu.Unlock()
}

func (r *simRunner) conversations() int {
	r.killer.mu.Lock()
	defer r.killer.mu.Unlock()
	return r.killer.convs
}

// markSuspects notes the feeds that two killed runs in a row read: DESIGN
// lets such a feed wait out a penalty as a suspected cause.
func (r *simRunner) markSuspects(killed []int) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	read := map[int]map[int]bool{}
	for _, q := range r.w.log {
		if slices.Contains(killed, q.run) {
			if read[q.run] == nil {
				read[q.run] = map[int]bool{}
			}
			read[q.run][q.feed] = true
		}
	}
	for i := 1; i < len(killed); i++ {
		for f := range read[killed[i]] {
			if read[killed[i-1]][f] {
				r.suspect[f] = true
			}
		}
	}
}

var simStatusRow = regexp.MustCompile(`(?s)<tr.*?</tr>`)
var simFeedPath = regexp.MustCompile(`/(f\d+)\.xml`)

// checkNotBlamed reads status.html after a run to the end that followed
// kills: no feed may be said to have died with a run, unless two killed
// runs in a row read it.
func (r *simRunner) checkNotBlamed(now time.Time) {
	b, err := os.ReadFile(filepath.Join(r.dir, "site", "status.html"))
	if err != nil {
		r.t.Fatalf("seed %d: %v", r.s.seed, err)
	}
	for _, row := range simStatusRow.FindAll(b, -1) {
		if !strings.Contains(string(row), "died") {
			continue
		}
		m := simFeedPath.FindSubmatch(row)
		if m == nil {
			continue
		}
		fi := slices.IndexFunc(r.s.feeds, func(f *simFeed) bool { return f.name == string(m[1]) })
		if fi >= 0 && !r.suspect[fi] {
			r.died = append(r.died, simViolation{what: "blamed for a kill", feed: string(m[1]), at: now,
				story: fmt.Sprintf("%s [%s]: status.html says a run died reading it, after the run to the end at %s", m[1], r.s.feeds[fi].kind, now.Format(time.RFC3339))})
		}
	}
}

// simPageEntry is an entry of a page: an article, its first link the
// entry's, or a linked title of a feed's compact list (the entries after
// its first full_entries, delivered as titles).
var simPageEntry = regexp.MustCompile(`(?s)(?:<article>.*?|<li><a )href="(https?://site\.example/f\d+/p\d+)"`)

// simPages returns, per entry link, the digest dates of user's pages that
// show it, a date twice for an entry shown twice.
func simPages(t *testing.T, site, user string) map[string][]string {
	pages, _ := filepath.Glob(filepath.Join(site, user, "????-??-??.html"))
	out := map[string][]string{}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		date := strings.TrimSuffix(filepath.Base(page), ".html")
		for _, m := range simPageEntry.FindAllSubmatch(b, -1) {
			out[string(m[1])] = append(out[string(m[1])], date)
		}
	}
	return out
}

// simViolation is one broken invariant, told for a reader.
type simViolation struct {
	what, feed, story string
	at                time.Time // for an entry: when it was first served
	class             string    // which bug of issue 22 it looks like (classify)
}

// simClasses counts violations by class, for a summary line.
func simClasses(vs []simViolation) string {
	n := map[string]int{}
	for _, v := range vs {
		n[v.class]++
	}
	var out []string
	for c, k := range n {
		out = append(out, fmt.Sprintf("%s %d", c, k))
	}
	sort.Strings(out)
	return "[" + strings.Join(out, "; ") + "]"
}

// checkRequests checks each poll of a run that ended against DESIGN
// section 3, "How one feed is polled".
func (r *simRunner) checkRequests() []simViolation {
	var out []simViolation
	s, w := r.s, r.w
	byFeed := map[int][]simReq{}
	for _, q := range w.log {
		byFeed[q.feed] = append(byFeed[q.feed], q)
	}
	for fi, f := range s.feeds {
		log := byFeed[fi]
		story := func(format string, args ...any) string {
			return fmt.Sprintf("%s [%s]: ", f.name, f.kind) + fmt.Sprintf(format, args...)
		}
		var (
			gotBody     bool                // a 200 with a body was served to a run that ended
			gotAny      bool                // a 200 with a body was served to any run
			lastAny     string              // hash of the last body served to any run
			lastBody    string              // hash of the last body a run that ended received
			lastETag    string              // its validators
			lastLM      string              //
			lastGetAt   time.Time           // when
			killedGet   bool                // a killed run was served a body since: what is stored is unsure
			ignoring    bool                // has shown it ignores conditional GETs
			after429    bool                // a HEAD was answered 429: the next request is a GET
			moved       bool                // a 301 was answered to a run that ended
			movedDone   bool                // and its target showed it serves the feed
			gone        bool                // a GET was answered 410 in a run that ended
			staleSaid   bool                // a poll ended on a HEAD whose cache hid a change
			staleShown  bool                // and a GET since showed the change
			refusedHead bool                // has answered HEAD with 405
			liar        = map[string]bool{} // "etag", "lm": stayed the same while the body changed
			prevByRun   = map[int][]simReq{}
			runsInOrder []int
		)
		for _, q := range log {
			if _, ok := prevByRun[q.run]; !ok {
				runsInOrder = append(runsInOrder, q.run)
			}
			prevByRun[q.run] = append(prevByRun[q.run], q)
		}
		sort.Ints(runsInOrder)
		for _, run := range runsInOrder {
			killed := w.runs[run].killed
			// A redirect's hop is not a request of its own: the poll is
			// the requests that were answered.
			var poll []simReq
			for _, q := range prevByRun[run] {
				if q.status == http.StatusMovedPermanently && !killed {
					moved = true
				}
				if moved && q.path == f.path() && movedDone {
					out = append(out, simViolation{what: "requests", feed: f.name, story: story("a %s of the old URL at %s, after a 301 whose target answered", q.method, w.runs[run].at.Format(time.RFC3339))})
				}
				// (Nor is a request the server never answered, a dropped
				// connection that the client's transport tries again.)
				if q.status/100 != 3 && q.status != 0 {
					poll = append(poll, q)
				}
				// The target has shown it serves the feed, by the
				// program's rule, once a GET of it was answered (a body
				// or a 304) or a HEAD 304; a HEAD's 200 is a hint, and
				// the GET that follows it in the poll may take the old URL.
				if moved && !killed && q.path != f.path() && (q.status == 304 || q.status == 200 && q.method == http.MethodGet) {
					movedDone = true
				}
			}
			at := w.runs[run].at.Format(time.RFC3339)
			var methods []string
			for _, q := range poll {
				methods = append(methods, fmt.Sprintf("%s %d", q.method, q.status))
			}
			if !killed && !r.htmlPage[fi] && len(poll) > 0 {
				if len(poll) > 2 || (len(poll) == 2 && (poll[0].method != http.MethodHead || poll[1].method != http.MethodGet)) {
					out = append(out, simViolation{what: "poll size", feed: f.name, story: story("%d requests in one poll at %s: %v", len(poll), at, methods)})
				}
				// (A rebuild of an empty feed changes its Last-Modified, not
				// its body: then even this server has shown it ignores
				// conditionals, by DESIGN's measure.)
				if f.kind.base() == "compliant" && !ignoring && len(poll) != 1 {
					out = append(out, simViolation{what: "poll size", feed: f.name, story: story("a server that answers conditional requests had %d requests in one poll at %s, want 1: %v", len(poll), at, methods)})
				}
			}
			for _, q := range poll {
				if q.method == http.MethodHead {
					switch {
					case !gotAny:
						out = append(out, simViolation{what: "requests", feed: f.name, story: story("a HEAD on a first poll at %s: %v", at, methods)})
					case f.kind.etag == "none" && f.kind.lm == "none":
						out = append(out, simViolation{what: "requests", feed: f.name, story: story("a HEAD to a server that sends no validators at %s: %v", at, methods)})
					case refusedHead && !r.htmlPage[fi]:
						// (A feed listed by its page too is two records, each
						// learning for itself.)
						out = append(out, simViolation{what: "head after error", feed: f.name, story: story("a HEAD at %s to a server that answered a HEAD with an error (after one, no HEAD again): %v", at, methods)})
					case !ignoring:
						out = append(out, simViolation{what: "requests", feed: f.name, story: story("a HEAD at %s to a server that never showed it ignores conditional GETs: %v", at, methods)})
					}
					if q.status != 0 && q.status != 200 && q.status != 304 && !killed {
						refusedHead = true // learnt, for sure, by a run that ended
					}
				}
			}
			out = append(out, r.checkHeadHint(f, poll, killed, at, methods, &after429, &gone)...)
			// A cache that answered HEADs with old validators, once a GET
			// has shown it, is never believed again.
			if !killed && len(poll) == 1 && poll[0].method == http.MethodHead && (poll[0].status == 200 || poll[0].status == 304) && gotBody && !killedGet {
				if staleShown {
					out = append(out, simViolation{what: "stale head trusted", feed: f.name, story: story("the poll at %s ended on a HEAD, though a HEAD of this server said \"unchanged\" while its body had changed, as a GET then showed: %v", at, methods)})
				}
				// (Where the cache's validator is fixed forever, the
				// validator lies, not the cache: it is distrusted alone.)
				if f.kind.staleHead && f.kind.base() != "ignore-fixed" && poll[0].bodyHash != lastBody {
					staleSaid = true
				}
			}
			// A poll of a run that ended with a HEAD alone, while the body
			// had changed: only a validator not yet caught lying may have
			// said "unchanged", and a GET a week confirms.
			if !killed && len(poll) == 1 && poll[0].method == http.MethodHead && (poll[0].status == 200 || poll[0].status == 304) && gotBody && !killedGet {
				q := poll[0]
				if q.bodyHash != lastBody {
					// ETag first, as HTTP does, unless caught lying; then
					// Last-Modified, unless caught lying.
					trusted := false
					switch {
					case q.etag != "" && lastETag != "" && !liar["etag"]:
						trusted = q.etag == lastETag
					case q.lm != "" && lastLM != "" && !liar["lm"]:
						trusted = q.lm == lastLM
					}
					if !trusted {
						out = append(out, simViolation{what: "head trusted", feed: f.name, story: story("the poll at %s ended with a HEAD (%d, ETag %s, Last-Modified %s) though the body changed since the last GET at %s (ETag %s, Last-Modified %s), and no validator still trusted matched (caught lying: %v)",
							at, q.status, q.etag, q.lm, lastGetAt.Format(time.RFC3339), lastETag, lastLM, liar)})
					}
				}
				if q.at.Sub(lastGetAt) > 8*24*time.Hour {
					out = append(out, simViolation{what: "head trusted", feed: f.name, story: story("the poll at %s ended with a HEAD, and no GET confirmed for a week (last at %s)", at, lastGetAt.Format(time.RFC3339))})
				}
			}
			for _, q := range poll {
				if q.method != http.MethodGet || q.status != http.StatusOK {
					continue
				}
				if q.conditional && gotAny && q.bodyHash == lastAny {
					ignoring = true
				}
				gotAny, lastAny = true, q.bodyHash
				if killed {
					killedGet = true
					continue
				}
				if gotBody && !killedGet {
					if q.bodyHash != lastBody && q.etag != "" && q.etag == lastETag {
						liar["etag"] = true
					}
					if q.bodyHash != lastBody && q.lm != "" && q.lm == lastLM {
						liar["lm"] = true
					}
				}
				// Only a GET confirming a HEAD's "unchanged" in the same
				// poll can show the program its cache is stale: when a
				// killed run's GET refreshed the cache, the next HEAD says
				// "changed", truly, and teaches nothing.
				if staleSaid && q.bodyHash != lastBody && simHeadSaidSame(poll, lastETag, lastLM) {
					staleShown = true
				}
				gotBody, killedGet = true, false
				lastBody, lastETag, lastLM, lastGetAt = q.bodyHash, q.etag, q.lm, q.at
			}
		}
	}
	return out
}

// simHeadSaidSame: the poll began with a HEAD that said "unchanged" to
// the validators of the last body (a 304, or the same ones).
func simHeadSaidSame(poll []simReq, etag, lm string) bool {
	if len(poll) < 2 || poll[0].method != http.MethodHead {
		return false
	}
	h := poll[0]
	return h.status == http.StatusNotModified || h.status == http.StatusOK && h.etag == etag && h.lm == lm
}

// classify names the bug of issue 22 that each violation looks like,
// by the server kind or the event that shows it; "NEW" for the others.
func (r *simRunner) classify(vs []simViolation) {
	killedAt := map[string][]time.Time{} // feed -> the hours killed runs read it
	for _, q := range r.w.log {
		if r.w.runs[q.run].killed {
			name := r.s.feeds[q.feed].name
			killedAt[name] = append(killedAt[name], q.at)
		}
	}
	for i := range vs {
		v := &vs[i]
		fi := slices.IndexFunc(r.s.feeds, func(f *simFeed) bool { return f.name == v.feed })
		var k simKind
		if fi >= 0 {
			k = r.s.feeds[fi].kind
		}
		entry := v.what == "lost" || v.what == "wrong digest" || v.what == "early"
		nearKill := slices.ContainsFunc(killedAt[v.feed], func(t time.Time) bool {
			return !t.After(v.at) && v.at.Sub(t) <= 48*time.Hour
		})
		switch {
		case v.what == "blamed for a kill":
			v.class = "known: kills blame feeds"
		case fi >= 0 && r.variant[fi]:
			v.class = "known: one feed written several ways"
		case k.rebuild && v.what == "repeated":
			v.class = "known: rebuilt guids"
		// (Not a poll's size: no server, whatever its validators, makes
		// a run ask a feed more than a HEAD and a GET.)
		case k.base() == "ignore-fixed" && (entry || v.what == "requests" || v.what == "head trusted"):
			v.class = "known: validators of a server that ignores conditionals"
		case entry && nearKill:
			v.class = "known: kills lose entries"
		default:
			v.class = "NEW"
		}
	}
}

// simTell prints a failure's story: the seed, counts by kind, and the
// first few violations of each kind.
func simTell(t *testing.T, seed uint64, r *simRunner, vs []simViolation) {
	t.Helper()
	counts := map[string]int{}
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d (replay: FEEDDIGEST_TEST_SEED=%d go test -run TestAdversarialSimulation ./e2e/): %d violations\n", seed, seed, len(vs))
	told := map[string]int{}
	for _, v := range vs {
		counts[v.what]++
		// The first of each kind and feed, up to 40 lines.
		if k := v.what + " " + v.feed; told[k] == 0 && len(told) < 40 {
			told[k]++
			fmt.Fprintf(&b, "  %s (%s): %s\n", v.what, v.class, v.story)
		}
	}
	var kinds []string
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	fmt.Fprintf(&b, "by kind: %s\n", strings.Join(kinds, ", "))
	fmt.Fprintf(&b, "by class: %s\n", simClasses(vs))
	fmt.Fprintf(&b, "world: start %s, %d hours, %d kills (%d under load), feeds:\n", r.s.start.Format(time.RFC3339), r.s.hours, r.kills, r.loaded)
	for i, f := range r.s.feeds {
		sus := ""
		if r.suspect[i] {
			sus = " (read by two killed runs in a row)"
		}
		fmt.Fprintf(&b, "  %s: %s, %d posts%s\n", f.name, f.kind, len(f.posts), sus)
	}
	for _, u := range r.s.users {
		fmt.Fprintf(&b, "  user %s (%s, hour %d, weekly %v %s): %v\n", u.name, u.zone, u.hour, u.weekly, u.day, u.urls)
	}
	t.Error(b.String())
}

// simSeeds: FEEDDIGEST_TEST_SEED replays one seed; FEEDDIGEST_SIM_SEEDS=N
// runs seeds 1 to N (FEEDDIGEST_SIM_FIRST moves the first); else the CI
// set.
func simSeeds(t *testing.T) []uint64 {
	if v := os.Getenv("FEEDDIGEST_TEST_SEED"); v != "" {
		return []uint64{testSeed(t)}
	}
	if v := os.Getenv("FEEDDIGEST_SIM_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("FEEDDIGEST_SIM_SEEDS=%q: want a count of seeds", v)
		}
		first := uint64(1)
		if v := os.Getenv("FEEDDIGEST_SIM_FIRST"); v != "" {
			if first, err = strconv.ParseUint(v, 10, 64); err != nil {
				t.Fatalf("FEEDDIGEST_SIM_FIRST=%q: %v", v, err)
			}
		}
		var seeds []uint64
		for i := range n {
			seeds = append(seeds, first+uint64(i))
		}
		return seeds
	}
	return simCISeeds
}

// TestAdversarialSimulation: for each seed, a simulated week (or
// FEEDDIGEST_SIM_DAYS) of hourly runs against seeded random publishers,
// with kills, checked against the model.
func TestAdversarialSimulation(t *testing.T) {
	bin := binary(t)
	days := 120
	if v := os.Getenv("FEEDDIGEST_SIM_DAYS"); v != "" {
		var err error
		if days, err = strconv.Atoi(v); err != nil || days < 1 {
			t.Fatalf("FEEDDIGEST_SIM_DAYS=%q: want a number of days", v)
		}
	}
	off := simOff()
	t.Logf("switched off: %v (FEEDDIGEST_SIM_OFF)", slices.Sorted(maps.Keys(off)))
	for _, seed := range simSeeds(t) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			began := time.Now()
			s := newSimSetup(seed, days, off)
			r := newSimRunner(t, bin, s)
			r.simulate(simSchedule(s, days))
			vs := r.check()
			r.classify(vs)
			served := 0
			for _, q := range r.w.log {
				if q.servedEntrys {
					served++
				}
			}
			t.Logf("seed %d: %d days, %d feeds, %d runs (%d killed, %d under load; kills landed/tried by phase %s; %d resumed from the workflow's saved files), %d requests, %d bodies, %d emails, %s (%s in runs to the end); violations by class: %s",
				seed, days, len(s.feeds), len(r.w.runs), r.kills, r.loaded, r.killPhases(), r.resumes, len(r.w.log), served, len(r.mail.Messages()), time.Since(began).Round(time.Millisecond), r.runTime.Round(time.Millisecond), simClasses(vs))
			if len(vs) > 0 {
				simTell(t, seed, r, vs)
			}
			// FEEDDIGEST_SIM_DUMP=f3,f7 logs every request for those feeds.
			for _, name := range strings.Split(os.Getenv("FEEDDIGEST_SIM_DUMP"), ",") {
				fi := slices.IndexFunc(s.feeds, func(f *simFeed) bool { return f.name == name })
				if fi < 0 {
					continue
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%s [%s]:\n", name, s.feeds[fi].kind)
				for _, q := range r.w.log {
					if q.feed == fi {
						fmt.Fprintf(&b, "  run %d%s %s %s %d inm=%s ims=%q etag=%s lm=%q body=%s links=%d\n", q.run,
							map[bool]string{true: " (killed)"}[r.w.runs[q.run].killed], q.at.Format(time.RFC3339), q.method, q.status, q.inm, q.ims, q.etag, q.lm, q.bodyHash, len(q.links))
					}
				}
				t.Log(b.String())
			}
		})
	}
}
