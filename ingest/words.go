package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// countWords is the length of text in words, for the reading time. Text
// in Chinese or Japanese has no spaces between its words: each of its
// characters counts as half a word (at 230 words a minute, 460
// characters, between the usual reading speeds of Chinese and Japanese
// readers); Korean puts spaces between words and is counted as they
// are. Thai and other scripts written without spaces count as one word
// between spaces, which makes their reading time short or missing rather
// than wrong.
func countWords(text string) int {
	words, wide := 0, 0
	for field := range strings.FieldsSeq(text) {
		other := false
		for _, r := range field {
			switch {
			case r < utf8.RuneSelf:
				// Most text: no range table to search.
				other = other || 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9'
			case isCJK(r):
				wide++
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				other = true
			}
		}
		if other {
			words++
		}
	}
	return words + (wide+1)/2
}

// isCJK says whether r is a Chinese or Japanese character, written
// without spaces between words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
