package render

import (
	"iter"
	"slices"

	"feeddigest/domain"
)

// MergeStories shows each story of the digest's groups once (see
// domain.SameStories): under the first of its feeds in the order the
// digest shows them, whose entry names the others (FeedGroup.AlsoIn, but
// for a group of the same feed listed twice, FeedGroup.Lands); the
// other feeds' entries leave their groups' Entries (FeedGroup.Elsewhere
// keeps them out of Listed), so the contents, the total and the Subject
// count the story once. A group left with nothing to show goes. Entries
// are told apart by their IDs.
func MergeStories(groups []FeedGroup) []FeedGroup {
	ordered := inFolderOrder(groups)
	var entries []domain.Entry
	var groupOf []int // of each of entries, its group's index in ordered
	for i, g := range ordered {
		for _, e := range g.Entries {
			e.FeedURL = g.FeedURL
			entries = append(entries, e)
			groupOf = append(groupOf, i)
		}
	}
	stories := domain.SameStories(entries)
	if len(stories) == 0 {
		return groups
	}
	alsoIn := map[string]map[int64][]string{} // by feed URL
	elsewhere := map[string]map[int64]bool{}  // by feed URL
	for _, s := range stories {
		shown := ordered[groupOf[s.Shown]]
		var names []string
		for _, i := range s.Also {
			g := ordered[groupOf[i]]
			name := feedName(g.FeedName, g.FeedURL)
			sameFeed := g.Lands != "" && g.Lands == shown.Lands // listed twice: not another feed
			if !sameFeed && !slices.Contains(names, name) {
				names = append(names, name)
			}
			if elsewhere[g.FeedURL] == nil {
				elsewhere[g.FeedURL] = map[int64]bool{}
			}
			elsewhere[g.FeedURL][entries[i].ID] = true
		}
		if len(names) == 0 {
			continue
		}
		if alsoIn[shown.FeedURL] == nil {
			alsoIn[shown.FeedURL] = map[int64][]string{}
		}
		alsoIn[shown.FeedURL][entries[s.Shown].ID] = names
	}
	out := make([]FeedGroup, 0, len(groups))
	for _, g := range groups {
		g.AlsoIn, g.Elsewhere = alsoIn[g.FeedURL], elsewhere[g.FeedURL]
		if g.Elsewhere != nil {
			g.Entries = slices.DeleteFunc(slices.Clone(g.Entries), func(e domain.Entry) bool { return g.Elsewhere[e.ID] })
			if len(g.Entries) == 0 && g.More <= 0 && g.Unread == 0 {
				continue
			}
		}
		out = append(out, g)
	}
	return out
}

// Shown yields the entries of the feed's Listed that its section shows:
// not those shown under another feed (Elsewhere).
func (g FeedGroup) Shown() iter.Seq2[domain.Entry, error] {
	return func(yield func(domain.Entry, error) bool) {
		for e, err := range g.Listed {
			if err == nil && g.Elsewhere[e.ID] {
				continue
			}
			if !yield(e, err) {
				return
			}
		}
	}
}
