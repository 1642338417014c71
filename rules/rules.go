// Package rules reads a reader's mute and keep rules and tells which
// entries they leave out. A rule is "FIELD:PATTERN" or "PATTERN"; the
// pattern is an RE2 regular expression, compiled once, matched without
// regard to case unless it starts with its own flags ("(?-i)" makes it
// case-sensitive). RE2 runs in time linear in the text, so no pattern,
// however nested its repeats ("(a+)+$"), can stall a run.
package rules

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"feeddigest/domain"
)

// Field is the part of an entry a rule looks at.
type Field string

// The fields a rule may name; a rule without one (Any) looks at the
// title and the text.
const (
	Any      Field = ""
	Title    Field = "title"
	Text     Field = "text"
	Author   Field = "author"
	Link     Field = "link"
	Category Field = "category"
)

// Fields are the fields a rule may name, as messages list them.
var Fields = []Field{Title, Text, Author, Link, Category}

// MaxPattern is the longest pattern a rule may have, in bytes: longer is
// a pasted document rather than a rule.
const MaxPattern = 1000

// Named errors of Parse.
var (
	ErrEmpty        = errors.New("empty pattern")
	ErrUnknownField = errors.New("unknown field")
	ErrTooLong      = errors.New("pattern too long")
	ErrPattern      = errors.New("pattern does not compile")
)

// Rule is one compiled rule.
type Rule struct {
	Written string // as the config has it
	Field   Field
	re      *regexp.Regexp
}

// Parse reads and compiles one rule.
func Parse(written string) (Rule, error) {
	r := Rule{Written: written}
	pattern := written
	if field, rest, ok := fieldPrefix(written); ok {
		f := Field(strings.ToLower(field))
		if !slices.Contains(Fields, f) {
			return r, fmt.Errorf("%w %q: a rule's field is one of title, text, author, link, category (write (%s): to match %q itself)",
				ErrUnknownField, field, field, field+":")
		}
		r.Field, pattern = f, rest
	}
	switch {
	case strings.TrimSpace(pattern) == "":
		return r, ErrEmpty
	case len(pattern) > MaxPattern:
		return r, fmt.Errorf("%w: %d characters, at most %d", ErrTooLong, len(pattern), MaxPattern)
	}
	re, err := regexp.Compile(caseless(pattern))
	if err != nil {
		return r, fmt.Errorf("%w: %v", ErrPattern, unwrapSyntax(err))
	}
	r.re = re
	return r, nil
}

// fieldPrefix splits "word:rest" where word is letters only; a pattern
// that starts otherwise ("https?://", "(?i)x") has no field.
func fieldPrefix(s string) (field, rest string, ok bool) {
	field, rest, ok = strings.Cut(s, ":")
	if !ok || field == "" {
		return "", s, false
	}
	for _, c := range field {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return "", s, false
		}
	}
	return field, rest, true
}

// caseless makes a pattern match without regard to case, unless it
// starts with flags of its own, which then decide.
func caseless(pattern string) string {
	if strings.HasPrefix(pattern, "(?") && !strings.HasPrefix(pattern, "(?:") && !strings.HasPrefix(pattern, "(?P<") {
		return pattern
	}
	return "(?i)" + pattern
}

// unwrapSyntax gives regexp's error without repeating the pattern,
// which the message names already.
func unwrapSyntax(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: %q", se.Code, strings.TrimPrefix(se.Expr, "(?i)"))
	}
	return err.Error()
}

// Subject is what rules look at of an entry: its fields as plain text.
type Subject struct {
	Title, Text, Author, Link string
	Categories                []string
}

// SubjectOf is the subject of e: its text is its content, else its
// summary, as plain text (empty for an entry stored without its texts).
func SubjectOf(e domain.Entry) Subject {
	html := e.Content
	if strings.TrimSpace(html) == "" {
		html = e.Summary
	}
	return Subject{Title: PlainText(e.Title), Text: PlainText(html), Author: e.Author, Link: e.Link, Categories: e.Categories}
}

// Match says whether the rule matches s.
func (r Rule) Match(s Subject) bool {
	switch r.Field {
	case Title:
		return r.re.MatchString(s.Title)
	case Text:
		return r.re.MatchString(s.Text)
	case Author:
		return r.re.MatchString(s.Author)
	case Link:
		return r.re.MatchString(s.Link)
	case Category:
		return slices.ContainsFunc(s.Categories, r.re.MatchString)
	default:
		return r.re.MatchString(s.Title) || r.re.MatchString(s.Text)
	}
}

// MatchesEverything says whether the rule's pattern matches any text at
// all, judged on a few unlike ones: such a rule mutes (or keeps) every
// entry, which is a mistake more often than a wish.
func (r Rule) MatchesEverything() bool {
	for _, s := range []string{"", "a", "The quick brown fox, 1 2 3.", "\u0627\u0644\u062e\u0628\u0631", "https://example.org/x?y=1"} {
		if !r.re.MatchString(s) {
			return false
		}
	}
	return true
}

// Set is the rules of one level, a user's or a feed's.
type Set struct {
	Mute, Keep []Rule
}

// Empty says whether the set has no rules.
func (s *Set) Empty() bool { return s == nil || len(s.Mute) == 0 && len(s.Keep) == 0 }

// Equal says whether two sets have the same rules, as written; nil is
// the empty set.
func (s *Set) Equal(o *Set) bool {
	if s == nil || o == nil {
		return s.Empty() && o.Empty()
	}
	same := func(a, b Rule) bool { return a.Written == b.Written }
	return slices.EqualFunc(s.Mute, o.Mute, same) && slices.EqualFunc(s.Keep, o.Keep, same)
}

// LeavesOut says whether the set leaves the entry out: it matches a mute
// rule, or there are keep rules and it matches none.
func (s Set) LeavesOut(sub Subject) bool {
	if slices.ContainsFunc(s.Mute, func(r Rule) bool { return r.Match(sub) }) {
		return true
	}
	return len(s.Keep) > 0 && !slices.ContainsFunc(s.Keep, func(r Rule) bool { return r.Match(sub) })
}

// LeftOut says whether any of the levels leaves the entry out: a user's
// rules and a feed's apply each on their own (a keep rule of the user
// and one of the feed must both be met).
func LeftOut(sub Subject, levels ...Set) bool {
	return slices.ContainsFunc(levels, func(s Set) bool { return s.LeavesOut(sub) })
}

// String gives the set as written: "mute [...] keep [...]".
func (s *Set) String() string {
	if s.Empty() {
		return ""
	}
	written := func(rs []Rule) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Written
		}
		return out
	}
	return fmt.Sprintf("mute %q keep %q", written(s.Mute), written(s.Keep))
}

// NestedRepeat says whether the pattern repeats a repeat, as in (a+)+$:
// the shape that makes backtracking engines take exponential time. RE2
// runs in time linear in the text whatever the shape, so such a rule is
// safe; check says so, lest a reader who knows the danger worry.
func (r Rule) NestedRepeat() bool {
	re, err := syntax.Parse(r.re.String(), syntax.Perl)
	if err != nil {
		return false
	}
	return repeatsRepeat(re, false)
}

func repeatsRepeat(re *syntax.Regexp, inRepeat bool) bool {
	repeat := re.Op == syntax.OpStar || re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && (re.Max == -1 || re.Max > 1)
	if repeat && inRepeat {
		return true
	}
	for _, sub := range re.Sub {
		if repeatsRepeat(sub, inRepeat || repeat) {
			return true
		}
	}
	return false
}
