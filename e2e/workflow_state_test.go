package e2e

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// stateScript seals the state the workflow caches and opens it again
// (see the script for why), from e2e/.
const stateScript = "../.github/scripts/state.sh"

// runStateScript runs "state.sh verb" in dir, as the workflow runs it:
// STATE_KEY is key, "" being what GitHub gives for a secret that is not
// set. It returns the exit code and the output.
func runStateScript(t testing.TB, dir, verb, key string) (int, string) {
	t.Helper()
	requireTool(t, "openssl", "openssl")
	script, err := filepath.Abs(stateScript)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, verb)
	cmd.Dir = dir
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(v string) bool {
		return strings.HasPrefix(v, "STATE_KEY=") || strings.HasPrefix(v, "GITHUB_ACTIONS=")
	}), "STATE_KEY="+key)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("state.sh %s: %v", verb, err)
	}
	return 0, string(out)
}

// mustRunStateScript runs "state.sh verb" and fails t unless it exits 0.
func mustRunStateScript(t testing.TB, dir, verb, key string) string {
	t.Helper()
	code, out := runStateScript(t, dir, verb, key)
	if code != 0 {
		t.Fatalf("state.sh %s: exit %d\n%s", verb, code, out)
	}
	return out
}

// stateFiles writes a state.db and, with wal, a state.db-wal of random
// bytes into a new folder and returns it with their contents.
func stateFiles(t *testing.T, wal bool) (string, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{"state.db": append([]byte("SQLite format 3\x00"), rand.Text()...)}
	if wal {
		files["state.db-wal"] = []byte(rand.Text() + rand.Text())
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

// folderHolds fails t unless dir holds exactly the files of want, with
// their contents (nil: any content).
func folderHolds(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	var wantNames []string
	for name := range want {
		wantNames = append(wantNames, name)
	}
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Fatalf("the folder holds %q, want %q", names, wantNames)
	}
	for name, data := range want {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); data != nil && !bytes.Equal(got, data) {
			t.Errorf("%s changed", name)
		}
	}
}

// With a key, seal leaves only state.enc, encrypted, and open gives
// back the state byte for byte, its log too.
func TestWorkflowStateSealedAndOpened(t *testing.T) {
	t.Parallel()
	for _, wal := range []bool{true, false} {
		name := map[bool]string{true: "with its log", false: "without a log"}[wal]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, state := stateFiles(t, wal)
			const key = "correct horse battery staple"
			mustRunStateScript(t, dir, "seal", key)
			folderHolds(t, dir, map[string][]byte{"state.enc": nil})
			sealed, _ := os.ReadFile(filepath.Join(dir, "state.enc"))
			if !bytes.HasPrefix(sealed, []byte("Salted__")) || bytes.Contains(sealed, []byte("SQLite format 3")) {
				t.Errorf("state.enc is not openssl's encrypted form: %q...", sealed[:min(len(sealed), 24)])
			}
			mustRunStateScript(t, dir, "open", key)
			folderHolds(t, dir, state)
		})
	}
}

// A wrong key, or none, fails open, saying so, and leaves no state.db: a
// run never starts from an empty state. The sealed state is kept for
// the right key.
func TestWorkflowStateThatDoesNotOpenFailsTheJob(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, key, says string }{
		{"wrong key", "not the key", "does not open with this STATE_KEY"},
		{"no key", "", "the cached state is encrypted (state.enc) and STATE_KEY is not set"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, state := stateFiles(t, true)
			mustRunStateScript(t, dir, "seal", "the key")
			sealed, _ := os.ReadFile(filepath.Join(dir, "state.enc"))
			code, out := runStateScript(t, dir, "open", tt.key)
			if code != 1 || !strings.Contains(out, tt.says) || !strings.Contains(out, "does not start from an empty state") {
				t.Errorf("open: exit %d, %q; want 1, saying %q", code, out, tt.says)
			}
			folderHolds(t, dir, map[string][]byte{"state.enc": sealed})
			mustRunStateScript(t, dir, "open", "the key")
			folderHolds(t, dir, state)
		})
	}
}

// Without a key the state is cached as it is, as before the key was
// offered; a key set later encrypts it from its first run on.
func TestWorkflowStateWithoutKeyIsLeftAsItIs(t *testing.T) {
	t.Parallel()
	dir, state := stateFiles(t, true)
	mustRunStateScript(t, dir, "open", "")
	mustRunStateScript(t, dir, "seal", "")
	folderHolds(t, dir, state)

	if out := mustRunStateScript(t, dir, "open", "new key"); !strings.Contains(out, "not encrypted") {
		t.Errorf("open of an unencrypted state with a key says %q", out)
	}
	folderHolds(t, dir, state)
	mustRunStateScript(t, dir, "seal", "new key")
	folderHolds(t, dir, map[string][]byte{"state.enc": nil})
}

// A job that made no state (a run that failed at once, the first one)
// seals nothing.
func TestWorkflowStateSealsNothingWithoutAState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustRunStateScript(t, dir, "open", "key")
	mustRunStateScript(t, dir, "seal", "key")
	folderHolds(t, dir, map[string][]byte{})
}

// The workflow runs the script where it must: open after the state is
// restored and before the run; seal after the run, even one cancelled,
// and before the state is saved, which waits for it; the key given to
// the script alone.
func TestWorkflowSealsTheStateItCaches(t *testing.T) {
	raw, err := os.ReadFile(workflowFile)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID   string            `yaml:"id"`
				If   string            `yaml:"if"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	steps := wf.Jobs["digest"].Steps
	lastRestore, open, run, seal, save := -1, -1, -1, -1, -1
	for i, s := range steps {
		key := strings.HasPrefix(s.With["key"], "feeddigest-state-")
		switch {
		case strings.HasPrefix(s.Uses, "actions/cache/restore@") && key:
			lastRestore = i
		case strings.HasPrefix(s.Uses, "actions/cache/save@") && key:
			save = i
		case strings.Contains(s.Run, ".github/scripts/state.sh open"):
			open = i
		case strings.Contains(s.Run, ".github/scripts/state.sh seal"):
			seal = i
		case strings.Contains(s.Run, "./feeddigest run"):
			run = i
		}
	}
	if !(lastRestore >= 0 && lastRestore < open && open < run && run < seal && seal < save) {
		t.Fatalf("steps: last state restore %d, open %d, run %d, seal %d, save %d: want them in that order", lastRestore, open, run, seal, save)
	}
	const secret = "${{ secrets.STATE_KEY }}"
	if steps[open].Env["STATE_KEY"] != secret || steps[seal].Env["STATE_KEY"] != secret {
		t.Errorf("open and seal get STATE_KEY %q and %q, want %q", steps[open].Env["STATE_KEY"], steps[seal].Env["STATE_KEY"], secret)
	}
	if _, ok := steps[run].Env["STATE_KEY"]; ok {
		t.Error("the run gets STATE_KEY: only the script needs it")
	}
	if !strings.Contains(steps[seal].If, "always()") || !strings.Contains(steps[seal].If, "steps."+steps[open].ID+".outcome == 'success'") {
		t.Errorf("seal runs if %q: want after a cancelled run too (always()), and only once the state opened", steps[seal].If)
	}
	if !strings.Contains(steps[save].If, "always()") || !strings.Contains(steps[save].If, "steps."+steps[seal].ID+".outcome == 'success'") {
		t.Errorf("the state is saved if %q: want only once it is sealed (steps.%s.outcome == 'success')", steps[save].If, steps[seal].ID)
	}
	if !strings.Contains(steps[save].With["path"], "state.enc") {
		t.Errorf("the state's save leaves out state.enc: %q", steps[save].With["path"])
	}
}
