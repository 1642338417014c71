// Command peakrss runs a command and reports its peak resident set size.
//
// A child's ru_maxrss includes the high-water mark of the process it was
// started from (Go starts children with vfork, and Linux keeps the larger
// value across execve), so a test process that holds large feed bodies
// would see its own size reported for every child. This small launcher
// stands between them: it runs the command, passes its output and exit
// status through, and prints the command's CPU time (user and system) as
// "cpu-ns N" and then "peak-rss-bytes N" as its last stderr line.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: peakrss COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
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
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(os.Stderr, "cpu-ns %d\n", ru.Utime.Nano()+ru.Stime.Nano())
	fmt.Fprintf(os.Stderr, "peak-rss-bytes %d\n", ru.Maxrss<<10)
	os.Exit(code)
}
