package render

import (
	"strings"
	"testing"
)

func TestStatusPageSaysDueForATimeThatHasPassed(t *testing.T) {
	asOf := utc("2026-11-22T12:00:00Z")
	page, err := StatusPage([]FeedStatus{
		{URL: "https://past.example/feed", State: "failing", LastPoll: utc("2026-11-22T08:00:00Z"), NextPoll: utc("2026-11-22T11:00:00Z"), ErrorCount: 1},
		{URL: "https://later.example/feed", State: "ok", LastPoll: utc("2026-11-22T08:00:00Z"), NextPoll: utc("2026-11-22T13:00:00Z")},
	}, asOf)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseHTML(t, string(page))
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
	page, err := StatusPage([]FeedStatus{{URL: "https://a.example/feed", State: "ok"}}, utc("2026-11-22T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "1 feed: 1 ok.") {
		t.Error("one feed is not counted as \"1 feed\"")
	}
}
