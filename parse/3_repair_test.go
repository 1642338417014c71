package parse

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Ill-formed feeds as real servers send them, one defect per file (and
// one with several): each gives its entries, with their text as meant,
// and says what was repaired.
func TestIllFormedFeedsGiveTheirEntries(t *testing.T) {
	tests := []struct {
		file         string
		wantTitles   []string
		wantLink     string // of the first entry
		wantRepaired []string
	}{
		{"illformed_bare_ampersand.xml", []string{"Fish & chips", "Second"}, "https://example.org/post?id=1&lang=en",
			[]string{"bare ampersands"}},
		{"illformed_html_entities.xml", []string{"Menu\u00a0du jour – été", "L’hiver"}, "https://example.org/menu",
			[]string{"HTML entities undeclared in XML"}},
		{"illformed_control_chars.xml", []string{"Verticaltab", "Formfeed"}, "https://example.org/c1",
			[]string{"control characters"}},
		{"illformed_bom.xml", []string{"One", "Two"}, "https://example.org/b1",
			[]string{"byte-order mark", "text before the XML prolog"}},
		{"illformed_whitespace_prolog.xml", []string{"One", "Two"}, "https://example.org/w1",
			[]string{"text before the XML prolog"}},
		{"illformed_junk_before_prolog.xml", []string{"One", "Two"}, "https://example.org/j1",
			[]string{"text before the XML prolog"}},
		{"illformed_truncated.xml", []string{"One", "Two"}, "https://example.org/t1", // the cut third is left for later
			[]string{"truncated end"}},
		{"illformed_truncated_in_tag.xml", []string{"One", "Two"}, "https://example.org/u1",
			[]string{"truncated end"}},
		{"illformed_bare_less_than.xml", []string{"1 < 2", "Two"}, "https://example.org/lt1",
			[]string{"bare ampersands", "bare <"}}, // "a < b && b > c"
		{"illformed_unclosed_html.xml", []string{"Breaks", "Mismatched", "Three"}, "https://example.org/h1",
			[]string{"mismatched end tags"}},
		{"illformed_atom_mixed.xml", []string{"R&D \u00a0notes", "Second"}, "https://example.org/e1?x=1&y=2",
			[]string{"text before the XML prolog", "control characters", "bare ampersands", "HTML entities undeclared in XML", "truncated end"}},
		{"illformed_bom.json", []string{"First", "Second"}, "https://example.org/json1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			feed, err := readFeedAt(readTestdata(t, tt.file), "", "https://example.org/")
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, e := range feed.Entries {
				titles = append(titles, e.Title)
			}
			if strings.Join(titles, "|") != strings.Join(tt.wantTitles, "|") {
				t.Errorf("titles %q, want %q", titles, tt.wantTitles)
			}
			if len(feed.Entries) > 0 && feed.Entries[0].Link != tt.wantLink {
				t.Errorf("first link %q, want %q", feed.Entries[0].Link, tt.wantLink)
			}
			if got := feed.Repaired; got != strings.Join(tt.wantRepaired, ", ") {
				t.Errorf("repaired %q, want %q", got, strings.Join(tt.wantRepaired, ", "))
			}
		})
	}
}

func TestRepairedTextMeansWhatWasMeant(t *testing.T) {
	feed, err := readFeedAt(readTestdata(t, "illformed_html_entities.xml"), "application/rss+xml", "")
	if err != nil {
		t.Fatal(err)
	}
	if feed.Title != "Café — news" || feed.Entries[0].Content != "<p>Café…</p> © 2026" {
		t.Errorf("title %q, content %q", feed.Title, feed.Entries[0].Content)
	}
	feed, err = readFeedAt(readTestdata(t, "illformed_unclosed_html.xml"), "application/rss+xml", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := feed.Entries[0].Content; got != `Line one<br/>line two<p>para<img src="x.png"/></p>` {
		t.Errorf("unescaped HTML read as %q", got)
	}
}

// A well-formed feed is read as it came: nothing to repair.
func TestWellFormedFeedsAreNotRepaired(t *testing.T) {
	for _, name := range []string{"rss.xml", "atom.xml", "cp1252_prolog.xml", "utf8_no_prolog_encoding.xml"} {
		body := feedUTF8(readTestdata(t, name), "")
		if fixed := checkXML(body); fixed != 0 {
			t.Errorf("%s: repairs %q in a well-formed feed", name, fixed)
		}
	}
	wellFormed := "\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!DOCTYPE rss PUBLIC \"-//Netscape Communications//DTD RSS 0.91//EN\" \"x.dtd\">" +
		"<?xml-stylesheet href=\"s.xsl\"?><!-- a -- comment --><rss><channel><title>T &amp; &#233; &#x20AC;</title>" +
		"<item><description>a<br></br>b<br/><![CDATA[<p>raw & ready]]></description></item></channel></rss>"
	if fixed := checkXML([]byte(wellFormed)); fixed != 0 {
		t.Errorf("repairs %q in a well-formed feed", fixed)
	}
}

func TestUnreadableBodyStaysAnError(t *testing.T) {
	for _, tt := range []struct{ name, body, ct string }{
		{"truncated before its first entry", string(readTestdata(t, "broken.xml")), "application/rss+xml"},
		{"plain text", "Service temporarily unavailable & sorry", "text/plain"},
		{"XML that is no feed", "<html-ish><p>hello &nbsp; world", "application/xml"},
		{"empty", "", "application/rss+xml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if feed, err := readFeedAt([]byte(tt.body), tt.ct, ""); !errors.Is(err, ErrNotFeed) {
				t.Errorf("feed %+v, err %v; want ErrNotFeed", feed, err)
			}
		})
	}
}

func TestRepairXML(t *testing.T) {
	tests := []struct {
		in, want string
		fixed    repairs
	}{
		{"<a>x & y</a>", "<a>x &amp; y</a>", fixedBareAmpersands},
		{"<a>&eacute;&NotEqualTilde;&amp;&#233;</a>", "<a>&#233;&#8770;&#824;&amp;&#233;</a>", fixedHTMLEntities},
		{"<a>&notit; &semi;</a>", "<a>&amp;notit; &#59;</a>", fixedBareAmpersands | fixedHTMLEntities},
		{"<a>&#0;&#x110000;&#xFFFE;&#x1F600;</a>", "<a>&#65533;&#65533;&#x1F600;</a>", fixedCharacterReferences},
		{"<a>1 < 2</a>", "<a>1 &lt; 2</a>", fixedBareLessThan},
		{"<a b=c d e='x\"y' f=\"1<2\">", `<a b="c" d="d" e="x&quot;y" f="1&lt;2"></a>`, fixedAttributes | fixedBareLessThan | fixedTruncatedEnd},
		{"<a><b><c></a><d></e></d>", "<a><b><c></c></b></a><d></d>", fixedEndTags},
		{"<rss><channel><item><title>x</title></item><item><title>cut", "<rss><channel><item><title>x</title></item></channel></rss>", fixedTruncatedEnd},
		{"<feed><entry><id>1</id></entry><entry><id>2</id></entry></fe", "<feed><entry><id>1</id></entry><entry><id>2</id></entry></feed>", fixedTruncatedEnd},
		{"<a><![CDATA[half", "<a><![CDATA[half]]></a>", fixedTruncatedEnd},
		{"<a>\x01b\x1bc\xff]]></a>", "<a>bc\uFFFD]]&gt;</a>", fixedControlCharacters | fixedInvalidUTF8},
		{" \n\xEF\xBB\xBF<?xml version=\"1.0\"?><a/>", "<a/>", fixedByteOrderMark | fixedTextBeforeProlog},
		{"<b>PHP</b> warning<br />\n<?xml version=\"1.0\"?><a/>", "<a/>", fixedTextBeforeProlog},
		{"<p>line<br>next<IMG src=x></p>", `<p>line<br/>next<IMG src="x"/></p>`, fixedEndTags | fixedAttributes},
		{"<A::b>x</A::b>", `<A: b="b">x</A:>`, fixedAttributes | fixedEndTags}, // one colon at most
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, fixed := repairXML([]byte(tt.in))
			if string(got) != tt.want || fixed != tt.fixed {
				t.Errorf("repairXML(%q)\n got %q (%v)\nwant %q (%v)", tt.in, got, fixed, tt.want, tt.fixed)
			}
			if checked := checkXML([]byte(tt.in)); checked != fixed {
				t.Errorf("checkXML says %v, repairXML %v", checked, fixed)
			}
			if err := wellFormed(got); err != nil {
				t.Errorf("repaired body not well-formed: %v", err)
			}
		})
	}
}

// Hostile bodies cost one pass and a bounded number of allocations: the
// output buffer and its growth, a key per distinct element name, a string
// per entity; never one per tag.
func TestRepairAllocationsAreBounded(t *testing.T) {
	const size = 1 << 20
	// Slices growing by doubling to a million elements, a few times over.
	const growthAllocs = 128
	for _, unit := range []string{"<a>", "</b>", "&", "< ", "<a b c d>", `<a b="`, "<![CDATA[", "<x><y>", "]]>", "\x01",
		"<item><title>t</title>", "&#x1F600;", "&amp;", "<br>"} {
		in := bytes.Repeat([]byte(unit), size/len(unit))
		var out []byte
		allocs := testing.AllocsPerRun(2, func() { out, _ = repairXML(in) })
		if allocs > growthAllocs {
			t.Errorf("%q×%d: %.0f allocations", unit, size/len(unit), allocs)
		}
		if len(out) > maxRepairedSize(len(in)) {
			t.Errorf("%q×%d: %d bytes out of %d", unit, size/len(unit), len(out), len(in))
		}
		if checks := testing.AllocsPerRun(2, func() { checkXML(in) }); checks > growthAllocs {
			t.Errorf("%q×%d: checkXML made %.0f allocations", unit, size/len(unit), checks)
		}
	}
	// Distinct names cost one key each, and the map's growth.
	var distinct bytes.Buffer
	for i := 0; distinct.Len() < size; i++ {
		fmt.Fprintf(&distinct, "<e%d>", i)
	}
	names := float64(strings.Count(distinct.String(), "<"))
	if allocs := testing.AllocsPerRun(1, func() { repairXML(distinct.Bytes()) }); allocs > names*1.05+growthAllocs {
		t.Errorf("%.0f distinct names: %.0f allocations", names, allocs)
	}
}

// Atom's and RSS's <source> holds a title (and RSS's a name): it is no
// void HTML element, and a well-formed feed with one needs no repair.
func TestSourceElementIsNotRepaired(t *testing.T) {
	for _, body := range []string{
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id><title>x</title><source><title>y</title></source></entry></feed>`,
		`<rss version="2.0"><channel><item><guid>1</guid><source url="https://a.example/rss">A</source></item></channel></rss>`,
	} {
		if found := checkXML([]byte(body)); found != 0 {
			t.Errorf("%s: would repair %v", body, found)
		}
	}
}
