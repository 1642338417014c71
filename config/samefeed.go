package config

import (
	"fmt"
	"sync"

	"feeddigest/domain"
	"feeddigest/internal/redact"
)

// source is the document a Config was read from, kept for the warnings
// that name its lines after Load (SameFeeds). It is scanned for lines
// only when a message needs one: a config of thousands of users that is
// fine is never scanned, and several workers load it every hour.
type source struct {
	name, text string
	once       sync.Once
	loc        *locator
	// users are, by name, how each user's Feeds were written.
	users map[string]writtenUser
}

// writtenUser is where a user is in the document, how messages name
// them, and how each of their Feeds was written.
type writtenUser struct {
	base, who string // "users[0]", `users[0] "ada"`
	feeds     []writtenFeed
}

// writtenFeed is one of a user's Feeds as written: its index in the
// user's feeds array and its URL as it stands there.
type writtenFeed struct {
	item int
	raw  string
}

// locator scans the document for its keys' places, once.
func (s *source) locator() *locator {
	s.once.Do(func() { s.loc = locate(s.text) })
	return s.loc
}

// message is a problem at the indexed key path at, named by the file
// and, where known, the line; and the line (0: unknown).
func (s *source) message(at, format string, args ...any) (string, int) {
	msg := s.name + ": " + domain.OneLine(fmt.Sprintf(format, args...))
	line := s.locator().line(at)
	if line > 0 {
		msg += fmt.Sprintf(" (line %d)", line)
	}
	return msg, line
}

// sameFeed is the warning for a user's feed (who names the user) that is
// one feed with an earlier one of theirs, first; how says why (written
// another way, or leading to it when polled). One wording for both, so
// that the reader learns it once.
func sameFeed(who string, repeat writtenFeed, how string, first writtenFeed) string {
	// A feed URL may carry a login or a token: shown as people see URLs.
	return fmt.Sprintf("%s: feeds[%d] (%s) %s feeds[%d] (%s): it is read once; you may remove one",
		who, repeat.item, redact.URL(repeat.raw), how, first.item, redact.URL(first.raw))
}

// SameFeeds are the warnings, worded and placed as Load's for a feed
// written twice, for each feed of a user that leads, when polled, to the
// same feed as an earlier one of theirs: lands says where a feed URL's
// polls land now (a permanent redirect followed, the feed a web page
// names; see domain.Feed.Lands), "" when it is not known. Such feeds are
// polled once and shown once, under the first line, but the user may
// remove one.
func (c *Config) SameFeeds(lands func(url string) string) []string {
	var out []string
	for _, u := range c.Users {
		first := make(map[string]int, len(u.Feeds)) // where a feed lands -> the first of Feeds to land there
		for i, s := range u.Feeds {
			at := lands(s.URL)
			if at == "" {
				at = s.URL
			}
			k, seen := first[at]
			if !seen {
				first[at] = i
				continue
			}
			out = append(out, c.leadsToSameFeed(u, i, k))
		}
	}
	return out
}

// leadsToSameFeed is the warning that u's Feeds[i] leads to the same feed
// as their Feeds[k].
func (c *Config) leadsToSameFeed(u User, i, k int) string {
	const how = "now leads to the same feed as"
	w, ok := c.source.user(u.Name)
	if !ok || len(w.feeds) != len(u.Feeds) { // a Config made in code
		msg := sameFeed(fmt.Sprintf("user %q", u.Name), writtenFeed{item: i, raw: u.Feeds[i].URL}, how,
			writtenFeed{item: k, raw: u.Feeds[k].URL})
		return domain.OneLine(msg)
	}
	repeat := w.feeds[i]
	msg, _ := c.source.message(fmt.Sprintf("%s.feeds[%d]", w.base, repeat.item), "%s", sameFeed(w.who, repeat, how, w.feeds[k]))
	return msg
}

// user is how the document wrote the user named name; false without a
// document.
func (s *source) user(name string) (writtenUser, bool) {
	if s == nil {
		return writtenUser{}, false
	}
	w, ok := s.users[name]
	return w, ok
}
