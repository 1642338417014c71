package cli

import (
	"strings"
	"testing"
	"time"
)

// -now takes an RFC 3339 time, or a plain date meaning that day at 00:00
// UTC whatever the machine's zone; a bad value names both forms.
func TestNowFlagForms(t *testing.T) {
	t.Setenv("TZ", "America/New_York") // the machine's zone plays no part
	for _, tt := range []struct{ flag, want string }{
		{"2026-11-30T06:00:00Z", "2026-11-30T06:00:00Z"},
		{"2026-11-30T07:00:00+01:00", "2026-11-30T06:00:00Z"},
		{"2026-11-30", "2026-11-30T00:00:00Z"},
		{"2024-02-29", "2024-02-29T00:00:00Z"},
	} {
		got, err := clock(tt.flag)
		if err != nil || !got.Equal(utcAt(t, tt.want)) {
			t.Errorf("-now %s = %s (%v), want %s", tt.flag, got, err, tt.want)
		}
	}
	for _, bad := range []string{"yesterday", "2026-11-31", "30/11/2026", "2026-11-30 06:00", "2026-11-30T06:00"} {
		_, err := clock(bad)
		if err == nil {
			t.Errorf("-now %q accepted", bad)
			continue
		}
		for _, form := range []string{"RFC 3339", "2026-11-30T06:00:00Z", "a date (2026-11-30, that day at 00:00 UTC)"} {
			if !strings.Contains(err.Error(), form) {
				t.Errorf("-now %q: %q does not name %q", bad, err, form)
			}
		}
	}
}

// A run given a date completes, as one given a time.
func TestRunNowADate(t *testing.T) {
	path := writeConfig(t, "[[users]]\nname = \"a\"\ntimezone = \"UTC\"\n")
	if code, stdout, stderr := runCLI("run", "-config", path, "-now", "2026-11-30"); code != 0 || !strings.Contains(stdout, "pass at 2026-11-30 00:00:00Z") {
		t.Errorf("run -now 2026-11-30: exit %d\n%s%s", code, stdout, stderr)
	}
}

// The commands that take -now say so in their help.
func TestNowFlagHelpNamesTheForms(t *testing.T) {
	for _, cmd := range []string{"run", "status", "publish"} {
		code, stdout, stderr := runCLI("help", cmd)
		if out := stdout + stderr; code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "RFC 3339, or a date: that day at 00:00 UTC") {
			t.Errorf("help %s (exit %d) does not say what -now takes:\n%s", cmd, code, out)
		}
	}
}

func utcAt(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
