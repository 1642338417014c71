// Package english writes counts of things the way people read them:
// "1 feed", "2 feeds", "3 entries", never "1 feeds".
package english

import (
	"strconv"

	"github.com/dustin/go-humanize/english"
)

// Count is n followed by noun, in the plural unless n is 1, by
// go-humanize's rules of regular English endings (feed -> feeds, entry
// -> entries, address -> addresses), which cover every noun feeddigest
// counts. Unlike go-humanize's Plural, n is written without thousands
// separators, as every count feeddigest prints always was.
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + english.PluralWord(n, noun, "")
}
