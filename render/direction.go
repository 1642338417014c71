package render

import "golang.org/x/text/unicode/bidi"

// strongDirection is the direction of text's first letter that has one
// (Unicode's bidirectional classes L, R and AL), as a browser's
// dir="auto" takes it: rtl says right to left; found is false for text
// without such a letter (digits, punctuation).
func strongDirection(text string) (rtl, found bool) {
	for _, r := range text {
		props, _ := bidi.LookupRune(r)
		switch props.Class() {
		case bidi.R, bidi.AL:
			return true, true
		case bidi.L:
			return false, true
		}
	}
	return false, false
}

// hasRightToLeft says whether text holds a right-to-left letter.
func hasRightToLeft(text string) bool {
	for _, r := range text {
		props, _ := bidi.LookupRune(r)
		if c := props.Class(); c == bidi.R || c == bidi.AL {
			return true
		}
	}
	return false
}

// rightToLeft says whether text reads from right to left (see
// strongDirection).
func rightToLeft(text string) bool {
	rtl, _ := strongDirection(text)
	return rtl
}

// entryDir is the direction an entry's line of our own words (author and
// time) takes beside its title and text: "rtl" when the title, else the
// excerpt, reads right to left, "" (the page's own, left to right)
// otherwise.
func entryDir(title, excerpt string) string {
	for _, s := range []string{title, excerpt} {
		if rtl, found := strongDirection(s); found {
			if rtl {
				return "rtl"
			}
			return ""
		}
	}
	return ""
}
