package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRhythm(t *testing.T) {
	user := "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n"
	tests := []struct {
		name, keys string
		every      Rhythm
		day        time.Weekday
	}{
		{"default: daily", "", Daily, time.Monday},
		{"daily", "every = \"day\"\n", Daily, time.Monday},
		{"weekly on Monday by default", "every = \"week\"\n", Weekly, time.Monday},
		{"weekly on a day", "every = \"week\"\ndigest_day = \"friday\"\n", Weekly, time.Friday},
		{"any case", "every = \"Week\"\ndigest_day = \"SUNDAY\"\n", Weekly, time.Sunday},
		{"abbreviated", "every = \"week\"\ndigest_day = \"Sat\"\n", Weekly, time.Saturday},
		{"spaces", "every = \" week \"\ndigest_day = \" tuesday \"\n", Weekly, time.Tuesday},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(user+tt.keys), "test.toml")
			if err != nil {
				t.Fatal(err)
			}
			if u := c.Users[0]; u.Every != tt.every || u.DigestDay != tt.day {
				t.Errorf("every %q, digest_day %v; want %q, %v", u.Every, u.DigestDay, tt.every, tt.day)
			}
		})
	}
}

func TestRhythmErrors(t *testing.T) {
	user := "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\n"
	tests := []struct {
		name, keys string
		want       []string // all in one line of the error
	}{
		{"unknown rhythm", "every = \"fortnight\"\n", []string{`users[0] "ada": every`, `"day" or "week"`, `"fortnight"`, "(line 4)"}},
		{"rhythm not a string", "every = 7\n", []string{"users[0].every", "integer 7", "(line 4)"}},
		{"misspelt day", "every = \"week\"\ndigest_day = \"mondy\"\n", []string{`users[0] "ada": digest_day`, `"mondy" is not a day of the week`, `did you mean "monday"?`, "(line 5)"}},
		{"a number of a day", "every = \"week\"\ndigest_day = \"1\"\n", []string{"digest_day", `"1" is not a day of the week`, "(line 5)"}},
		{"day not a string", "every = \"week\"\ndigest_day = 1\n", []string{"users[0].digest_day", "integer 1", "(line 5)"}},
		{"digest_day on a daily user", "digest_day = \"friday\"\n", []string{`users[0] "ada"`, "digest_day is only for a weekly digest", `every = "week"`, "(line 4)"}},
		{"digest_day on an explicit daily user", "every = \"day\"\ndigest_day = \"friday\"\n", []string{"digest_day is only for a weekly digest", "(line 5)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(user+tt.keys), "test.toml")
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", c.Users[0])
			}
			lines := strings.Split(err.Error(), "\n")
			if !slices.ContainsFunc(lines, func(l string) bool { return containsAll(l, tt.want) }) {
				t.Errorf("no line of the error contains all of %q:\n%v", tt.want, err)
			}
		})
	}
	// A bad rhythm is one problem, not two.
	_, err := Parse([]byte(user+"every = \"weekly\"\ndigest_day = \"friday\"\n"), "test.toml")
	if err == nil || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("every = \"weekly\" with a digest_day: want one problem, got %v", err)
	}
}

func TestParseWeekday(t *testing.T) {
	for _, s := range []string{"monday", "Monday", "MON", "mon"} {
		if d, ok := ParseWeekday(s); !ok || d != time.Monday {
			t.Errorf("ParseWeekday(%q) = %v, %v", s, d, ok)
		}
	}
	for _, s := range []string{"", "mo", "monda", "lundi", "7"} {
		if d, ok := ParseWeekday(s); ok {
			t.Errorf("ParseWeekday(%q) = %v, want not a day", s, d)
		}
	}
}
