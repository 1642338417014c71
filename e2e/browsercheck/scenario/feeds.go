package main

import (
	"fmt"
	"html"
	"strings"
	"time"
)

// The simulated week: the first run is on Thursday 19 November 2026,
// the last on Monday 23; the feeds have published since 9 November, so a
// first poll finds a full window.
var (
	firstDay    = time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC)
	days        = 5
	backlogFrom = time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC)
	lastDay     = firstDay.AddDate(0, 0, days) // nothing is published after it
	goneFrom    = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
)

// An item is one post of a feed.
type item struct {
	ID, Title, Link string
	HTML            string // the content, as HTML ("" for text only)
	Text            string // a plain-text summary or post ("" when none)
	Author          string
	Published       time.Time
	Enclosure       *enclosure
}

type enclosure struct {
	URL, Type string
	Length    int64
	Duration  string // itunes:duration
}

// failure is how a feed that cannot be read answers.
type failure int

const (
	answers     failure = iota // serves its items
	serverError                // 500 at every request
	dropsLine                  // closes the connection without an answer: a connection error, as fast to fail as a timeout is slow
	goneLater                  // serves its items until goneFrom, then 410 Gone
)

// A feed is what one URL of the scenario serves.
type feed struct {
	Path                  string // on the scenario's server: "/blog.xml"
	Format                string // "rss", "atom" or "json"
	Title, Site, Language string
	Description           string
	Window                int    // how many of the newest items the feed lists
	Items                 []item // oldest first
	Fails                 failure
}

// visible is what f lists at now: its newest Window items published by
// then, newest first.
func (f *feed) visible(now time.Time) []item {
	var out []item
	for i := len(f.Items) - 1; i >= 0 && len(out) < f.Window; i-- {
		if !f.Items[i].Published.After(now) {
			out = append(out, f.Items[i])
		}
	}
	return out
}

// world is the scenario's thirteen feeds, images served from base (the
// only URLs a page's browser may load are on loopback), every other link
// to a site of its own under .example.
func world(base string) ([]*feed, error) {
	builders := []func(string) (*feed, error){
		blogFeed, podcastFeed, newsFeed, longReadsFeed, arabicFeed, hebrewFeed,
		microblogFeed, russianFeed, workshopFeed, brokenFeed, droppedFeed, newsletterFeed,
		almanacFeed,
	}
	var feeds []*feed
	for _, b := range builders {
		f, err := b(base)
		if err != nil {
			return nil, err
		}
		feeds = append(feeds, f)
	}
	return feeds, nil
}

// daily calls add for each day from backlogFrom to lastDay, with the
// day's index and its midnight.
func daily(every int, from time.Time, add func(n int, day time.Time)) {
	n := 0
	for day := from; day.Before(lastDay); day = day.AddDate(0, 0, every) {
		add(n, day)
		n++
	}
}

func paragraphs(ps []string) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p))
	}
	return b.String()
}

// slug is a URL path segment made of title's ASCII letters and digits.
func slug(title string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return fmt.Sprintf("post-%d", n)
	}
	return s
}

// linksParagraph is a paragraph that opens with lead and links to n of
// the "url|text" pieces of section from the i-th on.
func linksParagraph(t texts, section, lead string, i, n int) string {
	var links []string
	for _, piece := range t.run(section, i, n) {
		url, text, _ := strings.Cut(piece, "|")
		links = append(links, fmt.Sprintf("<a href=\"%s\">%s</a>", html.EscapeString(url), html.EscapeString(text)))
	}
	return fmt.Sprintf("<p>%s %s.</p>\n", html.EscapeString(lead), strings.Join(links, " and "))
}

func datedLink(site string, t time.Time, title string, n int) string {
	return fmt.Sprintf("%s/%s/%s", site, t.Format("2006/01/02"), slug(title, n))
}

func blogFeed(string) (*feed, error) {
	t, err := readTexts("blog")
	if err != nil {
		return nil, err
	}
	f := &feed{Path: "/blog.xml", Format: "rss", Title: "Slow Mornings", Site: "https://slowmornings.example",
		Language: "en-GB", Description: "Bread, bicycles and other slow things", Window: 20}
	daily(1, backlogFrom, func(n int, day time.Time) {
		at := day.Add(9*time.Hour + 30*time.Minute)
		title := t.pick("titles", n)
		body := paragraphs(t.run("paragraphs", n, 1+(n*5)%6))
		if n%3 == 0 {
			body += linksParagraph(t, "links", "Elsewhere:", n, 2)
		}
		f.Items = append(f.Items, item{ID: fmt.Sprintf("slowmornings-%d", n), Title: title,
			Link: datedLink(f.Site, at, title, n), HTML: body, Author: "Hannah Reed", Published: at})
	})
	return f, nil
}

func podcastFeed(string) (*feed, error) {
	t, err := readTexts("podcast")
	if err != nil {
		return nil, err
	}
	f := &feed{Path: "/podcast.xml", Format: "rss", Title: "The Long Table", Site: "https://longtable.example",
		Language: "en", Description: "Conversations about the things people do together", Window: 10}
	daily(2, backlogFrom.AddDate(0, 0, 2), func(n int, day time.Time) {
		at := day.Add(6 * time.Hour)
		ep := 38 + n
		title := fmt.Sprintf("Episode %d: %s", ep, t.pick("titles", n))
		f.Items = append(f.Items, item{ID: fmt.Sprintf("longtable-ep%d", ep), Title: title,
			Link: fmt.Sprintf("%s/episodes/%d", f.Site, ep), HTML: paragraphs(t.run("paragraphs", n, 1)), Published: at,
			Enclosure: &enclosure{URL: fmt.Sprintf("%s/audio/longtable-%d.mp3", f.Site, ep), Type: "audio/mpeg",
				Length: int64(31_000_000 + 1_700_000*n), Duration: fmt.Sprintf("%d:%02d", 38+n*3, (n*17)%60)}})
	})
	return f, nil
}

// newsFeed publishes fifty items a day, every 28.8 minutes, each headline
// made of a subject, an action and a place (distinct for the 1,500 first
// items), each summary one of three generic ones.
func newsFeed(string) (*feed, error) {
	t, err := readTexts("news")
	if err != nil {
		return nil, err
	}
	f := &feed{Path: "/news.xml", Format: "rss", Title: "Metro Wire", Site: "https://metrowire.example",
		Language: "en", Description: "Local news as it happens", Window: 100}
	const perDay = 50
	daily(1, backlogFrom.AddDate(0, 0, 3), func(d int, day time.Time) {
		for j := range perDay {
			n := d*perDay + j
			at := day.Add(time.Duration(j) * 24 * time.Hour / perDay)
			title := fmt.Sprintf("%s %s %s", t.pick("subjects", n), t.pick("actions", n/15), t.pick("places", n/150+n))
			f.Items = append(f.Items, item{ID: fmt.Sprintf("metrowire-%d", 100000+n), Title: title,
				Link: datedLink(f.Site, at, title, n), Text: t.pick("summaries", n), Published: at})
		}
	})
	return f, nil
}

// longReadsFeed publishes a long read every other day: every paragraph
// of its texts (about 3,000 words), from a different one each time, a
// figure with a caption first and after every sixth paragraph, a heading
// before every fourth, links to further reading last; its images are on
// base.
func longReadsFeed(base string) (*feed, error) {
	t, err := readTexts("longreads")
	if err != nil {
		return nil, err
	}
	f := &feed{Path: "/longreads.atom", Format: "atom", Title: "Field Notes Quarterly", Site: "https://fieldnotes.example",
		Language: "en", Window: 10}
	all := len(t["paragraphs"])
	daily(2, backlogFrom.AddDate(0, 0, 1), func(n int, day time.Time) {
		at := day.Add(14 * time.Hour)
		var b strings.Builder
		figure := func(k int) {
			fmt.Fprintf(&b, "<figure><img src=\"%s/img/fieldnotes-%d-%d.png\" alt=\"\" width=\"640\" height=\"360\"><figcaption>%s</figcaption></figure>\n",
				base, n, k, html.EscapeString(t.pick("captions", n+k)))
		}
		figure(0)
		fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(t.pick("headings", n)))
		for k, p := range t.run("paragraphs", n*5, all) {
			if k > 0 && k%4 == 0 {
				fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(t.pick("headings", n+k/4)))
			}
			b.WriteString(paragraphs([]string{p}))
			if k > 0 && k%6 == 0 {
				figure(k)
			}
		}
		b.WriteString(linksParagraph(t, "sources", "Further reading:", n, 3))
		title := t.pick("titles", n)
		it := item{ID: fmt.Sprintf("tag:fieldnotes.example,2026:%d", n), Title: title, Link: datedLink(f.Site, at, title, n),
			HTML: b.String(), Author: "Astrid Lindqvist", Published: at}
		if n%2 == 1 {
			it.Text = "A long read about the people who keep records that no machine could have made."
		}
		f.Items = append(f.Items, it)
	})
	return f, nil
}

// dailyPosts fills f with posts of the texts name (its titles and
// paragraphs, its "feed title" when f has none), one at each of hours
// every day, each of one to three paragraphs.
func dailyPosts(name string, f *feed, hours []int) (*feed, error) {
	t, err := readTexts(name)
	if err != nil {
		return nil, err
	}
	if f.Title == "" {
		f.Title = t.pick("feed title", 0)
	}
	daily(1, backlogFrom, func(d int, day time.Time) {
		for k, h := range hours {
			n := d*len(hours) + k
			at := day.Add(time.Duration(h) * time.Hour)
			f.Items = append(f.Items, item{ID: fmt.Sprintf("%s-%d", name, n), Title: t.pick("titles", n),
				Link: fmt.Sprintf("%s/%s/%d", f.Site, at.Format("2006/01/02"), n), HTML: paragraphs(t.run("paragraphs", n, 1+n%3)),
				Published: at})
		}
	})
	return f, nil
}

func arabicFeed(string) (*feed, error) {
	f := &feed{Path: "/garden-ar.xml", Format: "rss", Title: "حديقة المدينة", Site: "https://hadiqa.example", Language: "ar", Window: 15}
	return dailyPosts("arabic", f, []int{8})
}

func hebrewFeed(string) (*feed, error) {
	f := &feed{Path: "/city-he.xml", Format: "rss", Title: "יומן העיר", Site: "https://yoman.example", Language: "he", Window: 15}
	return dailyPosts("hebrew", f, []int{10, 17})
}

// microblogFeed is a JSON Feed of untitled posts, four a day.
func microblogFeed(string) (*feed, error) {
	t, err := readTexts("microblog")
	if err != nil {
		return nil, err
	}
	f := &feed{Path: "/microblog.json", Format: "json", Title: "sam's notes", Site: "https://sam.example", Window: 30}
	times := []time.Duration{7*time.Hour + 40*time.Minute, 11*time.Hour + 15*time.Minute, 16*time.Hour + 50*time.Minute, 21*time.Hour + 20*time.Minute}
	daily(1, backlogFrom, func(d int, day time.Time) {
		for k, off := range times {
			n := d*len(times) + k
			f.Items = append(f.Items, item{ID: fmt.Sprintf("https://sam.example/%d", 4000+n), Link: fmt.Sprintf("https://sam.example/%d", 4000+n),
				Text: t.pick("posts", n*3), Published: day.Add(off)})
		}
	})
	return f, nil
}

// russianFeed is a Russian feed with a 105-character title, two posts a
// day.
func russianFeed(string) (*feed, error) {
	f := &feed{Path: "/gorod.xml", Format: "rss", Site: "https://gorod-zametki.example", Language: "ru", Window: 20}
	return dailyPosts("russian", f, []int{6, 15})
}

// workshopFeed embeds a YouTube video in each post, every other day.
func workshopFeed(string) (*feed, error) {
	t, err := readTexts("video")
	if err != nil {
		return nil, err
	}
	f := &feed{Path: "/workshop.xml", Format: "rss", Title: "Workshop Videos", Site: "https://workshop.example",
		Language: "en", Window: 10}
	daily(2, backlogFrom.AddDate(0, 0, 1), func(n int, day time.Time) {
		at := day.Add(18 * time.Hour)
		title := t.pick("titles", n)
		body := paragraphs(t.run("paragraphs", n, 1)) +
			fmt.Sprintf("<iframe width=\"560\" height=\"315\" src=\"https://www.youtube.com/embed/wk%09d\" title=\"%s\" allowfullscreen></iframe>\n", 4711+n, html.EscapeString(title)) +
			"<p>Tools used are listed on the channel page. Questions welcome in the comments.</p>\n"
		f.Items = append(f.Items, item{ID: fmt.Sprintf("workshop-%d", n), Title: title, Link: datedLink(f.Site, at, title, n),
			HTML: body, Published: at})
	})
	return f, nil
}

func brokenFeed(string) (*feed, error) {
	return &feed{Path: "/broken.xml", Fails: serverError}, nil
}

func droppedFeed(string) (*feed, error) {
	return &feed{Path: "/dropped.xml", Fails: dropsLine}, nil
}

// newsletterFeed is a weekly newsletter, read on the first day and gone
// (410) from the second.
func newsletterFeed(string) (*feed, error) {
	f := &feed{Path: "/newsletter.xml", Format: "rss", Title: "The Parish Newsletter", Site: "https://parish.example",
		Language: "en", Window: 5, Fails: goneLater}
	daily(7, backlogFrom.AddDate(0, 0, -7), func(n int, day time.Time) {
		at := day.Add(8 * time.Hour)
		title := fmt.Sprintf("Newsletter no. %d: the bazaar, the bells and the bins", 120+n)
		f.Items = append(f.Items, item{ID: fmt.Sprintf("parish-%d", n), Title: title, Link: datedLink(f.Site, at, title, n),
			HTML: "<p>The bazaar raised more than last year. The bells will be rung on Sunday. The bins go out a day late next week.</p>\n", Published: at})
	})
	return f, nil
}

// almanacFeed is a monthly column, its last post on 1 November: a week
// of it is a weekly digest with nothing new.
func almanacFeed(string) (*feed, error) {
	f := &feed{Path: "/almanac.xml", Format: "rss", Title: "The Quiet Almanac", Site: "https://almanac.example",
		Language: "en", Window: 6}
	months := []string{"August", "September", "October", "November"}
	for n, month := range months {
		at := time.Date(2026, time.August+time.Month(n), 1, 6, 0, 0, 0, time.UTC)
		title := fmt.Sprintf("What to sow, mend and read in %s", month)
		f.Items = append(f.Items, item{ID: fmt.Sprintf("almanac-%d", n), Title: title, Link: datedLink(f.Site, at, title, n),
			HTML: paragraphs([]string{
				fmt.Sprintf("The light goes earlier in %s, and the garden asks for less. Sow broad beans under a cloche, lift the last potatoes, and put the hoses away before the first frost.", month),
				"Mend what broke in summer: the gate latch, the shed door, the chair that wobbles. A month of small repairs makes the winter shorter.",
			}), Author: "Ruth Okafor", Published: at})
	}
	return f, nil
}
