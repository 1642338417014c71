package needs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ended records how Missing ended a test, instead of ending it.
type ended struct {
	testing.TB
	failed, skipped string
}

func (e *ended) Helper()                           {}
func (e *ended) Fatalf(format string, args ...any) { e.failed = fmt.Sprintf(format, args...) }
func (e *ended) Skip(args ...any)                  { e.skipped = fmt.Sprint(args...) }

const advice = "exim4 not found: apt-get install exim4-daemon-light"

// Outside CI, a test is skipped with the advice, which is noted once
// however many tests skip for it.
func TestMissingSkipsOutsideCI(t *testing.T) {
	for _, ci := range []string{"", "false", "0"} {
		t.Run("CI="+ci, func(t *testing.T) {
			notes := filepath.Join(t.TempDir(), "notes")
			t.Setenv("CI", ci)
			t.Setenv(NotesEnv, notes)
			noted.Clear()
			for range 3 {
				e := &ended{TB: t}
				Missing(e, advice)
				if e.failed != "" || e.skipped != advice+"; skipping" {
					t.Errorf("failed %q, skipped %q; want skipped with the advice", e.failed, e.skipped)
				}
			}
			other := &ended{TB: t}
			Missing(other, "openssl not found: apt-get install openssl")
			got, err := os.ReadFile(notes)
			if err != nil {
				t.Fatal(err)
			}
			if want := advice + "\nopenssl not found: apt-get install openssl\n"; string(got) != want {
				t.Errorf("notes:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// In CI the test fails, saying what is missing, and nothing is noted.
func TestMissingFailsInCI(t *testing.T) {
	for _, ci := range []string{"true", "1", "TRUE"} {
		t.Run("CI="+ci, func(t *testing.T) {
			notes := filepath.Join(t.TempDir(), "notes")
			t.Setenv("CI", ci)
			t.Setenv(NotesEnv, notes)
			noted.Clear()
			e := &ended{TB: t}
			Missing(e, advice)
			if e.skipped != "" || e.failed != advice+" (CI="+ci+": in CI every test runs)" {
				t.Errorf("failed %q, skipped %q; want failed with the advice", e.failed, e.skipped)
			}
			if _, err := os.Stat(notes); !os.IsNotExist(err) {
				t.Errorf("a failed test noted its advice: %v", err)
			}
		})
	}
}

// Without the notes file named, a skip writes nothing.
func TestMissingWithoutNotesFile(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv(NotesEnv, "")
	t.Chdir(t.TempDir())
	e := &ended{TB: t}
	Missing(e, advice)
	if e.skipped == "" {
		t.Error("not skipped")
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}
