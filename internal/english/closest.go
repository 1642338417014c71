package english

import "strings"

// Closest is the word of known that word most likely misspells: an exact
// match but for case, else the nearest at most two edits away; "" when
// none is that close. It is the "did you mean" of config keys, day names
// and commands.
func Closest(word string, known []string) string {
	best, bestD := "", 3
	for _, cand := range known {
		if strings.EqualFold(word, cand) {
			return cand
		}
		if d := EditDistance(strings.ToLower(word), cand); d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b, in bytes. Inputs
// longer than 64 bytes are far from everything (99), so a hostile value
// costs nothing.
func EditDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
