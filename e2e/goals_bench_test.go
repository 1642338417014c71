package e2e

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// goal is one of issue 26's targets as a benchmark measured it: the
// figure beside the goal it is held to, at most or at least.
type goal struct {
	name    string
	figure  float64
	limit   float64
	unit    string
	atLeast bool   // the figure should reach the limit, not stay under it
	detail  string // what the figure is made of: the runs, say
}

// ratio is the figure over its limit: at most 1 for a goal met when the
// figure is a ceiling, at least 1 when it is a floor to reach.
func (g goal) ratio() float64 { return g.figure / g.limit }

func (g goal) met() bool {
	if g.atLeast {
		return g.ratio() >= 1
	}
	return g.ratio() <= 1
}

// printGoals writes the goals as a table, to stdout in the benchmarks: a
// benchmark's log is cut after a few lines.
func printGoals(w io.Writer, title string, goals []goal) {
	fmt.Fprintf(w, "%s:\n", title)
	fmt.Fprintf(w, "  %-52s %12s %14s %7s  %-7s  %s\n", "target", "figure", "goal", "ratio", "", "")
	for _, g := range goals {
		sign := "<="
		if g.atLeast {
			sign = ">="
		}
		verdict := "met"
		if !g.met() {
			verdict = "NOT MET"
		}
		fmt.Fprintf(w, "  %-52s %12s %14s %6.2fx  %-7s  %s\n", g.name, formatFigure(g.figure, g.unit),
			sign+" "+formatFigure(g.limit, g.unit), g.ratio(), verdict, g.detail)
	}
}

func formatFigure(v float64, unit string) string {
	s := fmt.Sprintf("%.3g", v)
	if v >= 1000 {
		s = fmt.Sprintf("%.0f", v)
	}
	return strings.TrimSpace(s + " " + unit)
}

// TestGoalVerdicts: a ceiling is met at or under its limit, a floor at
// or over it, and the table says which and by what ratio.
func TestGoalVerdicts(t *testing.T) {
	for _, tc := range []struct {
		g    goal
		met  bool
		line string
	}{
		{goal{name: "cpu", figure: 2, limit: 2.5, unit: "x"}, true, "cpu   2 x   <= 2.5 x   0.80x met"},
		{goal{name: "cpu", figure: 5, limit: 2.5, unit: "x"}, false, "cpu   5 x   <= 2.5 x   2.00x NOT MET"},
		{goal{name: "rate", figure: 3.3, limit: 3, unit: "x", atLeast: true}, true, "rate   3.3 x   >= 3 x   1.10x met"},
		{goal{name: "rate", figure: 1.5, limit: 1.8, unit: "x", atLeast: true, detail: "runs 1.5"}, false,
			"rate   1.5 x   >= 1.8 x   0.83x NOT MET runs 1.5"},
	} {
		if tc.g.met() != tc.met {
			t.Errorf("%+v: met %v, want %v", tc.g, tc.g.met(), tc.met)
		}
		var out strings.Builder
		printGoals(&out, "t", []goal{tc.g})
		got := strings.Join(strings.Fields(strings.Split(out.String(), "\n")[2]), " ")
		if want := strings.Join(strings.Fields(tc.line), " "); got != want {
			t.Errorf("table line %q, want %q", got, want)
		}
	}
}
