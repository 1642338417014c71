package cli

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"
	"golang.org/x/term"
)

// Text laid out for a terminal of a given width (status): how wide a
// string shows, and how it is cut or wrapped to fit. Widths are counted
// in terminal columns, by grapheme cluster (uniseg): a CJK character
// takes two, a combining accent none.

// defaultWidth is the width of output that goes to no terminal (a pipe,
// a file, a CI log) when $COLUMNS does not say: 80 columns, as ps and
// Python's shutil.get_terminal_size assume.
const defaultWidth = 80

// minWidth is the narrowest layout: below it no table is readable.
const minWidth = 40

// terminalWidth is the width status lays its lines out for: $COLUMNS when
// it holds a number (an operator's or a script's explicit choice, e.g.
// COLUMNS=200 for one line per feed in a pipe), else the terminal's
// width when w is one, else defaultWidth; never below minWidth.
func terminalWidth(w io.Writer, getenv func(string) string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
		return max(n, minWidth)
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return max(n, minWidth)
		}
	}
	return defaultWidth
}

// textWidth is how many columns s takes.
func textWidth(s string) int { return uniseg.StringWidth(s) }

// cutEnd is s cut to at most n columns, "…" in place of what was cut.
func cutEnd(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	head, _ := splitAtWidth(s, n-1)
	return strings.TrimRight(head, " ") + "…"
}

// cutURL is a URL cut to at most n columns in its middle, so that its
// site and the end of its path both show, whole parts of it where they
// can: "https://example.org/…/feed.xml"; when the site and the last part
// do not both fit, the last part and as much of the site as fits:
// "http://127.0.0.1:360…/missing.xml".
func cutURL(u string, n int) string {
	if textWidth(u) <= n {
		return u
	}
	site, last := u, ""
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			site = u[:i+3+j+1]
			last = u[strings.LastIndexByte(u, '/'):]
		}
	}
	const minHead = 8
	switch {
	case last != "" && textWidth(site)+1+textWidth(last) <= n:
		tail := lastColumns(u, n-1-textWidth(site))
		if i := strings.IndexByte(tail, '/'); i > 0 {
			tail = tail[i:] // from a part's start: ".../feed.xml", not "...ed.xml"
		}
		return site + "…" + tail
	case last != "" && minHead+1+textWidth(last) <= n:
		head, _ := splitAtWidth(u, n-1-textWidth(last))
		return head + "…" + last
	}
	head, _ := splitAtWidth(u, (n-1)/2)
	return head + "…" + lastColumns(u, n-1-textWidth(head))
}

// lastColumns is the longest end of s that takes at most n columns.
func lastColumns(s string, n int) string {
	var clusters []string
	var widths []int
	state := -1
	for rest := s; rest != ""; {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		clusters, widths = append(clusters, c), append(widths, w)
	}
	used, i := 0, len(clusters)
	for i > 0 && used+widths[i-1] <= n {
		i--
		used += widths[i]
	}
	return strings.Join(clusters[i:], "")
}

// splitAtWidth splits s after its first n columns (never inside a
// grapheme cluster).
func splitAtWidth(s string, n int) (head, rest string) {
	used, state := 0, -1
	for rest = s; rest != ""; {
		_, next, w, st := uniseg.FirstGraphemeClusterInString(rest, state)
		if used+w > n {
			break
		}
		used, rest, state = used+w, next, st
	}
	return s[:len(s)-len(rest)], rest
}

// wrap breaks s into lines of at most width columns: the first starts
// with first, the others with indent (whose widths count). Words break
// at spaces; a word longer than a line (a URL, a token) is cut where the
// line ends.
func wrap(s, first, indent string, width int) []string {
	var lines []string
	line := first
	lineHas := false // a word is on the line
	for _, word := range strings.Fields(s) {
		for word != "" {
			room := width - textWidth(line)
			if lineHas {
				room-- // the space before the word
			}
			switch {
			case textWidth(word) <= room:
				if lineHas {
					line += " "
				}
				line, word, lineHas = line+word, "", true
			case lineHas:
				lines, line, lineHas = append(lines, line), indent, false
			default:
				head, rest := splitAtWidth(word, max(room, 1))
				lines, line, word = append(lines, line+head), indent, rest
			}
		}
	}
	if lineHas || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
