package config

import (
	"fmt"

	"feeddigest/rules"
)

// rules reads the keys mute and keep of a user or a feed's table (at);
// who names it in messages. A rule that does not compile is an error
// naming the rule and its line; one that matches any text is a warning.
func (p *parser) rules(at, who string, mute, keep any) rules.Set {
	return rules.Set{Mute: p.ruleList(at+".mute", who, "mute", mute), Keep: p.ruleList(at+".keep", who, "keep", keep)}
}

func (p *parser) ruleList(at, who, key string, raw any) []rules.Rule {
	if raw == nil {
		return nil
	}
	items, ok := raw.([]any)
	if !ok {
		p.errorf(at, "%s: %s: want an array of rules such as [\"title:sponsored\"], got %s", who, key, tomlType(raw))
		return nil
	}
	var out []rules.Rule
	for i, item := range items {
		here := fmt.Sprintf("%s[%d]", at, i)
		written, ok := item.(string)
		if !ok {
			p.errorf(here, "%s: %s[%d]: want a string such as \"title:sponsored\", got %s", who, key, i, tomlType(item))
			continue
		}
		r, err := rules.Parse(written)
		if err != nil {
			p.errorf(here, "%s: %s rule %s: %v", who, key, shownRule(written), err)
			continue
		}
		if r.MatchesEverything() {
			p.warnf(here, "%s: %s rule %s matches any text: it %s every entry", who, key, shownRule(written), map[string]string{"mute": "leaves out", "keep": "keeps"}[key])
		}
		out = append(out, r)
	}
	return out
}

// shownRule quotes a rule for a message, cut short when it is long.
func shownRule(written string) string {
	if len(written) > 60 {
		return fmt.Sprintf("%q... (%d characters)", written[:50], len(written))
	}
	return fmt.Sprintf("%q", written)
}
