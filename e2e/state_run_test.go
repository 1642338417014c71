package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failed cache restore leaves an empty state file. The run refuses it,
// saying what happened and what to do, and touches neither it nor the
// site: taken for a fresh start, it would repeat delivered entries and
// cut the history of index.html and feed.xml.
func TestEmptyStateFileIsRefused(t *testing.T) {
	w := newHostileWorld(t, "", nil)
	if out, err := w.command("2026-11-22T00:05:00Z").CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	state := filepath.Join(w.dir, "state.db")
	index := filepath.Join(w.site, "ada", "index.html")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(state, 0); err != nil {
		t.Fatal(err)
	}
	out, err := w.command("2026-11-23T00:05:00Z").CombinedOutput()
	if err == nil {
		t.Fatalf("a run on an empty state file succeeded:\n%s", out)
	}
	for _, want := range []string{state, "empty (0 bytes)", "restore it", "delete it to start afresh"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if info, err := os.Stat(state); err != nil || info.Size() != 0 {
		t.Errorf("the empty state file was changed: %v", err)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Error("index.html was rewritten")
	}
	if _, err := os.Stat(filepath.Join(w.site, "ada", "2026-11-23.html")); err == nil {
		t.Error("a digest was written from an empty state")
	}

	// Deleting it is the fresh start the message offers.
	os.Remove(state)
	if out, err := w.command("2026-11-23T00:05:00Z").CombinedOutput(); err != nil {
		t.Fatalf("run after deleting the state: %v\n%s", err, out)
	}
}
