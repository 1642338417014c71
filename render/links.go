package render

import (
	"net/url"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"feeddigest/domain"
)

// maxLinkHosts is how many hosts "Links mentioned" lists.
const maxLinkHosts = 10

// HostCount is one line of a digest's "Links mentioned" (the Artemis link
// graph): an outside site and how many links to it the entries carry.
type HostCount struct {
	Host  string // lower case, without a leading "www."
	URL   string // the site's root, for the link
	Count int    // distinct links to Host, counted once per entry
}

// linkSource is the links in one entry's sanitised content and the URLs
// whose hosts count as its own.
type linkSource struct {
	links []string
	own   []string
}

// linkGraph counts outside hosts over all sources; a URL repeated within
// one entry counts once, so one link-heavy post does not fill the list.
func linkGraph(items []linkSource) []HostCount {
	counts := map[string]*HostCount{}
	for _, it := range items {
		own := map[string]bool{}
		for _, o := range it.own {
			own[hostOf(o)] = true
		}
		seen := map[string]bool{}
		for _, u := range it.links {
			h := hostOf(u)
			if h == "" || own[h] || seen[u] {
				continue
			}
			seen[u] = true
			if counts[h] == nil {
				counts[h] = &HostCount{Host: h, URL: siteRoot(u)}
			}
			counts[h].Count++
		}
	}
	return topHosts(counts)
}

// topHosts sorts by count, then host name so the order is stable.
func topHosts(counts map[string]*HostCount) []HostCount {
	out := make([]HostCount, 0, len(counts))
	for _, c := range counts {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Host < out[j].Host
	})
	if len(out) > maxLinkHosts {
		out = out[:maxLinkHosts]
	}
	return out
}

// hrefs lists the link targets of sanitised HTML.
func hrefs(clean string) []string {
	if !strings.Contains(clean, "href") {
		return nil
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(clean))
	if err != nil {
		return nil
	}
	var out []string
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		out = append(out, a.AttrOr("href", ""))
	})
	return out
}

// hostOf is the comparable host of an http(s) URL: lower case, no port,
// no "www." (www.example.org and example.org are one site to a reader).
func hostOf(s string) string {
	u := domain.AbsoluteHTTP(s)
	if u == nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// siteRoot is the root page of the site a URL is on.
func siteRoot(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String()
}

// contentOf is what an entry shows in full: its content, else its summary.
func contentOf(e domain.Entry) string {
	if strings.TrimSpace(e.Content) != "" {
		return e.Content
	}
	return e.Summary
}
