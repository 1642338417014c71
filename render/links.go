package render

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"feeddigest/domain"
	"feeddigest/ingest"
)

// "Links mentioned" ends a digest with the outside sites its entries link
// to, most linked first: each line links the site's most linked address
// (not its home page, which says nothing of what was linked) and names the
// entries that link to the site, so a site several posts point at is
// found again without rereading them. It stays a short coda, one line a
// site naming one entry, and at most maxLinkHosts sites: a busy day's page
// weighs what it adds (see TestDigestPageWeight).
const (
	maxLinkHosts = 10
	// maxLinkLabel is the most characters of an address shown as its
	// link's text; the link itself is whole.
	maxLinkLabel = 60
)

// HostCount is one line of a digest's "Links mentioned" (the Artemis link
// graph): an outside site, how many links to it the entries carry, its
// most linked address and the entries that link to it.
type HostCount struct {
	Host  string // lower case, without a leading "www."
	Count int    // distinct links to Host, counted once per entry
	// URL is the site's address the most entries link to (the first
	// found among equals), Label its text: the URL without its scheme,
	// shortened.
	URL, Label string
	// First is the display title of the first entry that links to the
	// site, Others counts the other entries that do.
	First  string
	Others int
}

// AndOthers counts the other entries that link to the site after the
// first: " and 4 more", or "".
func (h HostCount) AndOthers() string {
	if h.Others == 0 {
		return ""
	}
	return " and " + strconv.Itoa(h.Others) + " more"
}

// linkSource is the links in one entry's sanitised content, the URLs
// whose hosts count as its own, and its title, which names it in the list.
type linkSource struct {
	title string
	links []string
	own   []string
}

// siteLinks gathers one site's links: how many entries link each address,
// and the addresses in the order they were first found.
type siteLinks struct {
	HostCount
	linked map[string]int
	order  []string
}

// linkGraph gathers outside sites over all sources; a URL repeated within
// one entry counts once, so one link-heavy post does not fill the list.
func linkGraph(items []linkSource) []HostCount {
	sites := map[string]*siteLinks{}
	for _, it := range items {
		own := map[string]bool{}
		for _, o := range it.own {
			own[hostOf(o)] = true
		}
		seen := map[string]bool{}
		named := map[string]bool{} // the sites this entry counts for
		for _, u := range it.links {
			h := hostOf(u)
			if h == "" || own[h] || seen[u] {
				continue
			}
			seen[u] = true
			s := sites[h]
			if s == nil {
				s = &siteLinks{HostCount: HostCount{Host: h}, linked: map[string]int{}}
				sites[h] = s
			}
			s.Count++
			if s.linked[u] == 0 {
				s.order = append(s.order, u)
			}
			s.linked[u]++
			if !named[h] {
				named[h] = true
				if s.First == "" {
					s.First = it.title
				} else {
					s.Others++
				}
			}
		}
	}
	return topHosts(sites)
}

// topHosts sorts by count, then host name so the order is stable, and
// gives each site its most linked address.
func topHosts(sites map[string]*siteLinks) []HostCount {
	out := make([]HostCount, 0, len(sites))
	for _, s := range sites {
		for _, u := range s.order {
			if s.linked[u] > s.linked[s.URL] {
				s.URL = u
			}
		}
		s.Label = linkLabel(s.URL)
		out = append(out, s.HostCount)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Host < out[j].Host
	})
	return out[:min(len(out), maxLinkHosts)]
}

// linkLabel is the text of a link to u: its address without the scheme
// or a closing "/", its escapes read as a browser's address bar shows them
// ("/wiki/نعناع", not "/wiki/%D9%86...") unless that would show invisible
// or direction-changing characters (which are dropped when the address
// holds them unescaped), cut to maxLinkLabel characters.
func linkLabel(u string) string {
	label := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "/")
	if read, err := url.PathUnescape(label); err == nil && utf8.ValidString(read) && !strings.ContainsFunc(read, hidden) {
		label = read
	}
	label = strings.Map(func(r rune) rune {
		if hidden(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(label, "\uFFFD"))
	if r := []rune(label); len(r) > maxLinkLabel {
		label = string(r[:maxLinkLabel-1]) + ingest.Ellipsis
	}
	return label
}

// hidden says whether r would not show as itself in a link's text: a
// control, or a format character (zero-width, bidi override).
func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// hostOf is the comparable host of an http(s) URL: lower case, no port,
// no "www." (www.example.org and example.org are one site to a reader).
func hostOf(s string) string {
	u := domain.AbsoluteHTTP(s)
	if u == nil {
		return ""
	}
	return ingest.SiteHost(u)
}
