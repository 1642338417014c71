package render

import (
	"time"

	"feeddigest/locale"
)

// coveredDays is the run of local dates a weekly digest covers, first to
// last, as a reader names them ("20-27 November 2026").
type coveredDays struct{ first, last time.Time }

// daysCovered are the days a weekly digest of day (its date) covers. A digest holds
// what was first seen after the previous digest was built (since) up to
// its own build (built), so it covers the day since falls on to the day it
// was built, in the user's zone: "20-27 November" for a Friday digest
// after the previous Friday's. A week missed (cron off) stretches the run
// to the day of the catch-up; it never reads as the coming week.
//
// A first weekly digest (since zero) covers its own week up to the day it
// was built: it is dated by the week's digest_day at or before the day
// the user joined, and holds the newest few entries of each feed as read
// that day ("20-26 November" for a Friday user added on Thursday 26th).
// A build time unknown (zero) ends the run at the digest's date.
func daysCovered(day, since, built time.Time, loc *time.Location) coveredDays {
	if loc == nil {
		loc = time.UTC
	}
	out := coveredDays{first: day, last: day}
	if b := localDay(built, loc); !built.IsZero() && b.After(day) {
		out.last = b
	}
	if s := localDay(since, loc); !since.IsZero() && s.Before(out.last) {
		out.first = s
	}
	return out
}

// localDay is the date t falls on in loc, as midnight UTC of that date:
// the form time.Parse gives a digest's date, so that the two compare.
func localDay(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// label names the days with their year, as a page's title names a
// day's digest ("Monday 23 November 2026"): "20-27 November 2026",
// "28 November - 4 December 2026", "28 December 2026 - 3 January 2027",
// in the reader's language (locale.Locale.WeekRange). One day is named
// as a daily digest's.
func (c coveredDays) label(l *locale.Locale) string {
	return l.WeekRange(c.first, c.last, false)
}

// shortLabel names the days without the year, as an email's Subject
// names a day ("Monday 23 November"): "20-27 November", "28 November -
// 4 December", "28 December - 3 January".
func (c coveredDays) shortLabel(l *locale.Locale) string {
	return l.WeekRange(c.first, c.last, true)
}
