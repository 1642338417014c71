package e2e

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// Two overlapping runs on one state file, one of them reaching it
// through a symbolic link (to the file, or to its folder, the file made
// or not yet): the second exits at once saying another run holds the
// state, and asks for nothing. The lock is taken on the real file; one
// taken beside the link would let both runs poll every feed.
func TestOverlappingRunThroughLinkIsLockedOut(t *testing.T) {
	type layout struct{ first, second string }
	// Each case's paths are relative to a folder holding real/, the
	// folder the state file is in, and the links the case makes.
	cases := []struct {
		name  string
		made  bool // whether the state file exists before the first run
		links map[string]string
		layout
	}{
		{"link to the file, then its real path", true,
			map[string]string{"link.db": "real/state.db"}, layout{"link.db", "real/state.db"}},
		{"real path, then a link to the file", true,
			map[string]string{"link.db": "real/state.db"}, layout{"real/state.db", "link.db"}},
		{"linked folder, file not made yet, then the real path", false,
			map[string]string{"linked": "real"}, layout{"linked/state.db", "real/state.db"}},
		{"real path, then a linked folder", false,
			map[string]string{"linked": "real"}, layout{"real/state.db", "linked/state.db"}},
		{"link to a file not made yet, then the real path", false,
			map[string]string{"link.db": "real/state.db"}, layout{"link.db", "real/state.db"}},
	}
	bin := binary(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, "real"), 0o755); err != nil {
				t.Fatal(err)
			}
			for link, target := range c.links {
				if err := os.Symlink(filepath.Join(root, target), filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
			server := feedtest.Start(t)
			held, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			var armed atomic.Bool
			server.Handle("/slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if armed.Load() {
					once.Do(func() { close(held) })
					<-release
				}
				serveBody(goodFeed("slow"))(w, r)
			}))
			config := func(name, state string) string {
				dir := filepath.Join(root, name)
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				return testConfig{State: filepath.Join(root, state), Site: filepath.Join(root, name, "site"), Users: []testUser{
					{Name: "ada", Zone: "UTC", Feeds: []string{server.URL + "/slow"}},
				}}.write(t, dir)
			}
			first, second := config("first", c.first), config("second", c.second)
			if c.made {
				run := command(bin, nil, "run", "-config", first, "-now", "2026-11-21T00:05:00Z")
				if out, err := run.CombinedOutput(); err != nil {
					t.Fatalf("the run that makes the state: %v\n%s", err, out)
				}
			}
			before := server.Count("/slow")
			armed.Store(true)
			const now = "2026-11-22T00:05:00Z"
			run1 := command(bin, nil, "run", "-config", first, "-now", now)
			var out1 bytes.Buffer
			run1.Stdout, run1.Stderr = &out1, &out1
			if err := run1.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-held:
			case <-time.After(30 * time.Second):
				run1.Process.Kill()
				run1.Wait()
				t.Fatalf("the first run never polled:\n%s", out1.String())
			}
			start := time.Now()
			out2, err := command(bin, nil, "run", "-config", second, "-now", now).CombinedOutput()
			took := time.Since(start)
			close(release)
			if err == nil {
				t.Errorf("the second run, through another path to the same state, ran:\n%s", out2)
			}
			if !strings.Contains(string(out2), "another feeddigest run is using it") {
				t.Errorf("the second run does not say another run holds the state:\n%s", out2)
			}
			if took > 10*time.Second {
				t.Errorf("the second run took %v to give up", took)
			}
			if _, err := os.Stat(filepath.Join(root, "second", "site")); !os.IsNotExist(err) {
				t.Errorf("the locked-out run wrote its site: %v", err)
			}
			if err := run1.Wait(); err != nil {
				t.Fatalf("the first run: %v\n%s", err, out1.String())
			}
			if n := server.Count("/slow") - before; n != 1 {
				t.Errorf("the feed was asked for %d times, want once (by the first run)", n)
			}
			if _, err := os.Stat(filepath.Join(root, "real", "state.db")); err != nil {
				t.Errorf("the state is not in the real folder: %v", err)
			}
		})
	}
}
