// Package english writes counts of things the way people read them:
// "1 feed", "2 feeds", "3 entries", never "1 feeds".
package english

import (
	"strconv"
	"strings"
)

// Count is n followed by noun, in the plural unless n is 1.
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun is noun in the plural unless n is 1. It knows the regular English
// endings, which cover every noun feeddigest counts: feed -> feeds,
// entry -> entries, bus -> buses.
func Noun(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}
