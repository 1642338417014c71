package domain

import (
	"strings"
	"unicode"
)

// OneLine is s on one line, for a message, a terminal or a list: each
// control character (a newline, a tab, an escape) a space, and each run
// of white space one space, none at the ends.
func OneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
