package locale

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// A catalogue is checked against the English one, message by message:
// what a reader would otherwise see as a key, an English sentence in the
// middle of their language, or a placeholder left unfilled. The
// catalogue test runs check on every catalogue; load drops a message
// whose placeholders are wrong, so that the page shows the English one
// rather than a broken sentence.

// finding is one thing wrong with a catalogue.
type finding struct {
	file, id, what string
}

func (f finding) Error() string {
	if f.id == "" {
		return f.file + ": " + f.what
	}
	return f.file + ": " + f.id + ": " + f.what
}

// check lists what is wrong with c, against en (the English catalogue;
// c may be en itself). forms are the plural forms c's language uses
// for whole numbers.
func check(c, en *catalogue, forms []string) []finding {
	var out []finding
	add := func(id, format string, args ...any) {
		out = append(out, finding{file: c.file, id: id, what: fmt.Sprintf(format, args...)})
	}
	for _, id := range slices.Sorted(maps.Keys(en.messages)) {
		want := en.messages[id]
		got, ok := c.messages[id]
		if !ok {
			add(id, "missing")
			continue
		}
		if strings.HasPrefix(id, datePrefix) {
			if _, err := parsePattern(got["other"]); err != nil {
				add(id, "%v", err)
			}
		} else {
			out = append(out, checkPlaceholders(c, id, got, want)...)
		}
		out = append(out, checkForms(c, id, got, want, forms)...)
		if c != en && identical(got, want) && !slices.Contains(c.same, id) {
			add(id, "reads as the English %q: translate it, or list it in [language] same if it reads so on purpose", want["other"])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.messages)) {
		if _, ok := en.messages[id]; !ok {
			add(id, "not in the English catalogue")
		}
	}
	for _, id := range c.same {
		if got, ok := c.messages[id]; !ok || !identical(got, en.messages[id]) {
			add(id, "listed in [language] same, but it differs from the English")
		}
	}
	return out
}

// checkPlaceholders finds a text that does not parse, or whose
// placeholders are not the English message's: one the English lacks
// would be left empty, one the English has and it lacks is a fact left
// out.
func checkPlaceholders(c *catalogue, id string, got, want map[string]string) []finding {
	var out []finding
	wantNames, _ := placeholders(want)
	gotNames, err := placeholders(got)
	if err != nil {
		return []finding{{file: c.file, id: id, what: err.Error()}}
	}
	for _, n := range gotNames {
		if !slices.Contains(wantNames, n) {
			out = append(out, finding{file: c.file, id: id, what: fmt.Sprintf("has the placeholder {{.%s}}, which the English lacks (it has %s)", n, braced(wantNames))})
		}
	}
	for _, n := range wantNames {
		if !slices.Contains(gotNames, n) {
			out = append(out, finding{file: c.file, id: id, what: fmt.Sprintf("lacks the placeholder {{.%s}} of the English", n)})
		}
	}
	return out
}

func braced(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	var b []string
	for _, n := range names {
		b = append(b, "{{."+n+"}}")
	}
	return strings.Join(b, " ")
}

// checkForms finds plural forms missing or never used: a message of the
// English with plurals needs every form the language uses; one without
// needs only other.
func checkForms(c *catalogue, id string, got, want map[string]string, forms []string) []finding {
	var out []finding
	need := []string{"other"}
	if len(want) > 1 {
		need = forms
	}
	for _, f := range need {
		if _, ok := got[f]; !ok {
			out = append(out, finding{file: c.file, id: id, what: fmt.Sprintf("lacks the plural form %q (%s needs %s)", f, c.tag, strings.Join(need, ", "))})
		}
	}
	for _, f := range slices.Sorted(maps.Keys(got)) {
		if !slices.Contains(need, f) {
			out = append(out, finding{file: c.file, id: id, what: fmt.Sprintf("has the plural form %q, which %s does not use here (it needs %s)", f, c.tag, strings.Join(need, ", "))})
		}
	}
	return out
}

// identical says whether a translation reads as the English: every form
// it has is the English form of that name, else the English other.
func identical(got, want map[string]string) bool {
	for form, text := range got {
		w, ok := want[form]
		if !ok {
			w = want["other"]
		}
		if text != w {
			return false
		}
	}
	return true
}

// placeholders are the names of the fields a message's forms use
// ({{.Count}} is "Count"), sorted; an error for a form that does not
// parse.
func placeholders(forms map[string]string) ([]string, error) {
	seen := map[string]bool{}
	for _, form := range slices.Sorted(maps.Keys(forms)) {
		t, err := template.New("").Option("missingkey=error").Parse(forms[form])
		if err != nil {
			return nil, fmt.Errorf("form %s does not parse: %v", form, err)
		}
		if t.Tree == nil {
			continue
		}
		if err := fields(t.Tree.Root, seen); err != nil {
			return nil, fmt.Errorf("form %s: %v", form, err)
		}
	}
	out := slices.Collect(maps.Keys(seen))
	sort.Strings(out)
	return out, nil
}

// fields gathers the fields a template's tree uses; a message may use
// nothing else (no functions, conditions or loops: a plural form does
// their work).
func fields(n parse.Node, seen map[string]bool) error {
	switch n := n.(type) {
	case *parse.ListNode:
		for _, c := range n.Nodes {
			if err := fields(c, seen); err != nil {
				return err
			}
		}
	case *parse.TextNode:
	case *parse.ActionNode:
		if len(n.Pipe.Cmds) != 1 || len(n.Pipe.Decl) != 0 || len(n.Pipe.Cmds[0].Args) != 1 {
			return fmt.Errorf("%s is not a placeholder such as {{.Count}}", n)
		}
		f, ok := n.Pipe.Cmds[0].Args[0].(*parse.FieldNode)
		if !ok || len(f.Ident) != 1 {
			return fmt.Errorf("%s is not a placeholder such as {{.Count}}", n)
		}
		seen[f.Ident[0]] = true
	default:
		return fmt.Errorf("%s is not a placeholder such as {{.Count}}", n)
	}
	return nil
}

// pluralFormsOf are the plural forms the language of tag uses for whole
// numbers, as go-i18n's CLDR rules choose them (found by asking its
// bundle for a message whose every form is its own name), and other.
func pluralFormsOf(tag language.Tag) []string {
	b := i18n.NewBundle(tag)
	probe := &i18n.Message{ID: "probe", Zero: "zero", One: "one", Two: "two", Few: "few", Many: "many", Other: "other"}
	b.MustAddMessages(tag, probe)
	l := i18n.NewLocalizer(b, tag.String())
	seen := map[string]bool{}
	counts := []int{}
	for n := range 1200 {
		counts = append(counts, n)
	}
	counts = append(counts, 100000, 1000000, 2000000, 1000001)
	for _, n := range counts {
		form, err := l.Localize(&i18n.LocalizeConfig{MessageID: "probe", PluralCount: n})
		if err == nil {
			seen[form] = true
		}
	}
	seen["other"] = true // every language has it (Polish and Russian for fractions): the form a missing one falls back to
	var out []string
	for _, f := range pluralForms {
		if seen[f] {
			out = append(out, f)
		}
	}
	return out
}
