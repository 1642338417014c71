// Command peakrss runs a command and reports its peak resident set size.
//
// A child's ru_maxrss includes the high-water mark of the process it was
// started from (Go starts children with vfork, and Linux keeps the larger
// value across execve), so a test process that holds large feed bodies
// would see its own size reported for every child. This small launcher
// stands between them: it runs the command, passes its output and exit
// status through, and prints the command's CPU time (user and system) as
// "cpu-ns N" and then "peak-rss-bytes N" as its last stderr line.
//
// Before those it prints what the peak was made of, as sampled from
// /proc/PID/status every few milliseconds: "peak-rss-file-bytes N" and
// "peak-rss-anon-bytes N", the file-backed pages (the executable's and its
// libraries' code and read-only data) and the anonymous ones (heap,
// stacks) at the sample with the largest resident set. A sample can miss
// a short peak: these say what a peak is made of, ru_maxrss says how
// high it was.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: peakrss COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var sampled chan residentSet
	err := cmd.Start()
	if err == nil {
		stop := make(chan struct{})
		sampled = make(chan residentSet, 1)
		go func() { sampled <- sample(cmd.Process.Pid, stop) }()
		err = cmd.Wait()
		close(stop)
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
		if code < 0 {
			code = 128
		}
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(127)
	}
	if peak := <-sampled; peak.total > 0 {
		fmt.Fprintf(os.Stderr, "peak-rss-file-bytes %d\n", peak.file)
		fmt.Fprintf(os.Stderr, "peak-rss-anon-bytes %d\n", peak.anon)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(os.Stderr, "cpu-ns %d\n", ru.Utime.Nano()+ru.Stime.Nano())
	fmt.Fprintf(os.Stderr, "peak-rss-bytes %d\n", ru.Maxrss<<10)
	os.Exit(code)
}

// residentSet is one reading of a process's resident pages, in bytes.
type residentSet struct{ total, file, anon int64 }

// sample reads pid's resident set until stop is closed, and returns the
// reading with the largest total.
func sample(pid int, stop <-chan struct{}) residentSet {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	var peak residentSet
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if r, ok := readStatus(path); ok && r.total > peak.total {
			peak = r
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// readStatus reads VmRSS, RssFile and RssAnon from a /proc status file.
func readStatus(path string) (residentSet, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return residentSet{}, false
	}
	var r residentSet
	fields := map[string]*int64{"VmRSS:": &r.total, "RssFile:": &r.file, "RssAnon:": &r.anon}
	lines := bufio.NewScanner(bytes.NewReader(b))
	for lines.Scan() {
		f := bytes.Fields(lines.Bytes())
		if len(f) >= 2 {
			if p := fields[string(f[0])]; p != nil {
				kb, _ := strconv.ParseInt(string(f[1]), 10, 64)
				*p = kb << 10
			}
		}
	}
	return r, r.total > 0
}
