package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"feeddigest/internal/needs"
)

// requireTool returns the path of a program other people wrote (a mail
// relay, a feed reader) that a test hands our output to. Missing, it
// skips the test, naming the Debian package to install, or fails it in
// CI, where .ci/run installs it (needs.Missing).
func requireTool(t testing.TB, name, debianPackage string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		needs.Missing(t, fmt.Sprintf("%s not found: apt-get install %s", name, debianPackage))
	}
	return path
}

// requirePython returns a python3 that can import each module (Debian
// package python3-<module>), as requireTool does for programs. Every
// python3 on PATH is tried in turn: the first may be another
// installation (pyenv's) without the modules apt put in Debian's.
func requirePython(t testing.TB, modules ...string) string {
	t.Helper()
	script := "import " + strings.Join(modules, ", ")
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		python := filepath.Join(dir, "python3")
		if info, err := os.Stat(python); err != nil || info.IsDir() {
			continue
		}
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
	needs.Missing(t, fmt.Sprintf("no python3 that can %s: apt-get install %s", script, packages))
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
