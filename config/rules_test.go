package config

import (
	"errors"
	"strings"
	"testing"

	"feeddigest/rules"
)

func TestRulesLoaded(t *testing.T) {
	c, err := Load(td("rules.toml"))
	if err != nil {
		t.Fatal(err)
	}
	u := c.Users[0]
	written := func(rs []rules.Rule) (out []string) {
		for _, r := range rs {
			out = append(out, r.Written)
		}
		return out
	}
	if got := strings.Join(written(u.Rules.Mute), " | "); got != "title:sponsored | author:^Press Office$" {
		t.Errorf("user mute = %q", got)
	}
	if got := strings.Join(written(u.Rules.Keep), " | "); got != "(?-i)Go|Rust | (a+)+$" {
		t.Errorf("user keep = %q", got)
	}
	if u.Feeds[0].Rules != nil {
		t.Errorf("a plain feed has rules %v", u.Feeds[0].Rules)
	}
	news := u.Feeds[1].Rules
	if news == nil || len(news.Mute) != 1 || news.Keep[0].Field != rules.Category {
		t.Fatalf("feed rules = %v", news)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `mute rule ".*" matches any text: it leaves out every entry (line 8)`) ||
		!strings.Contains(c.Warnings[0], "feeds[1] (https://example.org/news.xml)") {
		t.Errorf("warnings = %q, want one on the rule that matches everything", c.Warnings)
	}
}

func TestRuleErrors(t *testing.T) {
	_, err := Load(td("bad_rules.toml"))
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("err = %v, want *Error", err)
	}
	for _, want := range []string{
		`users[0] "ada": mute rule "autor:Press Office": unknown field "autor": a rule's field is one of title, text, author, link, category`,
		`users[0] "ada": mute rule "": empty pattern (line 7)`,
		`users[0] "ada": mute rule "title:(unclosed": pattern does not compile: missing closing ): "(unclosed" (line 8)`,
		`users[0] "ada": mute rule "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (10000 characters): pattern too long: 10000 characters, at most 1000 (line 9)`,
		`users[0] "ada": keep: want an array of rules such as ["title:sponsored"], got string "title:go" (line 11)`,
		`users[0] "ada": feeds[1] (https://example.org/news.xml): mute rule "category:": empty pattern (line 14)`,
		`users[0] "ada": feeds[1] (https://example.org/news.xml): keep[0]: want a string such as "title:sponsored", got integer 42 (line 14)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q; got:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), strings.Repeat("a", 100)) {
		t.Errorf("a long rule is quoted whole")
	}
}
