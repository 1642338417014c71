package render

import (
	"strings"
	"testing"
	"time"

	"feeddigest/internal/htmltest"
)

func TestStatusPageSaysDueForATimeThatHasPassed(t *testing.T) {
	asOf := utc("2026-11-22T12:00:00Z")
	page, err := StatusPage([]FeedStatus{
		{URL: "https://past.example/feed", State: "failing", LastPoll: utc("2026-11-22T08:00:00Z"), NextPoll: utc("2026-11-22T11:00:00Z"), ErrorCount: 1},
		{URL: "https://later.example/feed", State: "ok", LastPoll: utc("2026-11-22T08:00:00Z"), NextPoll: utc("2026-11-22T13:00:00Z")},
	}, nil, asOf)
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.Parse(t, string(page))
	next := map[string]string{}
	rows := doc.Find("tbody tr")
	for i := range rows.Length() {
		row := rows.Eq(i)
		url := row.Find(`th[scope="row"]`).Text()
		next[url] = row.Find(`td[data-label="Next poll"]`).Text()
	}
	if got := next["https://past.example/feed"]; got != "due" {
		t.Errorf("a next poll before the page's time reads %q, want \"due\"", got)
	}
	if got := next["https://later.example/feed"]; !strings.HasPrefix(got, "2026-11-22 13:00 UTC") {
		t.Errorf("a next poll after the page's time reads %q", got)
	}
	if strings.Contains(string(page), "2026-11-22 11:00") {
		t.Error("a time that has passed is shown as a date")
	}
}

func TestStatusPageCountsInTheSingular(t *testing.T) {
	page, err := StatusPage([]FeedStatus{{URL: "https://a.example/feed", State: "ok"}}, nil, utc("2026-11-22T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "1 feed: 1 ok.") {
		t.Error("one feed is not counted as \"1 feed\"")
	}
}

func TestStatusPageShowsEachUsersRhythmAndNextDigest(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	page, err := StatusPage([]FeedStatus{{URL: "https://a.example/feed", State: "ok", Subscribers: []string{"ada"}}}, []UserStatus{
		{Name: "ada", Rhythm: "daily at 00:00 Europe/London", Location: london, NextDigest: utc("2026-11-23T00:00:00Z")},
		{Name: "kenji", Rhythm: "weekly on Saturday at 06:00 Asia/Tokyo", Location: tokyo, NextDigest: utc("2026-11-27T21:00:00Z")},
		{Name: "new", Rhythm: "daily at 07:00 UTC", Location: time.UTC, Due: true},
	}, utc("2026-11-22T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	doc := htmltest.Parse(t, string(page))
	got := map[string][2]string{}
	rows := doc.Find(`table:has(caption#dcap) tbody tr`)
	for i := range rows.Length() {
		row := rows.Eq(i)
		got[row.Find(`th[scope="row"]`).Text()] = [2]string{row.Find(`td[data-label="Rhythm"]`).Text(), row.Find(`td[data-label="Next digest"]`).Text()}
	}
	want := map[string][2]string{
		"ada":   {"daily at 00:00 Europe/London", "Mon 23 Nov 2026, 00:00 GMT"},
		"kenji": {"weekly on Saturday at 06:00 Asia/Tokyo", "Sat 28 Nov 2026, 06:00 JST"},
		"new":   {"daily at 07:00 UTC", "due"},
	}
	if len(got) != len(want) {
		t.Fatalf("users table rows %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if dt, _ := doc.Find(`td[data-label="Next digest"] time`).First().Attr("datetime"); dt != "2026-11-23T00:00:00Z" {
		t.Errorf("next digest datetime %q", dt)
	}
	if !strings.Contains(string(page), "next digests in each user's own time") {
		t.Error("the footer does not say the next digests are in local time")
	}
}
