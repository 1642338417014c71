package domain

import "strings"

// trackingParams are the query parameters that say who sent a reader to
// a page, never which page: a story's link is compared without them, and
// shown without them (utm_* is matched by its prefix).
var trackingParams = map[string]bool{"fbclid": true, "gclid": true, "mc_cid": true, "mc_eid": true}

// referrerParam says who sent the reader too, but is also a word some
// sites use for which page (a branch, a tag): a story's link is compared
// without it, a link is shown with it.
const referrerParam = "ref"

// StoryLink is the form in which entries' links are compared to find one
// story carried by several feeds: the link normalised as a feed URL is
// (NormalizeFeedURL), without its tracking parameters (utm_*, fbclid,
// gclid, mc_cid, mc_eid, ref; the others stay as written, in their
// order). False for a link that is not absolute http(s): such links are
// never one story.
func StoryLink(link string) (string, bool) {
	if link == "" {
		return "", false
	}
	s, err := NormalizeFeedURL(link)
	if err != nil {
		return "", false
	}
	base, query, ok := strings.Cut(s, "?")
	if !ok {
		return s, true
	}
	var kept []string
	for param := range strings.SplitSeq(query, "&") {
		if param == "" || isTrackingParam(param) || paramName(param) == referrerParam {
			continue
		}
		kept = append(kept, param)
	}
	if len(kept) == 0 {
		return base, true
	}
	return base + "?" + strings.Join(kept, "&"), true
}

// isTrackingParam says whether the query parameter "name=value" (or
// "name") is one of trackingParams, its name compared in lower case.
func isTrackingParam(param string) bool {
	name := paramName(param)
	return strings.HasPrefix(name, "utm_") || trackingParams[name]
}

func paramName(param string) string {
	name, _, _ := strings.Cut(param, "=")
	return strings.ToLower(name)
}

// WithoutTracking is link as the feed gives it, less its tracking
// parameters (utm_*, fbclid, gclid, mc_cid, mc_eid): a link a reader is
// shown does not tell the site who sent them. The rest, fragment
// included, stays byte for byte.
func WithoutTracking(link string) string {
	base, rest, ok := strings.Cut(link, "?")
	if !ok {
		return link
	}
	query, fragment, hasFragment := strings.Cut(rest, "#")
	var kept []string
	for param := range strings.SplitSeq(query, "&") {
		if !isTrackingParam(param) {
			kept = append(kept, param)
		}
	}
	out := base
	if len(kept) > 0 && (len(kept) > 1 || kept[0] != "") {
		out += "?" + strings.Join(kept, "&")
	}
	if hasFragment {
		out += "#" + fragment
	}
	return out
}

// Story is one link that entries of several feeds of a digest carry:
// shown once, by the entry of the first of those feeds, and said to be
// also in the others.
type Story struct {
	Shown int   // the entry shown: its index in the entries given
	Also  []int // the entries of the other feeds, in the order given
}

// SameStories finds the stories of a digest's entries, given in the
// order the digest shows them (the user's order of feeds, each feed's
// entries in its order): entries of different feeds whose links are equal
// as StoryLink compares them. The first entry with a link is the story's;
// the later entries of other feeds with that link are Also. Entries of
// the story's own feed with that link are left as they are (a feed's
// entries are told apart by their identity, not here). Only stories with
// entries Also are given, in the order of their Shown.
func SameStories(entries []Entry) []Story {
	first := map[string]int{} // story link -> index of its story in out
	var out []Story
	for i, e := range entries {
		link, ok := StoryLink(e.Link)
		if !ok {
			continue
		}
		s, seen := first[link]
		if !seen {
			first[link] = len(out)
			out = append(out, Story{Shown: i})
			continue
		}
		if entries[out[s].Shown].FeedURL != e.FeedURL {
			out[s].Also = append(out[s].Also, i)
		}
	}
	var stories []Story
	for _, s := range out {
		if len(s.Also) > 0 {
			stories = append(stories, s)
		}
	}
	return stories
}
