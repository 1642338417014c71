package pgtest

import (
	"os"
	"syscall"
)

// ramDir is a folder in memory with room for test clusters, or "" when
// there is none: /dev/shm when it is a tmpfs with at least ramDirRoom
// free (a container's 64 MB /dev/shm is not).
func ramDir() string {
	const tmpfsMagic = 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic {
		return ""
	}
	if st.Bavail*uint64(st.Bsize) < ramDirRoom {
		return ""
	}
	return "/dev/shm"
}

// ramDirRoom is the least free space of a file system in memory that
// ramDir takes: the scale benchmark's databases take hundreds of MB.
const ramDirRoom = 4 << 30

// TempInMemory moves the test process's temporary folder (t.TempDir,
// os.TempDir) into memory when there is room: the pass tests write SQLite
// states, pages and outboxes by the thousand, and on a disk their fsyncs
// were a fifth of the quick run's wall. They test behaviour, not the disk;
// the built binary's tests (e2e/) keep the real disk, kills and all.
// TMPDIR set by the user wins.
func TempInMemory() {
	if os.Getenv("TMPDIR") != "" {
		return
	}
	if dir := ramDir(); dir != "" {
		os.Setenv("TMPDIR", dir)
	}
}
