package render

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
)

// weightWords is ordinary prose vocabulary for the page-weight digest.
var weightWords = strings.Fields(`the a of and to in is that for it on was with as
at by this from be have are or an not but which one all were we when there can
your more about their if out so what up some would them into time has two like
him see other than then now look only come its over think also back after use
how our work first well way even new want because any these give day most us
release notes garden winter library compiler kernel museum recipe bicycle train
weekend paper draft review letter photograph river morning evening project
update research community design archive protocol patch bridge harbour station`)

// weightText is n words of deterministic prose.
func weightText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(weightWords[r.IntN(len(weightWords))])
	}
	return b.String()
}

// weightContent is about 600 characters of feed HTML: paragraphs with
// one or two links and some emphasis.
func weightContent(r *rand.Rand, feed, entry int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<p>%s <a href="https://elsewhere%d.example.net/articles/%d-%s">%s</a> %s.</p>`,
		weightText(r, 14), entry%7, 1000+entry, strings.ReplaceAll(weightText(r, 3), " ", "-"),
		weightText(r, 3), weightText(r, 16))
	fmt.Fprintf(&b, `<p>%s <em>%s</em> %s`, weightText(r, 10), weightText(r, 2), weightText(r, 8))
	if entry%2 == 0 {
		fmt.Fprintf(&b, ` (see <a href="/%d/notes.html">%s</a>)`, 2020+feed, weightText(r, 2))
	}
	b.WriteString(".</p><p>")
	for b.Len() < 590 {
		b.WriteString(weightWords[r.IntN(len(weightWords))])
		b.WriteByte(' ')
	}
	b.WriteString("end.</p>")
	return b.String()
}

// weightDigest is a realistic busy day: 5 feeds, 50 entries, titles of
// about eight words, 600-character HTML contents with a link or two.
func weightDigest(t testing.TB) Digest {
	r := rand.New(rand.NewPCG(1, 2))
	d := Digest{
		User:     "ada",
		Email:    "ada@example.org",
		Date:     "2026-11-22",
		Location: london(t),
		BuiltAt:  time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC),
	}
	for f := range 5 {
		g := FeedGroup{
			FeedURL:  fmt.Sprintf("https://blog%d.example.org/feed.xml", f),
			FeedName: []string{"Garden Notes", "The Compiler Weblog", "Harbour Station", "Morning Paper Review", "Winter Library"}[f],
			SiteURL:  fmt.Sprintf("https://blog%d.example.org/", f),
		}
		for e := range 10 {
			n := f*10 + e
			title := weightText(r, 8)
			g.Entries = append(g.Entries, domain.Entry{
				Title:     strings.ToUpper(title[:1]) + title[1:],
				Link:      fmt.Sprintf("/2026/11/%02d/entry-%d.html", 21-e%2, n),
				Content:   weightContent(r, f, n),
				Author:    fmt.Sprintf("Author %d", f),
				Published: time.Date(2026, 11, 21, 23-e, 10*f, 0, 0, time.UTC),
				FirstSeen: time.Date(2026, 11, 22, 0, 5, 0, 0, time.UTC),
			})
		}
		d.Groups = append(d.Groups, g)
	}
	return d
}

// pageBudget is the weight of a 50-entry digest page (HTML and inline
// CSS) on top of the authors' own content.
const pageBudget = 40 * 1024

// TestDigestPageWeight renders a realistic 50-entry digest and measures
// the page. The page carries every entry's full content in a collapsed
// <details> (docs/design.md) so a digest reads offline; 50 contents
// of 600 characters are 30 KB by themselves, so the whole page cannot stay
// under 40 KB. The budget therefore holds for what feeddigest adds: the
// page minus the authors' content bytes, and likewise the page without its
// <details> copies (titles, metadata, excerpts, links, CSS). Each
// summary names its entry for screen readers ("Read it all: <the
// title>", the title visually hidden): that copy of the author's title
// counts as the authors' content, the words around it as ours.
func TestDigestPageWeight(t *testing.T) {
	d := weightDigest(t)
	var content int
	for _, g := range d.Groups {
		for _, e := range g.Entries {
			content += len(e.Content)
		}
	}
	page, err := DigestPage(d)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for rest := s; ; {
		_, after, ok := strings.Cut(rest, `<span class="vh">: `)
		if !ok {
			break
		}
		title, _, _ := strings.Cut(after, "</span>")
		content += len(title)
		rest = after
	}
	if n := strings.Count(s, "<article>"); n != 50 {
		t.Fatalf("page has %d articles, want 50", n)
	}
	var details int
	for rest := s; ; {
		i := strings.Index(rest, "<details>")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</details>")
		if j < 0 {
			t.Fatal("unclosed <details>")
		}
		details += j + len("</details>")
		rest = rest[i+j:]
	}
	t.Logf("50-entry digest page: %d bytes (%.1f KB); authors' content in: %d bytes; <details> copies: %d bytes; page without them: %d bytes (%.1f KB)",
		len(page), kb(len(page)), content, details, len(page)-details, kb(len(page)-details))
	if over := len(page) - content; over >= pageBudget {
		t.Errorf("page minus authors' content is %d bytes, want under %d", over, pageBudget)
	}
	if lean := len(page) - details; lean >= pageBudget {
		t.Errorf("page without its <details> copies is %d bytes, want under %d", lean, pageBudget)
	}
}

func kb(n int) float64 { return float64(n) / 1024 }
