package locale

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Dates are written from two sources: the names of months and weekdays
// come from CLDR (github.com/bep/golocales), the patterns that place them
// from the catalogue, because CLDR's own date patterns all carry the year
// and a digest says "vendredi 20 novembre" in its Subject.

// DateForm names one of the date patterns a catalogue keeps (its id
// under [date]).
type DateForm string

const (
	FullDate  DateForm = "full"    // "Friday 20 November 2026"
	Weekday   DateForm = "weekday" // "Friday 20 November": no year
	ShortDate DateForm = "short"   // "Fri 20 Nov 2026"
	DateTime  DateForm = "time"    // "20 Nov 2026, 09:00"
	BriefTime DateForm = "brief"   // "20 Nov 09:00": no year
	Day       DateForm = "day"     // "20 Nov 2026": a day a server named
)

// The patterns of a run of days (see WeekRange).
const (
	weekSameMonth       DateForm = "week_same_month"
	weekSameYear        DateForm = "week_same_year"
	weekOtherYear       DateForm = "week_other_year"
	weekSameMonthShort  DateForm = "week_same_month_short"
	weekOtherMonthShort DateForm = "week_other_month_short"
)

// field is one part of a parsed pattern: a date field (letter repeated
// width times), or literal text (letter 0).
type field struct {
	letter byte
	width  int
	text   string
}

// pattern is a parsed CLDR date pattern.
type pattern []field

// patternLetters are the CLDR pattern letters a catalogue may use: year,
// month (format and stand-alone), day, weekday, hour and minute.
const patternLetters = "yMLdEHm"

// parsePattern parses a CLDR date pattern: runs of a letter are fields,
// text in single quotes is literal (” is a quote), other characters
// are literal.
func parsePattern(s string) (pattern, error) {
	var out pattern
	literal := func(t string) {
		if n := len(out); n > 0 && out[n-1].letter == 0 {
			out[n-1].text += t
			return
		}
		out = append(out, field{text: t})
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				literal("'")
				i += 2
				continue
			}
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("pattern %q: a quote is not closed", s)
			}
			literal(s[i+1 : i+1+end])
			i += end + 2
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			if !strings.ContainsRune(patternLetters, rune(c)) {
				return nil, fmt.Errorf("pattern %q: the letter %c is not one of %s (quote text: 'text')", s, c, patternLetters)
			}
			n := 1
			for i+n < len(s) && s[i+n] == c {
				n++
			}
			out = append(out, field{letter: c, width: n})
			i += n
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			literal(s[i : i+size])
			i += size
		}
	}
	return out, nil
}

// format writes t by the pattern: in a range, a letter's second use is
// the second time (CLDR's interval patterns), so "d-d MMMM y" writes
// "20-27 November 2026" of the 20th and the 27th.
func (l *Locale) format(p pattern, times ...time.Time) string {
	var b strings.Builder
	seen := map[byte]bool{}
	second := false
	for _, f := range p {
		if f.letter == 0 {
			b.WriteString(f.text)
			continue
		}
		if seen[f.letter] && len(times) > 1 {
			second = true
			clear(seen)
		}
		seen[f.letter] = true
		t := times[0]
		if second {
			t = times[len(times)-1]
		}
		b.WriteString(l.dateField(f, t))
	}
	return b.String()
}

// dateField writes one field of t.
func (l *Locale) dateField(f field, t time.Time) string {
	switch f.letter {
	case 'y':
		if f.width == 2 {
			return l.Padded(t.Year()%100, 2)
		}
		return l.Padded(t.Year(), 1)
	case 'M', 'L':
		switch {
		case f.width >= 4:
			return l.names.month(t.Month(), true)
		case f.width == 3:
			return l.names.month(t.Month(), false)
		}
		return l.Padded(int(t.Month()), f.width)
	case 'd':
		return l.Padded(t.Day(), f.width)
	case 'E':
		return l.names.weekday(t.Weekday(), f.width >= 4)
	case 'H':
		return l.Padded(t.Hour(), f.width)
	case 'm':
		return l.Padded(t.Minute(), f.width)
	}
	return ""
}

// Padded writes n with at least width digits (leading zeros), in the
// language's digits: the minutes of "1 h 02 min".
func (l *Locale) Padded(n, width int) string {
	l = l.loc()
	return l.digits(fmt.Sprintf("%0*d", width, n))
}

// Date writes t (in its own location) in the form the reader's language
// gives it.
func (l *Locale) Date(t time.Time, form DateForm) string {
	l = l.loc()
	return l.format(l.pattern(form), t)
}

// WeekRange names a run of days, first to last (dates at any hour; only
// their calendar dates count), as the language does: "20-27 November
// 2026", "28 November - 4 December 2026", "28 December 2026 - 3 January
// 2027"; withoutYear leaves the year out ("20-27 November"). One day is
// named as FullDate (Weekday without the year) names it.
func (l *Locale) WeekRange(first, last time.Time, withoutYear bool) string {
	l = l.loc()
	sameDay := first.Year() == last.Year() && first.YearDay() == last.YearDay()
	sameMonth := first.Year() == last.Year() && first.Month() == last.Month()
	var form DateForm
	switch {
	case sameDay && withoutYear:
		return l.Date(first, Weekday)
	case sameDay:
		return l.Date(first, FullDate)
	case withoutYear && sameMonth:
		form = weekSameMonthShort
	case withoutYear:
		form = weekOtherMonthShort
	case sameMonth:
		form = weekSameMonth
	case first.Year() == last.Year():
		form = weekSameYear
	default:
		form = weekOtherYear
	}
	return l.format(l.pattern(form), first, last)
}

// pattern is the language's pattern of form, else the English one (the
// catalogue test sees that none is missing or broken).
func (l *Locale) pattern(form DateForm) pattern {
	if p, ok := l.patterns[form]; ok {
		return p
	}
	return l.fallback.patterns[form]
}
