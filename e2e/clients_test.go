package e2e

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// requireTool returns the path of a program other people wrote (a mail
// relay, a feed reader) that a test hands our output to. Missing, it
// fails the test in CI (CI=true), where .ci/run installs it, and skips it
// elsewhere, naming the Debian package to install.
func requireTool(t testing.TB, name, debianPackage string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if inCI, _ := strconv.ParseBool(os.Getenv("CI")); inCI {
		t.Fatalf("%s is missing (apt-get install %s): CI must run this test", name, debianPackage)
	}
	t.Skipf("%s is missing: apt-get install %s to run this test", name, debianPackage)
	return ""
}

// requirePython checks that python3 can import each module (Debian
// package python3-<module>), as requireTool does for programs.
func requirePython(t testing.TB, modules ...string) string {
	t.Helper()
	python := requireTool(t, "python3", "python3")
	for _, m := range modules {
		if err := exec.Command(python, "-c", "import "+m).Run(); err != nil {
			if inCI, _ := strconv.ParseBool(os.Getenv("CI")); inCI {
				t.Fatalf("python3 cannot import %s (apt-get install python3-%s): CI must run this test", m, m)
			}
			t.Skipf("python3 cannot import %s: apt-get install python3-%s to run this test", m, m)
		}
	}
	return python
}
