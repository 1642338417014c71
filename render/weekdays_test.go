package render

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

// A weekly digest is titled by the days it covers, from the day the
// previous digest was built to the day it was built, in the user's zone:
// across months and years, after a missed week, and for a first digest.
func TestWeeklyTitleNamesTheDaysCovered(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		date         string
		since, built string // RFC 3339; since "" for a first digest
		loc          *time.Location
		title, short string
	}{
		{"a week within a month", "2026-11-27", "2026-11-20T00:05:00Z", "2026-11-27T00:05:00Z", london,
			"20-27 November 2026", "20-27 November"},
		{"across two months", "2026-12-04", "2026-11-28T06:00:00Z", "2026-12-04T06:00:00Z", london,
			"28 November - 4 December 2026", "28 November - 4 December"},
		{"across two years", "2027-01-03", "2026-12-28T06:00:00Z", "2027-01-03T06:00:00Z", london,
			"28 December 2026 - 3 January 2027", "28 December - 3 January"},
		// Added on Thursday 26th, a Friday user's first digest is dated by
		// the Friday before and built at once.
		{"a first digest: its week up to the day it was built", "2026-11-20", "", "2026-11-26T10:00:00Z", london,
			"20-26 November 2026", "20-26 November"},
		// The next one holds what came after the first was built.
		{"the digest after a first one built late", "2026-11-27", "2026-11-26T10:00:00Z", "2026-11-27T00:05:00Z", london,
			"26-27 November 2026", "26-27 November"},
		{"a first digest built on its day", "2026-11-27", "", "2026-11-27T00:05:00Z", london,
			"Friday 27 November 2026", "Friday 27 November"},
		{"a week missed: up to the catch-up", "2026-11-27", "2026-11-13T00:05:00Z", "2026-11-30T09:00:00Z", london,
			"13-30 November 2026", "13-30 November"},
		// 11:00 UTC on the 19th is the 20th in Auckland.
		{"days in the user's zone", "2026-11-27", "2026-11-19T11:05:00Z", "2026-11-26T11:05:00Z", auckland,
			"20-27 November 2026", "20-27 November"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Digest{User: "ada", Email: "ada@example.org", Date: tt.date, Location: tt.loc, Weekly: true, BuiltAt: utc(tt.built)}
			if tt.since != "" {
				d.Since = utc(tt.since)
			}
			v, err := newDigestView(d)
			if err != nil {
				t.Fatal(err)
			}
			if want := "Digest for " + tt.title; v.Title != want {
				t.Errorf("title %q, want %q", v.Title, want)
			}
			draft, err := DigestEmail(d, "feeddigest <f@example.org>", "")
			if err != nil {
				t.Fatal(err)
			}
			if want := "Your digest for " + tt.short + ": nothing new"; draft.v.Subject != want {
				t.Errorf("subject %q, want %q", draft.v.Subject, want)
			}
			items := archiveItems(nil, []DigestRef{{Date: tt.date, BuiltAt: d.BuiltAt, Weekly: true, Since: d.Since, Location: tt.loc}})
			if items[0].Label != tt.title {
				t.Errorf("archive label %q, want %q", items[0].Label, tt.title)
			}
		})
	}
}

// A feed.xml written before weekly digests were titled by their days
// gets its weekly entries made anew, not copied with "the week of".
func TestAtomFeedRetitlesOldWeeklyEntries(t *testing.T) {
	d := emptyDigest(t)
	d.Weekly, d.Since = true, utc("2020-11-16T00:05:00Z")
	out, err := AtomFeed("ada", nil, testSite, []Digest{d}, d.BuiltAt)
	if err != nil {
		t.Fatal(err)
	}
	if !ReadAtomEntries(bytes.NewReader(out)).Keeps("ada", nil, testSite, d.Date, d.BuiltAt) {
		t.Fatal("an entry of today's title is not kept")
	}
	old := bytes.Replace(out, []byte("<title>Digest for 16-23 November 2020</title>"), []byte("<title>Digest for the week of Monday 23 November 2020</title>"), 1)
	kept := ReadAtomEntries(bytes.NewReader(old))
	if kept.Keeps("ada", nil, testSite, d.Date, d.BuiltAt) {
		t.Error("an entry titled by \"the week of\" is kept")
	}
	var again bytes.Buffer
	if err := WriteAtomFeedKeeping(&again, "ada", nil, testSite, []Digest{d}, d.BuiltAt, kept); err != nil || !bytes.Equal(again.Bytes(), out) {
		t.Errorf("written again (%v):\n%s\nwant\n%s", err, again.Bytes(), out)
	}
}

// A weekly user's digest is named by the days it covers on the page, in
// the browser's title, in the email (both parts) and in the Atom feed;
// never by "the week of" a date, which reads as the coming week.
func TestWeeklyDigestTitledEverywhere(t *testing.T) {
	d := emptyDigest(t) // Monday 23 November 2020, built that day
	d.Weekly = true
	d.Since = utc("2020-11-16T00:05:00Z")
	const want = "Digest for 16-23 November 2020"
	doc, _ := digestDoc(t, d)
	if got := strings.TrimSpace(doc.Find("h1").First().Text()); !strings.HasPrefix(got, want) {
		t.Errorf("h1 %q, want %q", got, want)
	}
	if got := doc.Find("title").Text(); !strings.Contains(got, want) {
		t.Errorf("title %q, want it to say %q", got, want)
	}
	out, err := AtomFeed("ada", nil, testSite, []Digest{d}, utc("2020-11-23T00:05:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	var f atomFeed
	if err := xml.Unmarshal(out, &f); err != nil || len(f.Entries) != 1 || f.Entries[0].Title != want {
		t.Errorf("Atom entries %+v (%v), want one titled %q", f.Entries, err, want)
	}
	draft, err := DigestEmail(d, "feeddigest <f@example.org>", "")
	if err != nil {
		t.Fatal(err)
	}
	email, err := draft.FirstEntries(draft.Entries())
	if err != nil {
		t.Fatal(err)
	}
	if email.Subject != "Your digest for 16-23 November: nothing new" {
		t.Errorf("Subject %q", email.Subject)
	}
	for part, body := range map[string]string{"text": email.Text, "HTML": email.HTML} {
		if !strings.Contains(body, "16-23 November 2020") || strings.Contains(body, "week of") {
			t.Errorf("the %s part does not name the days covered:\n%s", part, body)
		}
	}
	index, err := IndexPage("ada", nil, &d, []DigestRef{{Date: d.Date, BuiltAt: d.BuiltAt, Weekly: true, Since: d.Since, Location: d.Location}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), `<a href="2020-11-23.html">16-23 November 2020</a>`) {
		t.Errorf("the index does not list the digest by its days:\n%s", index)
	}
}
