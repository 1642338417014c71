package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// staleAge is how old a cluster's folder must be before sweepStale may
// take it: a cluster being made has no server yet for a few seconds.
const staleAge = time.Hour

// sweepStale removes the folders of clusters that a test binary left
// behind when it was killed before it could stop them (an interrupt, a
// timeout), in parent: those older than staleAge whose server is not
// running. In /dev/shm each would hold memory until the machine restarts.
// A folder whose server may be alive is left alone, whoever's it is.
func sweepStale(parent string, now time.Time) {
	dirs, err := filepath.Glob(filepath.Join(parent, "pgtest-*"))
	if err != nil {
		return
	}
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil || !info.IsDir() || now.Sub(info.ModTime()) < staleAge || serverMayRun(dir) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// serverMayRun says whether the server of the cluster in dir may be
// running: its postmaster.pid names a process that exists (or that this
// process may not ask about). PostgreSQL removes the file when it stops.
func serverMayRun(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
