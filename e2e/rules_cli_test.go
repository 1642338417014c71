package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
)

// Rules through the built binary: run leaves out what a user's mute rule
// and a feed's keep rule say, counts it in one quiet line of the page and
// the email, and check says what each rule would leave out, with titles.
func TestRulesThroughRunAndCheck(t *testing.T) {
	ts := feedtest.Start(t)
	rss := func(items string) feedtest.Response {
		return feedtest.Response{Status: 200, Header: map[string][]string{"Content-Type": {"application/rss+xml"}},
			Body: `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://site.example/</link>` + items + `</channel></rss>`}
	}
	ts.Respond("/blog.xml", rss(`<item><guid>b1</guid><title>Sponsored: a sale</title><link>https://site.example/b1</link><description>Buy.</description></item>`+
		`<item><guid>b2</guid><title>Field notes</title><link>https://site.example/b2</link><description>Birds.</description></item>`))
	ts.Respond("/lang.xml", rss(`<item><guid>l1</guid><title>Generics</title><link>https://site.example/l1</link><category>Go</category></item>`+
		`<item><guid>l2</guid><title>Borrowing</title><link>https://site.example/l2</link><category>Rust</category></item>`+
		`<item><guid>l3</guid><title>Sponsored: Go course</title><link>https://site.example/l3</link><category>go</category></item>`))
	dir := t.TempDir()
	config := `site_dir = "site"
[fetch]
allow_private_networks = true
[email]
from = "d@example.org"
outbox = "outbox"
[[users]]
name = "ada"
timezone = "UTC"
email = "ada@example.org"
mute = ["title:^sponsored", "(x+)+y"]
feeds = ["` + ts.URL + `/blog.xml", { url = "` + ts.URL + `/lang.xml", keep = ["category:^go$"] }]
`
	writeConfig(t, dir, config)
	if code, stdout, stderr := feeddigest(t, dir, nil, "check"); code != 0 || !strings.Contains(stdout, "after the first run, check shows what each rule would leave out") {
		t.Errorf("check before the first run: exit %d\n%s%s", code, stdout, stderr)
	}
	// check tries rules on the last 30 days of the wall clock: run now.
	now := time.Now().UTC().Truncate(time.Hour)
	date := now.Format("2006-01-02")
	if code, stdout, stderr := feeddigest(t, dir, nil, "run", "-now", now.Format(time.RFC3339)); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "site", "ada", date+".html"))
	if err != nil {
		t.Fatal(err)
	}
	mail, err := os.ReadFile(filepath.Join(dir, "outbox", "ada-"+date+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	// The page's quiet line opens the titles the rules left out, for the
	// reader to check a rule: apart from that list, they are nowhere.
	listed, rest := leftOutList(string(page))
	for _, title := range []string{"Sponsored: a sale", "Sponsored: Go course", "Borrowing"} {
		if !strings.Contains(listed, title) {
			t.Errorf("the page's left-out list lacks %q:\n%s", title, listed)
		}
	}
	for name, doc := range map[string]string{"page": rest, "email": string(mail)} {
		for _, shown := range []string{"Field notes", "Generics"} {
			if !strings.Contains(doc, shown) {
				t.Errorf("%s lacks %q", name, shown)
			}
		}
		for _, gone := range []string{"a sale", "Borrowing", "Go course"} {
			if strings.Contains(doc, gone) {
				t.Errorf("%s shows %q, which rules leave out", name, gone)
			}
		}
	}
	for name, doc := range map[string]string{"page": string(page), "email": string(mail)} {
		if !strings.Contains(doc, "3 left out by your rules") {
			t.Errorf("%s does not count what rules left out", name)
		}
	}
	if !strings.Contains(string(mail), now.Format("Monday 2 January")+": 2 new from 2 feeds") {
		t.Errorf("the subject counts what rules left out:\n%.600s", mail)
	}

	code, stdout, stderr := feeddigest(t, dir, nil, "check")
	for _, want := range []string{
		"ada (5 entries of all their feeds)",
		`mute "title:^sponsored": would leave out 2: "Sponsored: `,
		`"Sponsored: Go course"`,
		`"Sponsored: a sale"`,
		"ada, feed " + ts.URL + "/lang.xml (3 entries)",
		`keep "category:^go$": would leave out 1: "Borrowing"`,
		`mute "(x+)+y": would leave out 0`,
		`"(x+)+y" repeats a repeat: safe, RE2 takes time linear in the text`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check lacks %q; exit %d, stdout:\n%s%s", want, code, stdout, stderr)
		}
	}

	// The rules change: the next digest follows them, the one built
	// keeps what it showed and its count.
	writeConfig(t, dir, strings.Replace(config, `mute = ["title:^sponsored", "(x+)+y"]`, `mute = ["text:birds"]`, 1))
	ts.Respond("/blog.xml", rss(`<item><guid>b3</guid><title>Sponsored: winter sale</title><link>https://site.example/b3</link><description>Coats.</description></item>`+
		`<item><guid>b4</guid><title>More notes</title><link>https://site.example/b4</link><description>Birds again.</description></item>`))
	next := now.Add(24 * time.Hour)
	if code, stdout, stderr := feeddigest(t, dir, nil, "run", "-now", next.Format(time.RFC3339)); code != 0 {
		t.Fatalf("second run: exit %d\n%s%s", code, stdout, stderr)
	}
	later, err := os.ReadFile(filepath.Join(dir, "site", "ada", next.Format("2006-01-02")+".html"))
	if err != nil {
		t.Fatal(err)
	}
	if listed, rest := leftOutList(string(later)); !strings.Contains(rest, "winter sale") || strings.Contains(rest, "More notes") ||
		!strings.Contains(listed, "More notes") || !strings.Contains(listed, "1 left out by your rules") {
		t.Errorf("the next digest does not follow the changed rule")
	}
	if page, err = os.ReadFile(filepath.Join(dir, "site", "ada", date+".html")); err != nil {
		t.Fatal(err)
	}
	if listed, rest := leftOutList(string(page)); !strings.Contains(listed, "3 left out by your rules") || strings.Contains(rest, "a sale") {
		t.Errorf("the digest built before the change changed with it")
	}
}

// leftOutList splits a digest page into its list of what rules left out
// (the collapsed details under the quiet line) and the rest.
func leftOutList(page string) (listed, rest string) {
	start := strings.Index(page, `<details class="m">`)
	if start < 0 {
		return "", page
	}
	end := strings.Index(page[start:], "</details>")
	if end < 0 {
		return page[start:], page[:start]
	}
	end += start + len("</details>")
	return page[start:end], page[:start] + page[end:]
}
