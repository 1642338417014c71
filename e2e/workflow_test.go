package e2e

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// workflowFile is the shipped workflow, from e2e/.
const workflowFile = "../.github/workflows/digest.yml"

// workflowStep is a step of a job, as far as the cache steps go.
type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
}

// cachedPaths are the path lines of the workflow's steps that use the
// action uses (actions/cache/save, actions/cache/restore) with a key
// starting with key, one list per step, in the order of the steps.
func cachedPaths(t *testing.T, uses, key string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(workflowFile)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatalf("%s: %v", workflowFile, err)
	}
	var out [][]string
	for _, job := range wf.Jobs {
		for _, step := range job.Steps {
			if !strings.HasPrefix(step.Uses, uses+"@") || !strings.HasPrefix(step.With["key"], key) {
				continue
			}
			var paths []string
			for _, line := range strings.Split(step.With["path"], "\n") {
				if line = strings.TrimSpace(line); line != "" {
					paths = append(paths, line)
				}
			}
			out = append(out, paths)
		}
	}
	return out
}

// savedByWorkflow is what the workflow keeps between runs: the paths of
// its steps that save the state and the site (each a cache of its own,
// restored on the next runner). The state's save is checked to be the
// one its first restore asks for, as a cache is found only under the
// paths it was saved with.
func savedByWorkflow(t *testing.T) []string {
	t.Helper()
	state := cachedPaths(t, "actions/cache/save", "feeddigest-state-")
	site := cachedPaths(t, "actions/cache/save", "feeddigest-site-")
	if len(state) != 1 || len(site) != 1 {
		t.Fatalf("%s: %d steps save the state and %d the site, want one each", workflowFile, len(state), len(site))
	}
	restored := cachedPaths(t, "actions/cache/restore", "feeddigest-state-")
	if len(restored) == 0 || !slices.Equal(restored[0], state[0]) {
		t.Fatalf("%s: the state is saved as %q and restored as %q", workflowFile, state[0], restored)
	}
	return append(state[0], site[0]...)
}

// copySaved copies into a fresh folder what the workflow saves of from
// (paths as savedByWorkflow gives them, "!pattern" excluding files), and
// the config, as the next runner finds it.
func copySaved(t *testing.T, from string, paths []string) string {
	t.Helper()
	to := t.TempDir()
	var include, exclude []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, "!"); ok {
			exclude = append(exclude, rest)
		} else {
			include = append(include, p)
		}
	}
	excluded := func(rel string) bool {
		for _, pattern := range exclude {
			if ok, _ := filepath.Match(pattern, rel); ok {
				return true
			}
		}
		return false
	}
	for _, p := range append(include, "config.toml") {
		root := filepath.Join(from, p)
		if _, err := os.Stat(root); os.IsNotExist(err) {
			continue // as actions/cache skips a path with nothing there
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(from, path)
			if err != nil || excluded(filepath.ToSlash(rel)) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(to, rel)), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(to, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// workflowUsers are the users of the workflow tests, each with a feed of
// their own and a digest mailed each day.
var workflowUsers = []string{"ada", "bob", "cyd", "dan", "eve", "fay"}

// workflowRuns is a deployment of the workflow: its feeds, its relay,
// the config, and the runs so far.
type workflowRuns struct {
	t     *testing.T
	bin   string
	feeds *feedtest.Server
	relay *smtptest.Server
	saved []string
	key   string // STATE_KEY: "" caches the state as it is
	dir   string // the runner of the last run
	start time.Time
	posts int
}

func newWorkflowRuns(t *testing.T, key string) *workflowRuns {
	w := &workflowRuns{t: t, bin: binary(t), feeds: slowSite(t, 0), relay: smtptest.Start(t), saved: savedByWorkflow(t),
		key: key, dir: t.TempDir(), start: time.Date(2026, 11, 21, 0, 5, 0, 0, time.UTC)}
	w.feeds.SetWindow(50)
	cfg := "[fetch]\nallow_private_networks = true\nhost_rate = 100.0\n" +
		fmt.Sprintf("[email]\nfrom = \"Digest <digest@example.org>\"\nsmtp = %q\ntls = \"none\"\n", w.relay.URL())
	for _, u := range workflowUsers {
		w.feeds.Publish("/"+u, feedtest.Feed{Title: u})
		cfg += fmt.Sprintf("[[users]]\nname = %q\ntimezone = \"UTC\"\nemail = \"%s@example.org\"\nfeeds = [%q]\n", u, u, w.feeds.URL+"/"+u)
	}
	writeConfig(t, w.dir, cfg)
	return w
}

// postAll publishes a new entry in every user's feed.
func (w *workflowRuns) postAll() {
	w.posts++
	for _, u := range workflowUsers {
		post(w.feeds, "/"+u, fmt.Sprintf("%s-%d", u, w.posts))
	}
}

// begin starts the run of day (0: the first), hour on a fresh runner
// holding what the last one saved: sealed after it with the key, if
// any, and opened before this one, as the workflow does.
func (w *workflowRuns) begin(day, hour int) (*exec.Cmd, <-chan error, *strings.Builder) {
	w.t.Helper()
	if w.key != "" {
		mustRunStateScript(w.t, w.dir, "seal", w.key)
	}
	w.dir = copySaved(w.t, w.dir, w.saved)
	if w.key != "" {
		mustRunStateScript(w.t, w.dir, "open", w.key)
	}
	now := w.start.AddDate(0, 0, day).Add(time.Duration(hour) * time.Hour)
	cmd := command(w.bin, nil, "run", "-config", "config.toml", "-now", now.Format(time.RFC3339))
	cmd.Dir = w.dir
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return cmd, exited, out
}

// run runs day, hour to its end on a fresh runner.
func (w *workflowRuns) run(day, hour int) {
	w.t.Helper()
	_, exited, out := w.begin(day, hour)
	if err := <-exited; err != nil {
		w.t.Fatalf("run of day %d, hour %d: %v\n%s", day, hour, err, out)
	}
}

// kill kills a run begun (begin) when killAt fires, or lets it end.
func (w *workflowRuns) kill(cmd *exec.Cmd, exited <-chan error, killAt <-chan struct{}) bool {
	w.t.Helper()
	select {
	case <-killAt:
		if err := cmd.Process.Kill(); err != nil {
			w.t.Fatal(err)
		}
		<-exited
		return true
	case <-exited:
		return false
	}
}

// check says, after the runs of days 0 to last, that no email was
// delivered twice, that every user's digest of each day was delivered
// or, cut off between the end of its data and the relay's answer, is
// said by status to be in doubt, and that every entry posted is on a
// digest page of its user, once.
func (w *workflowRuns) check(context string, last int) {
	w.t.Helper()
	mailed := mailedTimes(w.t, w.relay)
	for id, n := range mailed {
		if n > 1 {
			w.t.Errorf("%s: %s delivered %d times", context, id, n)
		}
	}
	var status string
	for day := 0; day <= last; day++ {
		date := w.start.AddDate(0, 0, day).Format(time.DateOnly)
		for _, u := range workflowUsers {
			if mailed[fmt.Sprintf("<digest-%s-%s@example.org>", date, u)] > 0 {
				continue
			}
			if status == "" {
				status = statusOf(w.t, w.bin, w.dir, nil, "config.toml", w.start.AddDate(0, 0, last).Add(time.Hour).Format(time.RFC3339))
			}
			if !strings.Contains(status, "May not have arrived") || !strings.Contains(status, date) {
				w.t.Errorf("%s: %s's digest of %s was not delivered, and status does not say it may not have arrived:\n%s",
					context, u, date, status)
			}
		}
	}
	site := filepath.Join(w.dir, "site")
	for _, u := range workflowUsers {
		counts := pageCounts(w.t, site, u)
		for i := 1; i <= w.posts; i++ {
			if id := fmt.Sprintf("%s-%d", u, i); counts[id] != 1 {
				w.t.Errorf("%s: %s is on %d of %s's digest pages, want 1", context, id, counts[id], u)
			}
		}
	}
}

// The workflow's saved files are enough: a run killed right after the
// relay took the first of its six emails, resumed on a fresh runner
// from only what the workflow saves (the paths read from the workflow
// file itself), delivers no email twice and loses no entry; so does one
// whose state the workflow encrypts (STATE_KEY) before saving it.
func TestWorkflowResumesAKilledRunFromWhatItSaves(t *testing.T) {
	for _, tt := range []struct{ name, key string }{{"unencrypted", ""}, {"with STATE_KEY", "a key from a secret"}} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkflowRuns(t, tt.key)
			w.postAll()
			w.run(0, 0)
			w.postAll()
			cmd, exited, out := w.begin(1, 0)
			if !w.kill(cmd, exited, w.relay.Accepted(len(workflowUsers)+1)) {
				t.Fatalf("the run ended before the relay took its first email:\n%s", out)
			}
			w.run(1, 1)
			w.check("killed after the first email", 1)
		})
	}
}

// As above, the run of each of six days killed at a random instant:
// half the time a random time into the run (up to as long as a whole
// run takes), half the time right after the relay took a random one of
// the day's emails.
func TestWorkflowResumesRunsKilledAtRandom(t *testing.T) {
	seed := testSeed(t)
	t.Logf("FEEDDIGEST_TEST_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	w := newWorkflowRuns(t, "")
	w.postAll()
	began := time.Now()
	w.run(0, 0)
	whole := time.Since(began)
	for day := 1; day <= 6; day++ {
		w.postAll()
		var when string
		var killAt <-chan struct{}
		if rng.IntN(2) == 0 {
			after := time.Duration(rng.Int64N(int64(whole)))
			when, killAt = fmt.Sprintf("%v into the run", after), afterDelay(after)
		} else {
			k := 1 + rng.IntN(len(workflowUsers))
			when, killAt = fmt.Sprintf("after email %d of the day", k), w.relay.Accepted(len(w.relay.Messages())+k)
		}
		cmd, exited, _ := w.begin(day, 0)
		killed := w.kill(cmd, exited, killAt)
		t.Logf("day %d: killed %v %s", day, killed, when)
		w.run(day, 1)
		w.check(fmt.Sprintf("day %d, killed %v %s", day, killed, when), day)
		if t.Failed() {
			return // the next days would repeat what this one found
		}
	}
}

// afterDelay is closed after d.
func afterDelay(d time.Duration) <-chan struct{} {
	c := make(chan struct{})
	time.AfterFunc(d, func() { close(c) })
	return c
}
