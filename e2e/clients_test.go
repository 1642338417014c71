package e2e

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
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

// requirePython returns a python3 that can import each module (Debian
// package python3-<module>), as requireTool does for programs. Debian's
// /usr/bin/python3, where apt installs the modules, is tried after the
// one on PATH (which may be another installation without them).
func requirePython(t testing.TB, modules ...string) string {
	t.Helper()
	candidates := []string{"/usr/bin/python3"}
	if path, err := exec.LookPath("python3"); err == nil {
		candidates = append([]string{path}, candidates...)
	}
	script := "import " + strings.Join(modules, ", ")
	for _, python := range candidates {
		if exec.Command(python, "-c", script).Run() == nil {
			return python
		}
	}
	packages := "python3"
	for _, m := range modules {
		if !slices.Contains([]string{"email", "json", "sys"}, m) {
			packages += " python3-" + m
		}
	}
	if inCI, _ := strconv.ParseBool(os.Getenv("CI")); inCI {
		t.Fatalf("no python3 imports %s (apt-get install %s): CI must run this test", script, packages)
	}
	t.Skipf("no python3 imports %s: apt-get install %s to run this test", script, packages)
	return ""
}

// runPython runs script with python and args, failing t unless it exits
// 0, and returns its output.
func runPython(t testing.TB, python, script string, args ...string) string {
	t.Helper()
	out, err := exec.Command(python, append([]string{"-c", script}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return string(out)
}
