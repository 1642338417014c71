package locale

import (
	"strings"
	"time"

	"github.com/bep/golocales"
	"golang.org/x/text/language"
)

// names are a language's names of months and weekdays, from CLDR.
type names struct {
	monthsWide, monthsShort     []string
	weekdaysWide, weekdaysShort []string
}

// namesOf finds CLDR's names for tag, else for its base language, else
// the English ones. A short name CLDR leaves empty (Arabic's weekdays)
// is the long one: a reader sees the whole word rather than nothing.
func namesOf(tag language.Tag) names {
	tr := golocales.New(strings.ReplaceAll(tag.String(), "-", "_"))
	if tr == nil {
		base, _ := tag.Base()
		tr = golocales.New(base.String())
	}
	if tr == nil {
		tr = golocales.New("en")
	}
	return names{
		monthsWide:    tr.MonthsWide(),
		monthsShort:   orWide(tr.MonthsAbbreviated(), tr.MonthsWide()),
		weekdaysWide:  tr.WeekdaysWide(),
		weekdaysShort: orWide(tr.WeekdaysAbbreviated(), tr.WeekdaysWide()),
	}
}

func orWide(short, wide []string) []string {
	out := make([]string, len(short))
	for i, s := range short {
		if strings.TrimSpace(s) == "" && i < len(wide) {
			s = wide[i]
		}
		out[i] = s
	}
	return out
}

func (n names) month(m time.Month, wide bool) string {
	if wide {
		return n.monthsWide[m-1]
	}
	return n.monthsShort[m-1]
}

func (n names) weekday(d time.Weekday, wide bool) string {
	if wide {
		return n.weekdaysWide[d]
	}
	return n.weekdaysShort[d]
}
