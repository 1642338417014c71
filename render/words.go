package render

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"time"

	"feeddigest/ingest"
	"feeddigest/locale"
)

// A digest's words are worded when its page or email is written, in the
// reader's language of that moment: what the state keeps for later
// words is a code with its facts, never a sentence.

// reasons are the message ids of the codes package fetch gives a feed's
// problem (fetch.Result.Problem, kept in the state): English phrases,
// stable as codes, with the HTTP status in brackets where there is one.
var reasons = map[string]string{
	"not found":                            "reason.not_found",
	"gone":                                 "reason.gone",
	"access refused":                       "reason.refused",
	"too many requests":                    "reason.too_many_requests",
	"server error":                         "reason.server_error",
	"error":                                "reason.http_error",
	"stopped the program while being read": "reason.run_died",
	"refused: private address":             "reason.private_address",
	"too large":                            "reason.too_large",
	"too many redirects":                   "reason.too_many_redirects",
	"not a feed":                           "reason.not_a_feed",
	"timed out":                            "reason.timed_out",
	"could not connect: unknown host":      "reason.unknown_host",
	"could not connect securely":           "reason.insecure",
	"could not connect":                    "reason.no_connection",
	"could not be read":                    "reason.unreadable",
	"":                                     "reason.unreadable",
}

// withStatus splits a problem's code from its HTTP status: "server
// error (503)".
var withStatus = regexp.MustCompile(`^(.*) \(([1-9][0-9]{2})\)$`)

// ReasonKnown says whether a problem's code (fetch.Result.Problem) has
// words in the catalogues: one that has none is shown as it is kept.
func ReasonKnown(code string) bool {
	what, _ := splitStatus(code)
	if _, ok := reasons[what]; ok {
		return true
	}
	_, ok := netReasonText(locale.English(), code)
	return ok
}

func splitStatus(code string) (string, int) {
	if m := withStatus.FindStringSubmatch(code); m != nil {
		n, _ := strconv.Atoi(m[2])
		return m[1], n
	}
	return code, 0
}

// netReasons are the codes fetch gives a network failure
// (fetch.NetFailure.Words), each with the facts it carries: the server
// (Host), and for some a day (Date, as fetch writes it), a certificate's
// names (Names) or what the network said (Detail).
var netReasons = []struct {
	code *regexp.Regexp
	id   string
	// facts name the code's groups after the server's.
	facts []string
}{
	{regexp.MustCompile(`^could not find the host (.+) \(DNS lookup failed\)$`), "reason.net_unknown_host", nil},
	{regexp.MustCompile(`^connection refused by (.+)$`), "reason.net_refused", nil},
	{regexp.MustCompile(`^(.+) closed the connection before answering$`), "reason.net_closed", nil},
	{regexp.MustCompile(`^(.+) cut the connection while sending the feed$`), "reason.net_cut", nil},
	{regexp.MustCompile(`^(.+) did not answer in time$`), "reason.net_timeout", nil},
	{regexp.MustCompile(`^could not reach (.+) \(no route to it\)$`), "reason.net_unreachable", nil},
	{regexp.MustCompile(`^the certificate of (.+) is not signed by a known authority$`), "reason.cert_unknown", nil},
	{regexp.MustCompile(`^the certificate of (.+) has expired$`), "reason.cert_expired", nil},
	{regexp.MustCompile(`^the certificate of (.+) expired on ([0-9]{1,2} [A-Z][a-z]{2} [0-9]{4})$`), "reason.cert_expired_on", []string{"Date"}},
	{regexp.MustCompile(`^the certificate of (.+) is for another site \((.+)\)$`), "reason.cert_host_names", []string{"Names"}},
	{regexp.MustCompile(`^the certificate of (.+) is for another site$`), "reason.cert_host", nil},
	{regexp.MustCompile(`^could not set up a secure connection with (.+) \((.+)\)$`), "reason.tls", []string{"Detail"}},
	{regexp.MustCompile(`^could not connect to (.+) \((.+)\)$`), "reason.network", []string{"Detail"}},
}

// theServer is the server a network failure names when its error named
// none.
const theServer = "the server"

// reasonText words why a feed could not be read.
func reasonText(l *locale.Locale, code string) string {
	what, status := splitStatus(code)
	if id, ok := reasons[what]; ok {
		return l.T(id, "Status", strconv.Itoa(status))
	}
	if text, ok := netReasonText(l, code); ok {
		return text
	}
	return ingest.ShortName(code) // a code of a newer version: its own words
}

// netReasonText words a network failure's code; ok is false for a code
// that is not one.
func netReasonText(l *locale.Locale, code string) (string, bool) {
	for _, r := range netReasons {
		m := r.code.FindStringSubmatch(code)
		if m == nil {
			continue
		}
		host := m[1]
		if host == theServer {
			host = l.T("reason.the_server")
		}
		args := []any{"Host", host}
		for i, fact := range r.facts {
			v := m[i+2]
			if fact == "Date" {
				if day, err := time.Parse("2 Jan 2006", v); err == nil {
					v = l.Date(day, locale.Day)
				}
			}
			args = append(args, fact, v)
		}
		return l.T(r.id, args...), true
	}
	return "", false
}

// linkWords words a line of "Links mentioned" after the site's address:
// "2 links, in “A post”", "... and 4 more", the entry's title at the
// slot Entry.
func linkWords(l *locale.Locale, h HostCount) string {
	links := l.T("links.count", "Count", h.Count)
	if h.Others == 0 {
		return l.T("links.in", "Links", links, "Entry", locale.Mark(0))
	}
	return l.T("links.in_and_more", "Links", links, "Entry", locale.Mark(0), "Count", h.Others)
}

// linkParts is the line of linkWords for the page, which wraps the
// entry's title in its own element.
func linkParts(l *locale.Locale, h HostCount) []locale.Part {
	return locale.Split(linkWords(l, h), []string{"Entry"})
}

// linkText is the line of linkWords for plain text.
func linkText(l *locale.Locale, h HostCount) string {
	return locale.Join(linkParts(l, h), func(string) string { return h.First })
}

// titleIn is an entry's display title as the reader reads it: the one
// ingest gives an entry with neither title nor text, in their language.
func titleIn(l *locale.Locale, title string) string {
	if title == ingest.Untitled {
		return l.T("entry.untitled")
	}
	return title
}

// embedWords are the places in stored content where ingest put its words
// before a frame's link ("Video: "), as it writes them (a paragraph of
// its own, or a span inside one), and the message that words them.
var embedWords = []struct{ open, stored, id string }{
	{"<p>", ingest.EmbeddedPage, "entry.embedded_page"},
	{"<p>", ingest.EmbeddedVideo, "entry.embedded_video"},
	{"<span> ", ingest.EmbeddedPage, "entry.embedded_page"},
	{"<span> ", ingest.EmbeddedVideo, "entry.embedded_video"},
}

// contentIn is an entry's stored content with the words ingest put
// before a frame's link in the reader's language (English as stored).
func contentIn(l *locale.Locale, content string) string {
	if l.Tag() == "en" || !strings.Contains(content, "<a ") {
		return content
	}
	for _, w := range embedWords {
		stored := w.open + w.stored + "<a "
		if strings.Contains(content, stored) {
			words := html.EscapeString(l.T("text.label", "Label", l.T(w.id), "Value", ""))
			content = strings.ReplaceAll(content, stored, w.open+words+"<a ")
		}
	}
	return content
}
