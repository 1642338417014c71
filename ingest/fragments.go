// Package ingest makes what a digest shows of an entry from the feed's
// texts, once, when a poll stores the entry: the fragments (sanitised HTML
// with links resolved and frames made links, display title, excerpt, word
// count, links; MakeFragments and the version of its rules, FragmentRules)
// and the plain-text rules they rest on (PlainText, Cut, StripControl,
// OneLine). Its few words of ours ("Untitled post", "Video: ": Untitled,
// EmbeddedVideo) are stored in the fragments they are part of, in English
// as codes: render words them in the reader's language. It imports none
// of the layers
// that show what it makes (render, pages, pipeline).
package ingest

import (
	"strings"

	"golang.org/x/net/html"

	"feeddigest/domain"
)

// FragmentRules is the version of the rules that make an entry's
// fragments (MakeFragments): the sanitising policy, link resolution, the
// heading levels, the excerpt and title lengths, the link list. Raise it
// with any change to those rules: fragments stored under another version
// are made again from the stored texts at the next run (see
// store.Store.StaleFragments), so every page shows the entry as the
// running program would.
//
// 2: controls and noncharacters dropped from texts and content, image
// maps removed, user information dropped from links.
// 3: blocks parted in texts (blockSeparator), an untitled entry's
// excerpt going on from its title (afterTitle), a link where a frame
// was (linkFrames), the text's length in words (countWords).
// 4: an untitled entry whose title and excerpt show all of its text is
// Whole (nothing to open: see render's entryView.Complete).
const FragmentRules = 4

// fragmentTop is the heading level a stored fragment's content starts at:
// below an entry's h3 (render's entryContentHeading for a feed outside
// folders).
const fragmentTop = 4

// MakeFragments makes what a digest shows of an entry of the feed
// subscribed at feedURL, once, when the entry is stored: its display
// title, excerpt, sanitised content and the links in it.
func MakeFragments(feedURL string, e domain.Entry) domain.Fragments {
	html, tree := sanitized(contentOf(e), EntryURL(feedURL, e.Link), fragmentTop)
	text := entryText(e)
	f := domain.Fragments{
		Rules:   FragmentRules,
		Title:   displayTitle(e.Title, text),
		Excerpt: Cut(text, excerptWords, excerptChars),
		HTML:    html,
		Words:   countWords(text),
	}
	if tree == nil {
		return f
	}
	// From the sanitised tree itself, which is what html parses back to:
	// a parse fewer for each.
	f.Links = appendLinks(f.Links, tree)
	f.Whole = f.Excerpt != "" && treeTextIs(tree, f.Excerpt)
	if PlainText(e.Title) == "" && text != "" {
		// The title is the text's first words: the excerpt goes on
		// from them, and the content, which starts with them too, is
		// folded away rather than shown in the excerpt's place; when
		// the two show all of the text, Whole, there is nothing to open.
		f.Excerpt = afterTitle(text, f.Title)
		f.Whole = treeTextIs(tree, text) && showsRest(text, f.Title, f.Excerpt)
	}
	return f
}

// showsRest says the excerpt afterTitle made, with the title, shows all
// of text: the rest after the title was not cut.
func showsRest(text, title, excerpt string) bool {
	rest := text[restStart(text, title):]
	return strings.TrimPrefix(excerpt, Ellipsis) == rest
}

// afterTitle is the excerpt of an untitled entry whose text is text and
// whose display title, its first words, is title: the words the title
// does not show, cut as an excerpt and marked as going on from it ("…and
// then"), or "" when the title shows them all.
func afterTitle(text, title string) string {
	rest := text[restStart(text, title):]
	if rest == "" || rest == text {
		return ""
	}
	return Ellipsis + Cut(rest, excerptWords, excerptChars)
}

// restStart is where, in text, the words after those title shows start.
func restStart(text, title string) int {
	rest := text
	for range len(strings.Fields(strings.TrimSuffix(title, Ellipsis))) {
		_, after, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
		rest = after
	}
	rest = strings.TrimLeft(rest, " ·") // a block's separator, no word
	return len(text) - len(rest)
}

// treeTextIs says whether treeText(tree) is text. The walk stops once the
// tree has shown more non-space ASCII bytes than text has bytes, which the
// collapsed text would hold too: an excerpt cut from a long post is not
// the post, and the rest of its tree need not be read.
func treeTextIs(tree *html.Node, text string) bool {
	w := textWriter{limit: len(text)}
	w.Grow(len(text) + 64)
	if !w.write(tree) {
		return false
	}
	return collapseSpace(w.String()) == text
}

// appendLinks appends the href of every link below n, in document order.
func appendLinks(links []string, n *html.Node) []string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.Data == "a" {
			if i := attrIndex(c, "href"); i >= 0 {
				links = append(links, c.Attr[i].Val)
			}
		}
		links = appendLinks(links, c)
	}
	return links
}

// treeText is PlainText of the HTML that tree is the body of.
func treeText(tree *html.Node) string {
	w := textWriter{limit: -1}
	w.write(tree)
	return collapseSpace(w.String())
}

// FragmentsOf are e's stored fragments, or, when it has none made by
// these rules (texts dropped, or stored by an older program and not
// made again), fragments made now.
func FragmentsOf(feedURL string, e domain.Entry) domain.Fragments {
	if e.Fragments.Rules == FragmentRules {
		return e.Fragments
	}
	return MakeFragments(feedURL, e)
}

// deeperHeadings moves a stored fragment's headings one level down (h4 to
// h5, h5 and h6 to h6), as shiftHeadings with a top one deeper does: the
// content of an entry under a folder heading. The fragment is our
// sanitiser's output, so every tag is written in lower case and a "<" in
// text or attribute values is escaped: these strings are only tags.
var deeperHeadings = strings.NewReplacer(
	"<h4>", "<h5>", "<h4 ", "<h5 ", "</h4>", "</h5>",
	"<h5>", "<h6>", "<h5 ", "<h6 ", "</h5>", "</h6>",
)

// ContentAt is a fragment's HTML with its headings starting at h<top>.
func ContentAt(html string, top int) string {
	if top == fragmentTop+1 && strings.Contains(html, "<h") {
		return deeperHeadings.Replace(html)
	}
	return html
}

// contentOf is what an entry shows in full: its content, else its summary.
func contentOf(e domain.Entry) string {
	if strings.TrimSpace(e.Content) != "" {
		return e.Content
	}
	return e.Summary
}
