package rules

import (
	"errors"
	"strings"
	"testing"

	"feeddigest/domain"
)

var sample = SubjectOf(domain.Entry{
	Title:      "Sponsored: the Go 1.30 release",
	Content:    `<p class="lead">Generics &amp; iterators</p><script>var secret = 1</script>`,
	Author:     "Press Office",
	Link:       "https://blog.example.org/go/1.30?utm_source=x",
	Categories: []string{"Programming", "golang"},
})

func TestRuleFields(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want bool
	}{
		{"title:sponsored", true},
		{"title:iterators", false},
		{"text:generics & iterators", true},
		{"text:class|lead|secret", false}, // markup and scripts are not text
		{"author:^press office$", true},
		{"author:sponsored", false},
		{"link:blog\\.example\\.org/go/", true},
		{"link:release", false},
		{"category:^golang$", true},
		{"category:rust", false},
		{"Category:PROGRAMMING", true},
		{"iterators", true},     // bare: the text
		{"SPONSORED", true},     // bare: the title, without regard to case
		{"press office", false}, // bare: not the author
		{"(?-i)SPONSORED", false},
		{"(?-i)Sponsored", true},
		{"title:(?-i)sponsored", false},
		{"https?://", false}, // not a field: a bare pattern, and no title or text has a URL
		{"(a+)+$", false},
	} {
		r, err := Parse(tc.rule)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.rule, err)
		}
		if got := r.Match(sample); got != tc.want {
			t.Errorf("%q matches = %v, want %v", tc.rule, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want error
		says string
	}{
		{"", ErrEmpty, "empty"},
		{"title:", ErrEmpty, "empty"},
		{"  ", ErrEmpty, "empty"},
		{"autor:x", ErrUnknownField, "title, text, author, link, category"},
		{"title:(unclosed", ErrPattern, "missing closing )"},
		{"x{1001}", ErrPattern, "invalid repeat count"},
		{strings.Repeat("a", 10_000), ErrTooLong, "10000 characters, at most 1000"},
	} {
		_, err := Parse(tc.rule)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Parse(%.20q) = %v, want %v saying %q", tc.rule, err, tc.want, tc.says)
		}
	}
}

func TestMatchesEverything(t *testing.T) {
	for rule, want := range map[string]bool{
		".*": true, "title:": false, "text:^": true, "x?": true, "|a": true,
		"sponsored": false, "a*b*": true, "^$": false, ".": false,
	} {
		r, err := Parse(rule)
		if err != nil {
			if rule == "title:" {
				continue
			}
			t.Fatal(err)
		}
		if got := r.MatchesEverything(); got != want {
			t.Errorf("%q MatchesEverything = %v, want %v", rule, got, want)
		}
	}
}

func TestLeftOut(t *testing.T) {
	must := func(s string) Rule {
		r, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mute := Set{Mute: []Rule{must("title:sponsored")}}
	keepGo := Set{Keep: []Rule{must("category:golang")}}
	keepRust := Set{Keep: []Rule{must("category:rust")}}
	for _, tc := range []struct {
		name   string
		levels []Set
		want   bool
	}{
		{"no rules", nil, false},
		{"muted", []Set{mute}, true},
		{"kept", []Set{keepGo}, false},
		{"not kept", []Set{keepRust}, true},
		{"kept by the user, muted by the feed", []Set{keepGo, mute}, true},
		{"each level's keep must be met", []Set{keepGo, keepRust}, true},
		{"a set of both: mute wins", []Set{{Mute: mute.Mute, Keep: keepGo.Keep}}, true},
	} {
		if got := LeftOut(sample, tc.levels...); got != tc.want {
			t.Errorf("%s: LeftOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPlainText(t *testing.T) {
	for in, want := range map[string]string{
		"plain  words\n here":                    "plain words here",
		"<p>a</p><p>b &lt;c&gt;</p>":             "a b <c>",
		"<style>p{}</style><b>bold</b><script>x": "bold",
		"<p>unclosed <em>tags":                   "unclosed tags",
		"":                                       "",
	} {
		if got := PlainText(in); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParse: any rule either compiles or fails with one of the named
// errors, and a compiled rule matches any subject without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"title:sponsored", "autor:x", "(a+)+$", "", "category:(?-i)Go", "x{1001}", "text:<p>", "link:^https://"} {
		f.Add(s, "Title", "<p>text</p>")
	}
	f.Fuzz(func(t *testing.T, rule, title, text string) {
		r, err := Parse(rule)
		if err != nil {
			if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrUnknownField) && !errors.Is(err, ErrTooLong) && !errors.Is(err, ErrPattern) {
				t.Fatalf("Parse(%q): unnamed error %v", rule, err)
			}
			return
		}
		if len(rule) > MaxPattern+len("category:") {
			t.Fatalf("accepted a %d-byte rule", len(rule))
		}
		s := SubjectOf(domain.Entry{Title: title, Content: text, Categories: []string{title}})
		r.Match(s)
		_ = r.MatchesEverything()
	})
}

func TestNestedRepeat(t *testing.T) {
	for rule, want := range map[string]bool{"(a+)+$": true, "(x*)*": true, "(ab{2,})*c": true, "title:a+b*": false, "sponsored": false, "(a|b)+": false} {
		r, err := Parse(rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.NestedRepeat(); got != want {
			t.Errorf("%q NestedRepeat = %v, want %v", rule, got, want)
		}
	}
}
