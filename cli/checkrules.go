package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/internal/english"
	"feeddigest/pipeline"
	"feeddigest/rules"
	"feeddigest/store"
)

// RuleWindow is how far back check tries rules on stored entries.
const RuleWindow = 30 * 24 * time.Hour

// ruleTitles is how many titles of what a rule leaves out check names.
const ruleTitles = 3

// writeRuleReport says, for each rule of each user and of each of their
// feeds, how many of the stored entries of the last 30 days it would
// leave out, naming a few: a reader tries a rule before the next digest.
// The state is opened read only; before the first run there is none.
func writeRuleReport(ctx context.Context, w io.Writer, cfg *config.Config, now time.Time) {
	if !hasRules(cfg) {
		return
	}
	fmt.Fprintf(w, "Rules, tried on the entries stored in the last %d days:\n", int(RuleWindow.Hours()/24))
	if !pipeline.HasState(ctx, cfg) {
		fmt.Fprintf(w, "  no state yet: after the first run, check shows what each rule would leave out\n\n")
		return
	}
	st, err := pipeline.OpenReader(ctx, cfg)
	if err == nil {
		defer st.Close()
		for _, u := range cfg.Users {
			if err = writeUserRules(ctx, w, st, u, now.Add(-RuleWindow)); err != nil {
				break
			}
		}
	}
	if err != nil {
		// The rules are valid; only trying them failed, which the feeds'
		// checks below do not depend on.
		fmt.Fprintf(w, "  could not read the state to try them: %s\n", ingest.OneLine(err.Error()))
	}
	fmt.Fprintln(w)
}

func hasRules(cfg *config.Config) bool {
	for _, u := range cfg.Users {
		if !u.Rules.Empty() {
			return true
		}
		for _, f := range u.Feeds {
			if !f.Rules.Empty() {
				return true
			}
		}
	}
	return false
}

// writeUserRules reports the rules of one user and of their feeds.
func writeUserRules(ctx context.Context, w io.Writer, st store.Reader, u config.User, since time.Time) error {
	if u.Rules.Empty() && !feedsHaveRules(u) {
		return nil
	}
	entries, err := st.RecentEntries(ctx, u.FeedURLs(), since)
	if err != nil {
		return err
	}
	subjects := make([]ruleSubject, len(entries))
	for i, e := range entries {
		subjects[i] = ruleSubject{e, rules.SubjectOf(e)}
	}
	if !u.Rules.Empty() {
		fmt.Fprintf(w, "  %s (%s of all their feeds)\n", u.Name, english.Count(len(entries), "entry"))
		writeSet(w, u.Rules, subjects)
	}
	for _, f := range u.Feeds {
		if f.Rules.Empty() {
			continue
		}
		var ofFeed []ruleSubject
		for _, s := range subjects {
			if s.entry.FeedURL == f.URL {
				ofFeed = append(ofFeed, s)
			}
		}
		fmt.Fprintf(w, "  %s, feed %s (%s)\n", u.Name, ingest.OneLine(f.URL), english.Count(len(ofFeed), "entry"))
		writeSet(w, *f.Rules, ofFeed)
	}
	return nil
}

func feedsHaveRules(u config.User) bool {
	for _, f := range u.Feeds {
		if !f.Rules.Empty() {
			return true
		}
	}
	return false
}

type ruleSubject struct {
	entry   domain.Entry
	subject rules.Subject
}

// writeSet prints a line for each mute rule, and one for the keep rules
// together (an entry is kept when it matches any of them).
func writeSet(w io.Writer, set rules.Set, subjects []ruleSubject) {
	for _, r := range set.Mute {
		left := leftOutBy(subjects, func(s rules.Subject) bool { return r.Match(s) })
		writeRuleLine(w, "mute "+quoteRule(r), left)
		writeLinearNote(w, r)
	}
	if len(set.Keep) > 0 {
		var written []string
		for _, r := range set.Keep {
			written = append(written, quoteRule(r))
		}
		keep := rules.Set{Keep: set.Keep}
		left := leftOutBy(subjects, keep.LeavesOut)
		writeRuleLine(w, "keep "+strings.Join(written, ", "), left)
		for _, r := range set.Keep {
			writeLinearNote(w, r)
		}
	}
}

// writeLinearNote reassures about a rule that repeats a repeat ((a+)+$),
// which would be slow with a backtracking engine, never with RE2.
func writeLinearNote(w io.Writer, r rules.Rule) {
	if r.NestedRepeat() {
		fmt.Fprintf(w, "      %s repeats a repeat: safe, RE2 takes time linear in the text whatever the pattern\n", quoteRule(r))
	}
}

func quoteRule(r rules.Rule) string {
	if len(r.Written) > 60 {
		return fmt.Sprintf("%q...", r.Written[:57])
	}
	return fmt.Sprintf("%q", r.Written)
}

func leftOutBy(subjects []ruleSubject, out func(rules.Subject) bool) []domain.Entry {
	var left []domain.Entry
	for _, s := range subjects {
		if out(s.subject) {
			left = append(left, s.entry)
		}
	}
	return left
}

// writeRuleLine prints what a rule leaves out: how many, and the newest
// few different titles, each once (with how many times, when several
// entries share it: one story in several feeds, a recurring post).
func writeRuleLine(w io.Writer, rule string, left []domain.Entry) {
	fmt.Fprintf(w, "    %s: would leave out %d", rule, len(left))
	var order []string
	times := map[string]int{}
	for _, e := range left {
		title := ruleTitle(e)
		if times[title] == 0 {
			order = append(order, title)
		}
		times[title]++
	}
	var titles []string
	for _, title := range order[:min(len(order), ruleTitles)] {
		shown := fmt.Sprintf("%q", title)
		if n := times[title]; n > 1 {
			shown += fmt.Sprintf(" (%d times)", n)
		}
		titles = append(titles, shown)
	}
	if len(titles) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(titles, ", "))
		if len(order) > len(titles) {
			fmt.Fprint(w, ", ...")
		}
	}
	fmt.Fprintln(w)
}

// ruleTitle is an entry's title on one line of check's output.
func ruleTitle(e domain.Entry) string {
	title := ingest.OneLine(e.Title)
	if title == "" {
		title = "(untitled) " + ingest.OneLine(e.Link)
	}
	if len(title) > 70 {
		title = strings.ToValidUTF8(title[:67], "") + "..."
	}
	return title
}
