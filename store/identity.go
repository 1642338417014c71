package store

import (
	"cmp"
	"slices"
	"time"

	"feeddigest/domain"
)

// StoredEntry is what a back end finds stored of a feed's entries that
// share a key or a link with a body being saved (see PlanSave), in the
// order they were stored.
type StoredEntry struct {
	Key, Link, Title string
}

// PlanSave decides how a poll's body of a feed is saved, given the
// feed's stored entries that share a key or a link with it. It returns
// the body with each entry under the key it is stored by, and which of
// them are new entries to be stored without their texts.
//
// An entry is the same entry again when its key is stored. An entry with
// a new key whose link is that of a stored entry of the feed is that
// entry again (a site rebuilt with a new guid for every post), when the
// feed's links each belong to one entry: not when several entries of the
// body share the link, nor several stored entries (a feed whose entries
// all link to its home page), unless those are copies of one post (the
// same title) that a rebuild left before this rule, which are one entry
// (the first stored). It keeps its key, so its first-seen time, and is
// not shown again.
//
// Of the new entries, the withTexts newest (as digests order them:
// by date, else now, then in the body's order) keep their texts; the
// others, which no digest can show (it shows at most withTexts of a feed,
// the newest), are stored without them: key, link, title and dates only.
// withTexts <= 0 keeps every text.
func PlanSave(body []domain.Entry, stored []StoredEntry, now time.Time, withTexts int) (entries []domain.Entry, bare []bool) {
	body = withoutCopies(body)
	storedKeys := make(map[string]bool, len(stored))
	byLink := map[string][]StoredEntry{}
	for _, s := range stored {
		storedKeys[s.Key] = true
		if s.Link != "" {
			byLink[s.Link] = append(byLink[s.Link], s)
		}
	}
	bodyKeys := make(map[string]bool, len(body))
	linkKeys := map[string]map[string]bool{} // the body's keys with each link
	for _, e := range body {
		bodyKeys[e.Key] = true
		if e.Link != "" {
			if linkKeys[e.Link] == nil {
				linkKeys[e.Link] = map[string]bool{}
			}
			linkKeys[e.Link][e.Key] = true
		}
	}
	entries = slices.Clone(body)
	var news []int
	for i, e := range entries {
		if storedKeys[e.Key] {
			continue
		}
		if k, ok := sameLink(e, byLink[e.Link], len(linkKeys[e.Link])); ok && !bodyKeys[k] {
			entries[i].Key = k
			continue
		}
		news = append(news, i)
	}
	bare = make([]bool, len(entries))
	if withTexts <= 0 || len(news) <= withTexts {
		return entries, bare
	}
	// In whole seconds, as the back ends keep and order them.
	date := func(i int) int64 {
		if p := entries[i].Published; !p.IsZero() {
			return p.Unix()
		}
		return now.Unix()
	}
	ranked := slices.Clone(news)
	slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(date(b), date(a)) })
	for _, i := range ranked[withTexts:] {
		bare[i] = true
		entries[i].Content, entries[i].Summary, entries[i].Fragments = "", "", domain.Fragments{}
	}
	return entries, bare
}

// KeysAndLinks are what a back end looks the stored entries up by that
// entries may be (see PlanSave): their keys, and their links (none for
// an entry without one).
func KeysAndLinks(entries []domain.Entry) (keys, links []string) {
	keys = make([]string, 0, len(entries))
	links = make([]string, 0, len(entries))
	for _, e := range entries {
		keys = append(keys, e.Key)
		if e.Link != "" {
			links = append(links, e.Link)
		}
	}
	return keys, links
}

// sameLink says which stored entry e, whose key is new, is again: the one
// entry stored with its link, if the body has no other entry with it
// (bodyWithLink counts those that have it, e included).
func sameLink(e domain.Entry, withLink []StoredEntry, bodyWithLink int) (string, bool) {
	if e.Link == "" || bodyWithLink != 1 || len(withLink) == 0 {
		return "", false
	}
	first := withLink[0]
	if len(withLink) > 1 {
		// Copies of one post, the same title, left by rebuilds before
		// this rule; else several entries share the link.
		for _, s := range withLink {
			if s.Title == "" || s.Title != e.Title {
				return "", false
			}
		}
	}
	return first.Key, true
}

// BareKept is how long an entry stored without texts (PlanSave) is kept
// at least, once every subscriber was given it, no digest waits for it
// and its feed no longer lists it: a stale copy of the feed served again
// within that time (a cache) brings nothing back as new. After it, the
// entry is forgotten, so that a feed bringing thousands of new entries
// at every poll cannot grow the state without bound.
const BareKept = 24 * time.Hour

// Pending is an entry of a feed stored with its texts that no digest
// has yet (see TextsUnneeded): its ID, its date as digests order entries
// (published, else first seen; Unix seconds) and its first-seen time.
type Pending struct {
	ID              int64
	Date, FirstSeen int64
}

// TextsUnneeded says which of a feed's pending entries no digest can
// show, so that they need no texts: a user's next digest lists at most
// withTexts of the feed's entries first seen since the user's previous
// digest (since, Unix seconds, one per subscriber), the newest; an entry
// that is not among them now never will be, as entries only come after
// it. A poll keeps the texts of the withTexts newest of its new entries
// (PlanSave); polled hourly, a busy feed would otherwise keep those of
// every poll until its texts are dropped with age.
func TextsUnneeded(pending []Pending, since []int64, withTexts int) []int64 {
	if withTexts <= 0 || len(since) == 0 {
		return nil
	}
	ranked := slices.Clone(pending)
	slices.SortFunc(ranked, func(a, b Pending) int {
		if c := cmp.Compare(b.Date, a.Date); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	keep := map[int64]bool{}
	for _, s := range since {
		n := 0
		for _, p := range ranked {
			if p.FirstSeen >= s && n < withTexts {
				keep[p.ID] = true
				n++
			}
		}
	}
	var out []int64
	for _, p := range pending {
		if !keep[p.ID] {
			out = append(out, p.ID)
		}
	}
	return out
}

// withoutCopies is body without the repeats of an entry: the same key,
// or the same link, title and texts (a post listed twice, under the
// guids of two builds).
func withoutCopies(body []domain.Entry) []domain.Entry {
	out := make([]domain.Entry, 0, len(body))
	seen := make(map[string]bool, len(body))
	for _, e := range body {
		post := ""
		if e.Link != "" && e.Title != "" {
			post = "\x00" + e.Link + "\x00" + e.Title + "\x00" + e.Content + "\x00" + e.Summary
		}
		if seen[e.Key] || (post != "" && seen[post]) {
			continue
		}
		seen[e.Key] = true
		if post != "" {
			seen[post] = true
		}
		out = append(out, e)
	}
	return out
}

// URLChange is a user's subscription stored under a feed URL that the
// configuration now writes normalised (domain.NormalizeFeedURL).
type URLChange struct{ User, From, To string }

// Renormalised finds, among the subscriptions stored (user -> URLs) that
// the configuration (want, its URLs normalised) no longer names, those
// it names normalised: a state written before feed URLs were normalised.
// SyncSubscriptions moves them to the normalised URL (renaming the feed
// record when there is none under it yet), so that nothing is shown
// again as new and the feed is not read afresh.
func Renormalised(stored, want map[string][]string) []URLChange {
	var out []URLChange
	for user, urls := range stored {
		wanted := map[string]bool{}
		for _, u := range want[user] {
			wanted[u] = true
		}
		for _, from := range urls {
			if wanted[from] {
				continue
			}
			if to, err := domain.NormalizeFeedURL(from); err == nil && to != from && wanted[to] {
				out = append(out, URLChange{User: user, From: from, To: to})
			}
		}
	}
	slices.SortFunc(out, func(a, b URLChange) int {
		return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.From, b.From))
	})
	return out
}
