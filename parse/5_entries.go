package parse

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"

	"github.com/mmcdole/gofeed"
	"golang.org/x/text/language"

	"feeddigest/domain"
	"feeddigest/internal/redact"
)

// MaxEntries is how many entries of one body are kept, the newest.
const MaxEntries = 1_000

// languageTag is s as a canonical BCP 47 tag, or "" when s is none: the
// pages put it in a lang attribute as it is.
func languageTag(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 35 {
		return ""
	}
	tag, err := language.Parse(s)
	if err != nil || tag == language.Und {
		return ""
	}
	return tag.String()
}

// convert reduces gofeed's feed to a Feed, its links resolved against
// base.
func convert(f *gofeed.Feed, base *url.URL) *Feed {
	// Links resolved against the feed's URL are shown to readers: never
	// with the feed URL's credentials.
	baseURL := redact.Base(base)
	out := &Feed{Title: strings.TrimSpace(f.Title), SiteURL: resolve(baseURL, f.Link), Language: languageTag(f.Language)}
	siteBase := baseURL
	if u := domain.AbsoluteHTTP(out.SiteURL); u != nil {
		siteBase = u
	}
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		e := domain.Entry{
			Title:   strings.TrimSpace(it.Title),
			Link:    resolve(siteBase, entryLink(it)),
			Content: it.Content,
			Summary: it.Description,
		}
		if e.Content == "" {
			e.Content, e.Summary = it.Description, ""
		}
		e.Enclosures = enclosures(it, e.Link, siteBase)
		if len(it.Authors) > 0 && it.Authors[0] != nil {
			e.Author = strings.TrimSpace(it.Authors[0].Name)
		}
		switch {
		case it.PublishedParsed != nil:
			e.Published = it.PublishedParsed.UTC()
		case it.UpdatedParsed != nil:
			e.Published = it.UpdatedParsed.UTC()
		}
		e.Categories = categories(it.Categories)
		e.Key = EntryKey(strings.TrimSpace(it.GUID), e.Link, e.Title, e.Content)
		out.Entries = append(out.Entries, e)
	}
	out.Entries = keepNewest(out.Entries, MaxEntries)
	return out
}

// Bounds of an entry's categories: rules match them, a feed may stuff
// them.
const (
	MaxCategories   = 20
	MaxCategoryText = 100 // bytes, cut at a character boundary
)

// categories are an item's categories, trimmed, each once, bounded in
// number and length; nil when none.
func categories(in []string) []string {
	var out []string
	for _, c := range in {
		c = strings.Join(strings.Fields(c), " ")
		if len(c) > MaxCategoryText {
			c = strings.ToValidUTF8(c[:MaxCategoryText], "")
		}
		if c == "" || slices.Contains(out, c) {
			continue
		}
		if out = append(out, c); len(out) == MaxCategories {
			break
		}
	}
	return out
}

func entryLink(it *gofeed.Item) string {
	if it.Link != "" {
		return strings.TrimSpace(it.Link)
	}
	for _, l := range it.Links {
		if l != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// EntryKey is an entry's identity: its id/guid, else its link, else a
// hash of its title and content.
func EntryKey(guid, link, title, content string) string {
	switch {
	case guid != "":
		return "id:" + guid
	case link != "":
		return "link:" + link
	}
	sum := sha256.Sum256([]byte(title + "\x00" + content))
	return "hash:" + hex.EncodeToString(sum[:16])
}

// resolve is ref made absolute against base, or ref as it is when it
// cannot be (no base, unparseable). Whether the result is a link to show
// is decided later: render keeps only http(s) and mailto links.
func resolve(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || base == nil {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(u).String()
}

// keepNewest keeps the n newest entries, in their order; entries without
// a date count as older than dated ones, and among themselves the first
// in the body are kept.
func keepNewest(entries []domain.Entry, n int) []domain.Entry {
	if len(entries) <= n {
		return entries
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ta, tb := entries[a].Published, entries[b].Published
		switch {
		case ta.IsZero() != tb.IsZero():
			if ta.IsZero() {
				return 1
			}
			return -1
		}
		return tb.Compare(ta)
	})
	keep := order[:n]
	slices.Sort(keep)
	out := make([]domain.Entry, 0, n)
	for _, i := range keep {
		out = append(out, entries[i])
	}
	return out
}
