package e2e

// The simulation's model: from the publication times, what the servers
// served and the polling rules, which digest of which user must hold
// each entry, and that every digest is built and mailed exactly once.

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// simBuild is a run at which a user's digest may have been built.
type simBuild struct {
	at  time.Time
	key string
}

// builds are, for each of u's digest dates in order, the first run
// whose date it is (starts) and the first run to the end from then on
// (ends): a digest is built at one of the runs between, the last of them
// at the latest (the ones before it were killed, before or after
// building).
func (r *simRunner) builds(u simUser) (starts, ends []simBuild) {
	for _, run := range r.w.runs {
		key := u.digestKey(run.at)
		if len(starts) == 0 || key > starts[len(starts)-1].key {
			starts = append(starts, simBuild{run.at, key})
		}
		if run.killed {
			continue
		}
		for len(ends) < len(starts) {
			ends = append(ends, simBuild{run.at, starts[len(ends)].key})
		}
	}
	return starts, ends
}

func firstBuildFrom(bs []simBuild, t time.Time) string {
	for _, b := range bs {
		if !b.at.Before(t) {
			return b.key
		}
	}
	return ""
}

// clean says whether feed fi was, from before post p until a digest
// built at t, a feed whose polls the design lets no entry wait past t:
// no spell of errors (nor a penalty after one), not gone, no lying
// validator not yet caught, no freshness hint reaching past the post,
// the post still in the body at t.
func (r *simRunner) clean(fi int, p simPost, t time.Time) bool {
	f := r.s.feeds[fi]
	if !p.at.After(r.s.start.Add(time.Hour)) || r.suspect[fi] || f.kind.base() == "ignore-fixed" {
		return false
	}
	if !f.shownAt(t)[p.n] {
		return false
	}
	for _, sp := range f.spells {
		if sp.from.Before(t) && sp.to.After(p.at.Add(-8*24*time.Hour)) {
			return false
		}
	}
	if !f.goneAt.IsZero() && !f.goneAt.After(t) {
		return false
	}
	if f.kind.maxAge > 0 && p.at.After(t.Add(-time.Duration(f.kind.maxAge)*time.Second*5/4-15*time.Minute)) {
		return false
	}
	if e, ok := r.events[fi]; ok {
		// A cache answered a HEAD with old validators: until a run that
		// ended saw a GET contradict such a HEAD, it may be believed.
		// The weekly GET shows it, unless that run is killed and the
		// cache, refreshed by the dead run's GET, answers the next run's
		// HEAD truly: then nothing shows the lie for another week.
		if !e.staleHead.IsZero() && (e.staleShown.IsZero() || p.at.Before(e.staleShown)) {
			return false
		}
		// A 429 to a HEAD is honoured like any 429.
		for _, at := range e.head429 {
			if !at.After(t) && at.After(p.at.Add(-2*time.Hour)) {
				return false
			}
		}
	}
	return true
}

// simFeedEvents are moments in a feed's log that the model needs.
type simFeedEvents struct {
	staleHead time.Time // the first HEAD a cache answered with old validators
	// staleShown is when a run that ended first had such a HEAD and then
	// a GET of the feed: the GET showed the HEAD's lie.
	staleShown time.Time
	head429    []time.Time // HEADs answered 429
}

func (r *simRunner) feedEvents() map[int]*simFeedEvents {
	out := map[int]*simFeedEvents{}
	type feedRun struct{ feed, run int }
	staleInRun := map[feedRun]bool{}
	for _, q := range r.w.log {
		e := out[q.feed]
		if e == nil {
			e = &simFeedEvents{}
			out[q.feed] = e
		}
		if q.method == "HEAD" && q.staleHead && e.staleHead.IsZero() {
			e.staleHead = q.at
		}
		if q.method == "HEAD" && q.staleHead {
			staleInRun[feedRun{q.feed, q.run}] = true
		}
		if q.method == "GET" && q.status == 200 && staleInRun[feedRun{q.feed, q.run}] && !r.w.runs[q.run].killed && e.staleShown.IsZero() {
			e.staleShown = q.at
		}
		if q.method == "HEAD" && q.status == 429 {
			e.head429 = append(e.head429, q.at)
		}
	}
	return out
}

// check is the model: it reads the servers' log and says what each
// digest must hold, then compares.
func (r *simRunner) check() []simViolation {
	var out []simViolation
	var at time.Time
	add := func(what, feed, format string, args ...any) {
		out = append(out, simViolation{what: what, feed: feed, at: at, story: fmt.Sprintf(format, args...)})
	}
	s, w := r.s, r.w
	r.events = r.feedEvents()
	// When each entry was first served, in a body, to any run.
	firstServed := map[string]time.Time{}
	servedToEnd := map[string]bool{} // served to a run that ended, which stored it
	for _, q := range w.log {
		if !q.servedEntrys {
			continue
		}
		if !w.runs[q.run].killed {
			for _, l := range q.links {
				servedToEnd[l] = true
			}
		}
		for _, l := range q.links {
			if t, ok := firstServed[l]; !ok || q.at.Before(t) {
				firstServed[l] = q.at
			}
		}
	}
	built := map[string]map[string]bool{} // user -> digest dates with a page
	for _, u := range s.users {
		pages := simPages(r.t, filepath.Join(r.dir, "site"), u.name)
		dates := simPageDates(filepath.Join(r.dir, "site"), u.name)
		built[u.name] = dates
		starts, ends := r.builds(u)
		// A date whose runs were all killed may never be built: the next
		// run catches up with one digest. Every date a run to the end had
		// is built.
		missing := map[string]bool{}
		for _, run := range w.runs {
			if k := u.digestKey(run.at); !run.killed && !dates[k] && !missing[k] {
				missing[k] = true
				add("digest not built", u.name, "%s: no digest %s, though the run to the end at %s had that date", u.name, k, run.at.Format(time.RFC3339))
			}
		}
		var builtStarts, builtEnds []simBuild
		for i, b := range starts {
			if !dates[b.key] {
				continue
			}
			end := b
			if i < len(ends) {
				end = ends[i]
			}
			builtStarts, builtEnds = append(builtStarts, b), append(builtEnds, end)
		}
		first := ""
		if len(starts) > 0 {
			first = starts[0].key
		}
		for fi, f := range s.feeds {
			subscribed := slices.Contains(u.feeds, fi)
			for _, p := range f.posts {
				l := f.link(p.n)
				got := pages[l]
				served, ok := firstServed[l]
				at = served
				story := fmt.Sprintf("%s: %s [%s], published %s, first served %s: in digests %v",
					u.name, l, f.kind, p.at.Format(time.RFC3339), served.Format(time.RFC3339), got)
				switch {
				case len(got) > 0 && !subscribed:
					add("unexpected", f.name, "%s, but %s is not subscribed to %s", story, u.name, f.name)
					continue
				case len(got) > 1:
					add("repeated", f.name, "%s", story)
					continue
				case !subscribed:
					continue
				case p.at.Before(s.start):
					// Before the start: a first digest shows the five newest,
					// and no later digest any of them.
					if len(got) > 0 && (got[0] != first || p.n <= 5) {
						add("old entry shown", f.name, "%s; a first digest (%s) shows at most the five newest (post 6 to 10) and no later digest any", story, first)
					}
					continue
				case !ok:
					if len(got) > 0 {
						add("unexpected", f.name, "%s, but it was never served to a run", story)
						continue
					}
				}
				// Served: in the first digest built at or after, exactly once
				// (a run that was killed may have built it).
				wantLo, wantHi := firstBuildFrom(builtEnds, served), firstBuildFrom(builtStarts, served)
				suspect := r.suspect[fi]
				if ok {
					switch {
					case len(got) == 1 && wantLo != "" && got[0] < wantLo:
						add("early", f.name, "%s, want %s", story, wantLo)
					case suspect:
						// A suspected feed may wait out a penalty: at most once,
						// never early.
					case wantHi == "" && len(got) > 0 && (wantLo == "" || got[0] > wantLo):
						add("early", f.name, "%s, want none yet", story)
					case wantHi != "" && len(got) == 0 && servedToEnd[l]:
						// (One served only to killed runs, gone from the body
						// before the next poll, is the on-time rule's to judge.)
						add("lost", f.name, "%s, want %s", story, wantHi)
					case wantHi != "" && len(got) > 0 && got[0] > wantHi:
						add("wrong digest", f.name, "%s, want %s to %s", story, wantLo, wantHi)
					}
				}
				// On time: the first digest built after the post was
				// published, while the feed was healthy and carried the
				// post, must hold it, whether or not a run was served it.
				for i, b := range starts {
					if b.at.Before(p.at) || !dates[b.key] {
						continue
					}
					// Clean until the run to the end that built the digest
					// at the latest (the runs before it may have been killed
					// before polling the feed).
					if !r.clean(fi, p, b.at) || i >= len(ends) || !r.clean(fi, p, ends[i].at) {
						continue
					}
					switch {
					case len(got) == 0:
						add("lost", f.name, "%s; it was in the body of a healthy feed when digest %s was built at %s", story, b.key, b.at.Format(time.RFC3339))
					case got[0] > b.key:
						add("late", f.name, "%s; it was in the body of a healthy feed when digest %s was built at %s", story, b.key, b.at.Format(time.RFC3339))
					}
					break
				}
			}
		}
	}
	out = append(out, r.checkMail(built)...)
	out = append(out, r.died...)
	out = append(out, r.checkRequests()...)
	out = append(out, r.checkExtraPolls()...)
	out = append(out, r.checkPoliteness()...)
	out = append(out, r.checkNamed()...)
	out = append(out, r.checkWhole()...)
	return out
}

// checkWhole: a full_text feed whose posts reached a digest had some of
// them read whole from their pages (the proxy's plumbing, and article
// fetching itself, cannot fall silent without this noticing).
func (r *simRunner) checkWhole() []simViolation {
	var pages [][]byte // every digest page, read once
	for _, u := range r.s.users {
		names, _ := filepath.Glob(filepath.Join(r.dir, "site", u.name, "????-??-??.html"))
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				r.t.Fatal(err)
			}
			pages = append(pages, b)
		}
	}
	var out []simViolation
	for _, f := range r.s.feeds {
		if !f.kind.fullText {
			continue
		}
		shown, whole := false, false
		for _, b := range pages {
			shown = shown || bytes.Contains(b, []byte("site.example/"+f.name+"/p"))
			whole = whole || bytes.Contains(b, []byte(" of "+f.name+", as its page has it"))
		}
		if shown && !whole {
			out = append(out, simViolation{what: "never read whole", feed: f.name, story: fmt.Sprintf("%s [%s]: its posts reached digests, none with the text of its page", f.name, f.kind)})
		}
	}
	return out
}

// checkMail: every digest with a page is mailed exactly once, unless a
// kill landed between the end of its data and the relay's answer (then
// at most once); no email without a page.
func (r *simRunner) checkMail(built map[string]map[string]bool) []simViolation {
	var out []simViolation
	counts := mailedTimes(r.t, r.mail)
	inDoubt := map[string]bool{}
	r.killer.mu.Lock()
	for _, id := range r.killer.inDoubt {
		inDoubt[id] = true
	}
	r.killer.mu.Unlock()
	for _, u := range r.s.users {
		for date := range built[u.name] {
			id := fmt.Sprintf("<digest-%s-%s@example.org>", date, u.name)
			n := counts[id]
			delete(counts, id)
			switch {
			case n > 1:
				out = append(out, simViolation{what: "mailed twice", feed: id, story: fmt.Sprintf("digest %s mailed %d times", id, n)})
			case n == 0 && !inDoubt[id] && !slices.ContainsFunc(r.cutInData[u.name], func(t time.Time) bool { return u.digestKey(t) >= date }):
				out = append(out, simViolation{what: "never mailed", feed: id, story: fmt.Sprintf("digest %s has a page but was never mailed (no kill landed between the end of its data and the answer)", id)})
			}
		}
	}
	for id, n := range counts {
		out = append(out, simViolation{what: "mailed without a page", feed: id, story: fmt.Sprintf("%s mailed %d times, but no page of that date exists", id, n)})
	}
	return out
}

// simPageDates are the dates of user's digest pages.
func simPageDates(site, user string) map[string]bool {
	pages, _ := filepath.Glob(filepath.Join(site, user, "????-??-??.html"))
	out := map[string]bool{}
	for _, p := range pages {
		out[filepath.Base(p)[:10]] = true
	}
	return out
}

// checkHeadHint checks one poll against "a HEAD is a hint, never a
// verdict", the wrong clock and 410.
func (r *simRunner) checkHeadHint(f *simFeed, poll []simReq, killed bool, at string, methods []string, after429, gone *bool) []simViolation {
	var out []simViolation
	add := func(what, format string, args ...any) {
		out = append(out, simViolation{what: what, feed: f.name, story: fmt.Sprintf("%s [%s]: ", f.name, f.kind) + fmt.Sprintf(format, args...)})
	}
	for i, q := range poll {
		if *gone {
			add("polled after 410", "a %s at %s after a GET was answered 410 Gone: %v", q.method, at, methods)
		}
		if *after429 && q.method == "HEAD" {
			add("head after error", "a HEAD at %s after a HEAD answered 429: the next request is a GET: %v", at, methods)
		}
		*after429 = false
		if ims, err := http.ParseTime(q.ims); err == nil && ims.After(q.at.Add(time.Minute)) {
			add("wrong clock sent back", "If-Modified-Since %q sent at %s: a Last-Modified later than the answer's clock is not a validator: %v", q.ims, at, methods)
		}
		if killed {
			continue
		}
		switch {
		case q.method == "HEAD" && q.status == 429:
			*after429 = true
		case q.method == "HEAD" && q.status != 0 && q.status != 200 && q.status != 304:
			if !slices.ContainsFunc(poll[i+1:], func(n simReq) bool { return n.method == "GET" }) {
				add("head taken for the feed's status", "a HEAD answered %d at %s and no GET followed in the poll: %v", q.status, at, methods)
			}
		case q.method == "GET" && q.status == 410:
			*gone = true
		}
	}
	return out
}

// checkExtraPolls checks the two kinds of extra poll, where the runs are
// hourly: after a poll whose body held no entry seen before (overflow),
// the next comes within half the gap that overflowed (at least an hour);
// after a poll that failed for a passing reason (retry), the next comes
// once the penalty or Retry-After allows (plus its salt), whoever is due.
//
// A retry's penalty doubles with each error counted since the feed last
// read well, and a run killed while reading the feed may have counted
// one (its poll failed and was stored, or two such runs in a row blamed
// the feed): so a failure is judged only when the feed's last GET was
// answered well in a run that ended and no killed run has read it since.
// A feed once read by two killed runs is judged like any other outside
// those stretches, not left out for the whole horizon.
func (r *simRunner) checkExtraPolls() []simViolation {
	var out []simViolation
	var ends []time.Time // runs to the end
	for _, run := range r.w.runs {
		if !run.killed {
			ends = append(ends, run.at)
		}
	}
	// nextEnd is the first run to the end at or after t, if runs are
	// hourly there (one within the hour after t).
	nextEnd := func(t time.Time) (time.Time, bool) {
		i, _ := slices.BinarySearchFunc(ends, t, func(a, b time.Time) int { return a.Compare(b) })
		if i == len(ends) || ends[i].Sub(t) > time.Hour {
			return time.Time{}, false
		}
		return ends[i], true
	}
	byFeed := map[int][]simReq{}
	for _, q := range r.w.log {
		byFeed[q.feed] = append(byFeed[q.feed], q)
	}
	for fi, f := range r.s.feeds {
		if r.htmlPage[fi] {
			continue
		}
		log := byFeed[fi]
		seen := map[string]bool{}
		var lastOK time.Time
		clean := false // no error counted since the last GET answered well
		for i, q := range log {
			ended := !r.w.runs[q.run].killed
			var due time.Time
			var why string
			switch {
			case !ended:
			case q.method == "GET" && q.status == 200 && f.kind.maxAge == 0 && f.kind.window > 0 && len(q.links) >= f.kind.window && !lastOK.IsZero() &&
				!slices.ContainsFunc(q.links, func(l string) bool { return seen[l] }):
				// A full window of entries none of which was seen: it rolled
				// past some.
				gap := max(q.at.Sub(lastOK)/2, time.Hour)
				due, why = q.at.Add(gap), fmt.Sprintf("overflow: no entry of the body seen before, %s after the last poll", q.at.Sub(lastOK))
			case q.method == "GET" && clean && (q.status == 0 || q.status == 429 || q.status >= 500):
				// A passing failure only: a 404 is a day's penalty, not a
				// retry, and the feed is read again at its next subscriber's
				// digest hour after it.
				d := 4 * time.Hour
				if q.status == 0 {
					d = time.Hour
				}
				if sp := f.spell(q.at); sp != nil && sp.retryAfter {
					d = max(d, 2*time.Hour)
				}
				due, why = q.at.Add(d+min(d/4, time.Hour)), fmt.Sprintf("retry after %d", q.status)
			}
			for _, l := range q.links {
				seen[l] = true
			}
			switch {
			case !ended:
				clean = false
			case (q.status == 200 || q.status == 304) && q.method == "GET":
				lastOK, clean = q.at, true
			case q.method == "GET":
				clean = false
			}
			if due.IsZero() {
				continue
			}
			e, ok := nextEnd(due)
			if !ok || (!f.goneAt.IsZero() && !f.goneAt.After(e)) {
				continue
			}
			if !slices.ContainsFunc(log[i+1:], func(n simReq) bool { return n.at.After(q.at) && !n.at.After(e) }) {
				out = append(out, simViolation{what: "extra poll missing", feed: f.name, at: q.at,
					story: fmt.Sprintf("%s [%s]: %s at %s: a poll was due by %s, and the run to the end at %s did not poll it", f.name, f.kind, why, q.at.Format(time.RFC3339), due.Format(time.RFC3339), e.Format(time.RFC3339))})
			}
		}
	}
	return out
}

// checkPoliteness: at most per_host (2) requests in flight per host.
func (r *simRunner) checkPoliteness() []simViolation {
	var out []simViolation
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	for k, n := range r.w.maxFlight {
		if n > 2 {
			out = append(out, simViolation{what: "politeness", feed: fmt.Sprintf("host %d", k[0]),
				story: fmt.Sprintf("%d requests in flight at once on host %d in the run at %s (per_host = 2)", n, k[0], r.w.runs[k[1]].at.Format(time.RFC3339))})
		}
	}
	return out
}

// checkNamed: a feed whose GET was answered 410 to a run that ended is
// named gone in status.html, and every subscriber's digest built after
// says so.
func (r *simRunner) checkNamed() []simViolation {
	var out []simViolation
	status, err := os.ReadFile(filepath.Join(r.dir, "site", "status.html"))
	if err != nil {
		r.t.Fatalf("seed %d: %v", r.s.seed, err)
	}
	goneAt := map[int]time.Time{}
	for _, q := range r.w.log {
		if _, ok := goneAt[q.feed]; !ok && q.method == "GET" && q.status == 410 && !r.w.runs[q.run].killed {
			goneAt[q.feed] = q.at
		}
	}
	for fi, at := range goneAt {
		f := r.s.feeds[fi]
		named := false
		for _, row := range simStatusRow.FindAll(status, -1) {
			if strings.Contains(string(row), "/"+f.name+".xml") || strings.Contains(string(row), "/"+f.name+"-new.xml") {
				named = named || strings.Contains(strings.ToLower(string(row)), "gone")
			}
		}
		if !named && !r.htmlPage[fi] {
			out = append(out, simViolation{what: "problem not named", feed: f.name, at: at,
				story: fmt.Sprintf("%s [%s] answered 410 at %s, and status.html does not say it is gone", f.name, f.kind, at.Format(time.RFC3339))})
		}
		for _, u := range r.s.users {
			if !slices.Contains(u.feeds, fi) {
				continue
			}
			key := u.digestKey(at)
			told, later := false, false
			for date := range simPageDates(filepath.Join(r.dir, "site"), u.name) {
				if date < key {
					continue
				}
				later = later || date > key
				b, _ := os.ReadFile(filepath.Join(r.dir, "site", u.name, date+".html"))
				// (Told as a notice, or under the feeds that could not be
				// read.)
				told = told || strings.Contains(string(b), "410 Gone") || strings.Contains(string(b), "no longer polled")
			}
			if !told && later {
				out = append(out, simViolation{what: "problem not named", feed: f.name, at: at,
					story: fmt.Sprintf("%s [%s] answered 410 at %s, and no digest of %s from %s on says it is gone", f.name, f.kind, at.Format(time.RFC3339), u.name, key)})
			}
		}
	}
	return out
}
