package e2e

// The simulation's runs: the schedule of months (daily runs, with hourly
// days among them), kills timed from what the servers and the relay see,
// the runs that follow a kill (at the same instant or an hour later), and
// resuming on a fresh directory from only the files the workflow saves.

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/emersion/go-smtp"

	"feeddigest/internal/smtptest"
)

// simSchedule is the times of the scheduled runs: the first two days and
// one day in eight hourly, the others one run at the start's hour (cron's
// daily run, which every user is due at), and the last day hourly, so
// that retries and the last digests' sends end inside the horizon. A
// daily run that a feed's spell of errors covers is followed by eight
// hourly runs: every feed is polled at the daily run, so its poll fails
// there, and the retry it is owed (an hour to five later) falls among
// runs that can make it. Without them a spell met at a daily run is
// retried at the next day's run whether or not the program retries, and
// the model could not tell.
func simSchedule(s *simSetup, days int) []time.Time {
	var out []time.Time
	for d := range days {
		day := s.start.Add(time.Duration(d) * 24 * time.Hour)
		if d < 2 || d == days-1 || s.rng.IntN(8) == 0 {
			for h := range 24 {
				out = append(out, day.Add(time.Duration(h)*time.Hour))
			}
			continue
		}
		out = append(out, day)
		if s.spellCovers(day) {
			for h := 1; h <= 8; h++ {
				out = append(out, day.Add(time.Duration(h)*time.Hour))
			}
		}
	}
	return out
}

// spellCovers says whether some feed is in a spell of errors owed a
// retry (5xx, 429, a dropped or hung connection) at t.
func (s *simSetup) spellCovers(t time.Time) bool {
	return slices.ContainsFunc(s.feeds, func(f *simFeed) bool {
		sp := f.spell(t)
		return sp != nil && slices.Contains([]int{500, 503, 429, simDrop, simHang}, sp.status)
	})
}

// A simTrigger says when a run is killed, from what the servers and the
// relay see: at the nth request of the run to the feeds' servers (a poll
// in flight), a moment after the run's last expected request (building,
// publishing), at a stage of the nth conversation with the relay
// (mailing), or a few milliseconds after the start (planning).
type simTrigger struct {
	phase string          // planning, polling, articles, building, mailing
	n     int             // the nth request or conversation
	delay time.Duration   // after the request, for building
	stage smtptest.Moment // for mailing
}

func (tr simTrigger) String() string {
	switch tr.phase {
	case "polling":
		return fmt.Sprintf("polling (request %d)", tr.n)
	case "articles":
		return fmt.Sprintf("fetching articles (page %d)", tr.n)
	case "building":
		return fmt.Sprintf("building (%s after request %d)", tr.delay, tr.n)
	case "mailing":
		return fmt.Sprintf("mailing (%s of message %d)", tr.stage, tr.n)
	}
	return fmt.Sprintf("planning (%s after the start)", tr.delay)
}

// simKiller is the armed trigger of the run being killed: the servers'
// handlers and the relay's hook call it, and it fires once.
type simKiller struct {
	mu      sync.Mutex
	run     int // the run it watches; -1 when disarmed
	tr      simTrigger
	reqs    int
	pages   int           // article pages of the watched run
	convs   int           // conversations with the relay, in all
	base    int           // convs when armed
	fired   chan struct{} // closed when the trigger fires
	done    chan struct{} // closed when the process is dead
	inDoubt []string      // Message-IDs whose data ended before the kill
	// The recipients of the messages whose data the relay is taking (from
	// DATA until the relay has the end of the data), counted, in every
	// conversation at once: the program sends to several users side by
	// side, and it marks a send in doubt just before it writes the end of
	// the data, so a kill (timed from anything, a stage of another
	// conversation included) that lands in that window leaves an email in
	// doubt that the relay never got.
	inData map[string]int
	// The recipients of the messages whose DATA the relay dropped after
	// its 354 in a run to the end: the client writes the whole message and
	// its end into the socket before it reads the answer, so it marks the
	// send in doubt though the relay never had the end.
	droppedInData []string
	relay         string // the relay's misbehaviour for runs to the end: "", refuse, drop, stall
	rng           func(int) int
}

func newSimKiller() *simKiller { return &simKiller{run: -1, inData: map[string]int{}} }

func (k *simKiller) arm(run int, tr simTrigger) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.run, k.tr, k.reqs, k.pages, k.base = run, tr, 0, 0, k.convs
	k.inData = map[string]int{} // the last process is dead: its conversations too
	k.fired, k.done = make(chan struct{}), make(chan struct{})
}

func (k *simKiller) disarm() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.run >= 0 {
		select {
		case <-k.done:
		default:
			close(k.done)
		}
	}
	k.run = -1
}

// request is called by a feed server for each request of run; it returns
// a channel to wait on when this request fired the trigger (the request
// then hangs until the process is dead), else nil.
func (k *simKiller) request(run int) <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.run != run || k.run < 0 {
		return nil
	}
	k.reqs++
	switch k.tr.phase {
	case "polling":
		if k.reqs == k.tr.n {
			close(k.fired)
			return k.done
		}
	case "building":
		if k.reqs == k.tr.n {
			fired, d := k.fired, k.tr.delay
			time.AfterFunc(d, func() { close(fired) })
		}
	}
	return nil
}

// article is called by the proxy for each article page: the nth of the
// watched run is the kill's moment in the articles phase (it hangs until
// the process is dead).
func (k *simKiller) article(run int) <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.run != run || k.run < 0 || k.tr.phase != "articles" {
		return nil
	}
	if k.pages++; k.pages == k.tr.n {
		close(k.fired)
		return k.done
	}
	return nil
}

// hook is the relay's: a kill at a stage of a conversation stalls the
// relay there until the process is dead; in runs to the end the relay
// misbehaves as k.relay says, once a run.
func (k *simKiller) hook(st smtptest.Moment, m smtptest.Message) error {
	k.mu.Lock()
	switch st {
	case smtptest.AtGreeting:
		k.convs++
	case smtptest.AtData:
		for _, to := range m.To {
			k.inData[to]++
		}
	case smtptest.AtDataEnd:
		// The relay has the whole message: from here, a kill leaves it in
		// doubt only as the cases below record (inDoubt).
		for _, to := range m.To {
			if k.inData[to]--; k.inData[to] <= 0 {
				delete(k.inData, to)
			}
		}
	}
	if k.run >= 0 && k.tr.phase == "mailing" && k.convs-k.base == k.tr.n && st == k.tr.stage {
		if st == smtptest.AtDataEnd {
			if id := messageID.FindSubmatch(m.Data); id != nil {
				k.inDoubt = append(k.inDoubt, string(id[1]))
			}
		}
		fired, done := k.fired, k.done
		select {
		case <-fired:
		default:
			close(fired)
		}
		k.mu.Unlock()
		<-done
		return smtptest.ErrDrop
	}
	relay := k.relay
	if relay != "" && k.rng(3) == 0 {
		k.relay = "" // once a run
	} else {
		relay = ""
	}
	if relay == "drop" && st == smtptest.AtData {
		k.droppedInData = append(k.droppedInData, m.To...)
	}
	if relay == "drop" && st == smtptest.AtDataEnd {
		// The connection lost after the end of the data, before the
		// answer: the client cannot know whether the relay took it.
		if id := messageID.FindSubmatch(m.Data); id != nil {
			k.inDoubt = append(k.inDoubt, string(id[1]))
		}
	}
	k.mu.Unlock()
	switch relay {
	case "refuse":
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	case "busy":
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "too busy"}
	case "drop":
		return smtptest.ErrDrop
	case "stall":
		time.Sleep(1500 * time.Millisecond)
	}
	return nil
}

// newTrigger picks when the run is killed, from how many requests and
// messages the last run to the end had.
func (r *simRunner) newTrigger() simTrigger {
	rng := r.s.rng
	reqs := max(r.lastReqs, 1)
	switch p := rng.IntN(10); {
	case p == 0:
		return simTrigger{phase: "planning", delay: time.Duration(rng.IntN(40)) * time.Millisecond}
	case p < 5:
		// A third of these kills land among the article pages instead,
		// when the last run asked for any (drawn from a source of their
		// own, so the other kills of a seed stay where they were).
		n := 1 + rng.IntN(reqs)
		if r.lastPages > 0 && r.artRng.IntN(3) == 0 {
			return simTrigger{phase: "articles", n: 1 + r.artRng.IntN(r.lastPages)}
		}
		return simTrigger{phase: "polling", n: n}
	case p < 7:
		return simTrigger{phase: "building", n: reqs, delay: time.Duration(rng.IntN(60)) * time.Millisecond}
	}
	stages := []smtptest.Moment{smtptest.AtGreeting, smtptest.AtHello, smtptest.AtMail, smtptest.AtRcpt, smtptest.AtData, smtptest.AtDataEnd}
	return simTrigger{phase: "mailing", n: 1 + rng.IntN(max(r.lastMails, 1)), stage: stages[rng.IntN(len(stages))]}
}

// killOnce starts a run at now and kills it when tr fires (or a run
// that ends first is left to end); false when the run ended first.
func (r *simRunner) killOnce(now time.Time, tr simTrigger) bool {
	rng := r.s.rng
	run := r.beginRun(now)
	r.killer.arm(run, tr)
	defer r.killer.disarm()
	cmd := r.command(now)
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	stop := make(chan struct{})
	if rng.IntN(4) == 0 {
		r.loaded++
		for range 2 {
			go simBusy(stop)
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var planning <-chan time.Time
	if tr.phase == "planning" {
		planning = time.After(tr.delay)
	}
	var err error
	select {
	case <-r.killer.fired:
		cmd.Process.Signal(syscall.SIGKILL)
		err = <-exited
	case <-planning:
		cmd.Process.Signal(syscall.SIGKILL)
		err = <-exited
	case err = <-exited:
	}
	close(stop)
	if os.Getenv("FEEDDIGEST_SIM_TRACE") != "" {
		r.t.Logf("TRACE run %d at %s killed by %s: %v", run, now.Format(time.RFC3339), tr, err)
	}
	r.attempts[tr.phase]++
	if err == nil {
		return false
	}
	if cmd.ProcessState.ExitCode() != -1 {
		r.t.Fatalf("run at %s failed (seed %d): %v", now.Format(time.RFC3339), r.s.seed, err)
	}
	r.w.mu.Lock()
	r.w.runs[run].killed = true
	r.w.runs[run].trigger = tr.String()
	r.w.mu.Unlock()
	r.kills++
	r.hits[tr.phase]++
	r.killer.mu.Lock()
	// Whatever timed it, the kill may have landed while another
	// conversation's data was being written (see simKiller.inData).
	for to := range r.killer.inData {
		user, _, _ := strings.Cut(to, "@")
		r.cutInData[user] = append(r.cutInData[user], now)
	}
	r.killer.mu.Unlock()
	return true
}

func simBusy(stop <-chan struct{}) {
	x := 0
	for {
		select {
		case <-stop:
			return
		default:
			for i := range 100000 {
				x += i
			}
		}
	}
}

// simulate runs the binary at every scheduled time. Some runs where a
// user is due are killed (once, or twice in a row); the next run is then
// the one at the same instant, or an hour later; after a kill the state
// sometimes moves to a fresh directory holding only what the workflow
// saves, as a new runner would restore it.
func (r *simRunner) simulate(sched []time.Time) {
	tail := len(sched) - 24 // the last day: no kills, a healthy relay
	for i := 0; i < len(sched); i++ {
		now := sched[i]
		r.killer.mu.Lock()
		r.killer.relay = ""
		if i > 0 && i < tail && r.s.rng.IntN(8) == 0 && !r.s.off["relay"] {
			r.killer.relay = []string{"refuse", "busy", "drop", "stall"}[r.s.rng.IntN(4)]
		}
		r.killer.mu.Unlock()
		if i == 0 || i >= tail || r.s.off["kill"] || !r.someoneDue(now) || r.s.rng.IntN(5) != 0 {
			r.runToEnd(now)
			continue
		}
		var killed []int
		for k := 0; k < 1+r.s.rng.IntN(2); k++ {
			if r.killOnce(now, r.newTrigger()) {
				killed = append(killed, len(r.w.runs)-1)
			}
			if r.s.rng.IntN(2) == 0 {
				r.resumeFromSaved()
			}
			if r.s.rng.IntN(2) == 0 {
				now = now.Add(time.Hour) // the next hour's run
				for i+1 < len(sched) && !sched[i+1].After(now) {
					i++
				}
			}
		}
		r.markSuspects(killed)
		r.runToEnd(now)
		if len(killed) > 0 {
			r.checkNotBlamed(now)
		}
	}
}

// someoneDue: a user's digest date changes at now since the last run.
func (r *simRunner) someoneDue(now time.Time) bool {
	if len(r.w.runs) == 0 {
		return true
	}
	last := r.w.runs[len(r.w.runs)-1].at
	return slices.ContainsFunc(r.s.users, func(u simUser) bool { return u.digestKey(now) != u.digestKey(last) })
}

// simSavedPaths reads the paths the shipped workflow saves between runs
// (its actions/cache/save steps), so that a resumed run has exactly what
// a new runner restores.
func simSavedPaths() ([]string, error) {
	f, err := os.Open("../.github/workflows/digest.yml")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	save, inPath, indent := false, false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		lead := len(line) - len(strings.TrimLeft(line, " "))
		switch {
		case strings.Contains(line, "uses: actions/cache/save@"):
			save, inPath = true, false
		case strings.HasPrefix(trimmed, "- name:") || strings.HasPrefix(trimmed, "- uses:"):
			save, inPath = strings.Contains(line, "actions/cache/save@"), false
		case save && strings.HasPrefix(trimmed, "path:"):
			v := strings.TrimSpace(strings.TrimPrefix(trimmed, "path:"))
			if v == "|" {
				inPath, indent = true, lead
				continue
			}
			out = append(out, v)
		case inPath && lead > indent && trimmed != "":
			out = append(out, trimmed)
		default:
			inPath = false
		}
	}
	var kept []string
	for _, p := range out {
		// The binary, negations and the runner's temporary folder are not
		// the state.
		if p == "feeddigest" || strings.HasPrefix(p, "!") || strings.HasPrefix(p, "$") {
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return nil, errors.New("the workflow saves no path")
	}
	return kept, sc.Err()
}

// resumeFromSaved moves the run's directory to a fresh one that holds
// only the paths the workflow saves (and the config, which the workflow
// checks out).
func (r *simRunner) resumeFromSaved() {
	paths, err := simSavedPaths()
	if err != nil {
		r.t.Fatalf("reading the workflow's saved paths: %v", err)
	}
	dir := r.t.TempDir()
	for _, p := range paths {
		matches, _ := filepath.Glob(filepath.Join(r.dir, p))
		for _, m := range matches {
			rel, _ := filepath.Rel(r.dir, m)
			if err := simCopy(m, filepath.Join(dir, rel)); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	r.resumes++
	r.dir, r.config = dir, filepath.Join(dir, "config.toml")
}

// simCopy copies a file or a folder.
func simCopy(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// killPhases tells, per phase, the kills that landed inside a run and
// those tried.
func (r *simRunner) killPhases() string {
	var out []string
	for _, p := range []string{"planning", "polling", "articles", "building", "mailing"} {
		out = append(out, fmt.Sprintf("%s %d/%d", p, r.hits[p], r.attempts[p]))
	}
	return strings.Join(out, ", ")
}
