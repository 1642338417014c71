// Package needs ends a test that needs something of the machine beyond Go
// and git (PostgreSQL's server, a mail relay, a feed reader, openssl)
// when the machine lacks it. In CI (CI=true, as GitHub Actions, most CI
// services and .ci/run set it) the test fails: there a skip would pass
// untested what CI is there to test. Elsewhere the test is skipped with
// one line saying what is missing and how to get it, so that the
// README's test command passes on a machine with only Go and git.
//
// go test shows a skipped test's reason only with -v. So that a newcomer
// sees it, each line is also appended, once per test binary, to the file
// that $FEEDDIGEST_TEST_NOTES names; .ci/test sets it and prints the
// lines, each once, when the tests are done.
package needs

import (
	"os"
	"strconv"
	"sync"
	"testing"
)

// NotesEnv names the environment variable holding the path of the file
// the lines are gathered in.
const NotesEnv = "FEEDDIGEST_TEST_NOTES"

// InCI says whether the tests run in CI: $CI is true ("true", "1", ...).
func InCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Missing ends t for want of something: advice is one line saying what is
// missing and how to get it ("openssl not found: apt-get install
// openssl"). It fails t in CI, else skips it and notes advice.
func Missing(t testing.TB, advice string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s (CI=%s: in CI every test runs)", advice, os.Getenv("CI"))
		return
	}
	note(advice)
	t.Skip(advice + "; skipping")
}

// noted holds the lines this test binary has written to the notes file.
var noted sync.Map

// note appends advice to the notes file, once. A line that cannot be
// written is lost, quietly: the skip stands without it.
func note(advice string) {
	path := os.Getenv(NotesEnv)
	if path == "" {
		return
	}
	if _, done := noted.LoadOrStore(advice, true); done {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	// One write of a short line: test binaries of several packages
	// append to the file at once without mixing their lines.
	f.Write([]byte(advice + "\n"))
}
