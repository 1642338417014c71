package render

import (
	"strings"
	"testing"
	"time"
)

func TestMailStatusText(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		m    MailStatus
		want string
	}{
		{"refused for good", MailStatus{Unsent: []string{"2026-11-21", "2026-11-22"}, LastError: "mail: smtp: 535 bad login.",
			Permanent: true, Attempts: 1, OnlyNewest: true, NextTry: now.Add(14 * time.Hour)},
			"2 digests not sent (2026-11-21, 2026-11-22): refused for good: mail: smtp: 535 bad login. " +
				"Only the newest is tried, once a day, until one goes through; next try 2026-11-23 00:00 UTC."},
		{"passing", MailStatus{Unsent: []string{"2026-11-22"}, LastError: "451\ntry\x1b later", Attempts: 3, NextTry: now.Add(time.Hour)},
			"1 digest not sent (2026-11-22): a passing failure (3 attempts): 451 try later. Next try 2026-11-22 11:00 UTC."},
		{"due", MailStatus{Unsent: []string{"2026-11-22"}, LastError: "down", Attempts: 1, NextTry: now.Add(-time.Minute)},
			"1 digest not sent (2026-11-22): a passing failure (1 attempt): down. Next try at the next run."},
		{"never tried", MailStatus{Unsent: []string{"2026-11-22"}}, "1 digest not sent (2026-11-22): not tried yet. Next try at the next run."},
		{"given up and cut off", MailStatus{GivenUp: []string{"2026-11-18"}, GivenUpWhy: "not sent within 3 days of being built",
			Interrupted: []string{"2026-11-19"}},
			"Given up: 2026-11-18 (not sent within 3 days of being built); its page is on the site. " +
				"May not have arrived (cut off before the mail server answered), not sent again to avoid a duplicate: 2026-11-19."},
	}
	for _, tt := range tests {
		if got := tt.m.Text(now); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	page, err := StatusPage(nil, nil, now, MailStatus{User: "ada", Unsent: []string{"2026-11-22"}, LastError: "<b>535</b>", Permanent: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<li><strong>ada</strong>: 1 digest not sent (2026-11-22): refused for good: &lt;b&gt;535&lt;/b&gt;.") {
		t.Errorf("status.html:\n%s", page)
	}
}
