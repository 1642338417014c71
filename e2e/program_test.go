// Package e2e tests feeddigest as users and cron run it: the built
// program, a separate process, killed, interrupted, on a full disk, fed
// hostile servers, measured. Every test here builds and runs the binary
// through the helpers of this file; tests of the commands that can run
// in-process live beside them in package cli.
//
//	go test ./e2e/                       # all of it (some minutes)
//	go test -run 'TestKill|TestFeedThatKills' ./e2e/
//
// Under -short the tests that need the binary skip.
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // database/sql's "sqlite": tests read the poll marks a killed run leaves
)

// A build is one `go build` of a package of the module, made once per
// test process and shared by every test that asks for the same one.
type build struct {
	once sync.Once
	path string
	err  error
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{}
)

// program builds the package pkg of the module (a path from the module's
// root, "." for feeddigest itself) with the build tags given, once, and
// returns the executable's path. It skips the test under -short.
func program(t testing.TB, pkg string, tags ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	key := pkg + " " + strings.Join(tags, ",")
	buildsMu.Lock()
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	buildsMu.Unlock()
	b.once.Do(func() { b.path, b.err = goBuild(pkg, tags) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func goBuild(pkg string, tags []string) (string, error) {
	dir, err := os.MkdirTemp("", "feeddigest-e2e-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, filepath.Base(filepath.Join("feeddigest", pkg)))
	args := []string{"build", "-o", bin}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = ".." // the module's root: the tests run in e2e/
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
	}
	return bin, nil
}

// binary is feeddigest as users build it.
func binary(t testing.TB) string { return program(t, ".") }

// killFeedBinary is feeddigest built with the killfeed tag: a feed whose
// URL contains FEEDDIGEST_TEST_KILL_FEED kills the process each time its
// body is read (see pipeline/killfeed.go). Without that variable it is
// the program users build.
func killFeedBinary(t testing.TB) string { return program(t, ".", "killfeed") }

// peakRSS is e2e/testdata/peakrss, which runs a command and reports its
// CPU time and true peak RSS (see there why the test process cannot).
func peakRSS(t testing.TB) string { return program(t, "./e2e/testdata/peakrss") }

// command is the program bin started with args, in the test's
// environment with env added. It has no SMTP password unless env gives
// one.
func command(bin string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	// COLUMNS: status lays its lines out for a terminal's width; these
	// tests read its full table, a line a feed (the layouts are cli's
	// TestStatusFitsTheTerminal).
	cmd.Env = append(append(os.Environ(), "FEEDDIGEST_SMTP_PASSWORD=", "COLUMNS=1000"), env...)
	return cmd
}

// feeddigest runs the built feeddigest with args in dir, its environment
// the test's with env added, to its end, and returns its exit code and
// output.
func feeddigest(t testing.TB, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := command(binary(t), env, args...)
	cmd.Dir = dir
	return runCommand(t, cmd)
}

// runCommand runs cmd to its end and returns its exit code and output.
func runCommand(t testing.TB, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// writeFile writes text to the file name in dir and returns its path.
func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeConfig writes text as dir/config.toml, the config the commands
// read by default, and returns its path.
func writeConfig(t testing.TB, dir, text string) string {
	t.Helper()
	return writeFile(t, dir, "config.toml", text)
}

// testConfig is the config a test of the binary writes (see write): the
// fetch settings local servers need, mail, and users, so that a test
// states only what it is about.
type testConfig struct {
	State  string // the state file, "" for the default beside the config
	Site   string // site_dir, "" for the default
	Fetch  string // [fetch] lines after allow_private_networks = true, each ending in a newline
	Outbox string // [email] outbox, "" for none
	SMTP   string // [email] smtp (tls = "none"), "" for none
	Users  []testUser
}

// testUser is a [[users]] table; with Email, mail goes to name@example.org.
type testUser struct {
	Name, Zone string
	Email      bool
	Feeds      []string
}

// write writes the config as dir/config.toml (see writeConfig) and
// returns its path.
func (c testConfig) write(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	if c.State != "" {
		fmt.Fprintf(&b, "state = %q\n", c.State)
	}
	if c.Site != "" {
		fmt.Fprintf(&b, "site_dir = %q\n", c.Site)
	}
	fmt.Fprintf(&b, "[fetch]\nallow_private_networks = true\n%s", c.Fetch)
	if c.Outbox != "" || c.SMTP != "" {
		b.WriteString("[email]\nfrom = \"Digest <digest@example.org>\"\n")
		if c.Outbox != "" {
			fmt.Fprintf(&b, "outbox = %q\n", c.Outbox)
		}
		if c.SMTP != "" {
			fmt.Fprintf(&b, "smtp = %q\ntls = \"none\"\n", c.SMTP)
		}
	}
	for _, u := range c.Users {
		fmt.Fprintf(&b, "[[users]]\nname = %q\ntimezone = %q\n", u.Name, u.Zone)
		if u.Email {
			fmt.Fprintf(&b, "email = \"%s@example.org\"\n", u.Name)
		}
		quoted := make([]string, len(u.Feeds))
		for i, f := range u.Feeds {
			quoted[i] = strconv.Quote(f)
		}
		fmt.Fprintf(&b, "feeds = [%s]\n", strings.Join(quoted, ", "))
	}
	return writeConfig(t, dir, b.String())
}
