//go:build killfeed

package pipeline

import (
	"os"
	"strings"
	"syscall"
)

// A build for tests only (go build -tags killfeed) can be given a feed
// that kills the process every time it is read: when a poll begins
// reading the body of a feed whose URL contains
// FEEDDIGEST_TEST_KILL_FEED (its mark committed, see pollFeed), the
// process sends itself SIGKILL, as the OOM killer or a parser bomb not yet
// known would end it. No body found today kills the program for sure (the
// known ones are bounded), and one found tomorrow is fixed; a kill from
// inside happens at the same instant on every machine, however loaded.
// Without the tag, the hook does not exist.
func init() {
	match := os.Getenv("FEEDDIGEST_TEST_KILL_FEED")
	if match == "" {
		return
	}
	testHookReading = func(feedURL string) {
		if strings.Contains(feedURL, match) {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
}

// Likewise FEEDDIGEST_TEST_KILL_ARTICLE kills the process as an article
// page whose URL contains it is about to be asked for (its claim
// committed, see wholeArticle).
func init() {
	match := os.Getenv("FEEDDIGEST_TEST_KILL_ARTICLE")
	if match == "" {
		return
	}
	testHookArticle = func(pageURL string) {
		if strings.Contains(pageURL, match) {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
}
