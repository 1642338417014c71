package render

import "feeddigest/locale"

// Reading time: an entry of readingFrom words or more says how long it
// takes to read, at readingSpeed words a minute.
const (
	readingFrom  = 200
	readingSpeed = 230
)

// readingTime is what an entry of words words says of its length in the
// reader's language: "7 min read", or "" below readingFrom words. The
// minutes are rounded to the nearest, never below one: a reading time is
// an estimate, and rounding up would add half a minute to every one of
// them.
func readingTime(l *locale.Locale, words int) string {
	if words < readingFrom {
		return ""
	}
	return l.T("entry.reading_time", "Count", max(1, (words+readingSpeed/2)/readingSpeed))
}
