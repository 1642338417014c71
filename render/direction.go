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

// entryDirection is the direction of an entry whose title, else
// excerpt, reads the other way than the page (see entryView.Dir): "rtl"
// or "ltr", "" when it reads as the page does or has no letter that
// says.
func entryDirection(title, excerpt, page string) string {
	for _, s := range []string{title, excerpt} {
		if rtl, found := strongDirection(s); found {
			dir := "ltr"
			if rtl {
				dir = "rtl"
			}
			if dir == page {
				return ""
			}
			return dir
		}
	}
	return ""
}
