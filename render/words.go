package render

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/locale"
)

// A digest's words are worded when its page or email is written, in the
// reader's language of that moment: what the state keeps for later
// words is a code with its facts (domain.ProblemCode), never a sentence.

// reasons are the message ids of the problem kinds that need no fact.
var reasons = map[domain.ProblemKind]string{
	domain.ProblemRunDied:          "reason.run_died",
	domain.ProblemPrivateAddress:   "reason.private_address",
	domain.ProblemTooLarge:         "reason.too_large",
	domain.ProblemTooManyRedirects: "reason.too_many_redirects",
	domain.ProblemNotFeed:          "reason.not_a_feed",
	domain.ProblemUnreadable:       "reason.unreadable",
}

// networkReasons are the message ids of the network failures, which name
// the server ({{.Host}}; reason.the_server when the error named none):
// plain, and with the fact the kind may carry (a certificate's expiry,
// its names, what the network said), used when the code has it.
var networkReasons = map[domain.ProblemKind]struct{ plain, withFact string }{
	domain.ProblemUnknownHost: {plain: "reason.net_unknown_host"},
	domain.ProblemRefused:     {plain: "reason.net_refused"},
	domain.ProblemClosed:      {plain: "reason.net_closed"},
	domain.ProblemCut:         {plain: "reason.net_cut"},
	domain.ProblemTimeout:     {plain: "reason.net_timeout"},
	domain.ProblemUnreachable: {plain: "reason.net_unreachable"},
	domain.ProblemCertUnknown: {plain: "reason.cert_unknown"},
	domain.ProblemCertExpired: {plain: "reason.cert_expired", withFact: "reason.cert_expired_on"},
	domain.ProblemCertHost:    {plain: "reason.cert_host", withFact: "reason.cert_host_names"},
	domain.ProblemTLS:         {plain: "reason.insecure", withFact: "reason.tls"},
	domain.ProblemNetwork:     {plain: "reason.no_connection", withFact: "reason.network"},
}

// ProblemText is reasonText for the operator's output, which words the
// same codes (in English).
func ProblemText(l *locale.Locale, code domain.ProblemCode) string {
	return reasonText(l, code, "", time.UTC)
}

// reasonText words why a feed could not be read: its code, else the
// words an older version kept (legacy), read as the code they stood for
// where they are the words it wrote, and shown as they are otherwise.
func reasonText(l *locale.Locale, code domain.ProblemCode, legacy string, loc *time.Location) string {
	if code.IsZero() {
		if id, ok := legacyUnnamed[legacy]; ok {
			return l.T(id)
		}
		if code = legacyCode(legacy); code.IsZero() {
			return ingest.ShortName(legacy)
		}
	}
	if code.Kind == domain.ProblemHTTP {
		return l.T(statusReason(code.Status), "Status", strconv.Itoa(code.Status))
	}
	if id, ok := reasons[code.Kind]; ok {
		return l.T(id)
	}
	ids, ok := networkReasons[code.Kind]
	if !ok {
		return l.T("reason.unreadable") // a kind of a newer version
	}
	host := code.Host
	if host == "" {
		host = l.T("reason.the_server")
	}
	switch {
	case code.Kind == domain.ProblemCertExpired && !code.Expired.IsZero():
		return l.T(ids.withFact, "Host", host, "Date", l.Date(code.Expired.In(loc), locale.Day))
	case code.Kind == domain.ProblemCertHost && code.Names != "":
		return l.T(ids.withFact, "Host", host, "Names", code.Names)
	case code.Kind == domain.ProblemTLS || code.Kind == domain.ProblemNetwork:
		if code.Detail == "" {
			return l.T(ids.plain) // their words need what the network said
		}
		return l.T(ids.withFact, "Host", host, "Detail", code.Detail)
	}
	return l.T(ids.plain, "Host", host)
}

// statusReason is the message id of an HTTP status that is not success.
func statusReason(status int) string {
	switch {
	case status == 404:
		return "reason.not_found"
	case status == 410:
		return "reason.gone"
	case status == 401 || status == 403:
		return "reason.refused"
	case status == 429:
		return "reason.too_many_requests"
	case status >= 500:
		return "reason.server_error"
	}
	return "reason.http_error"
}

// legacyKinds are the words older versions kept for a feed's problem,
// with the kind each stood for (an HTTP status in brackets after the
// words of ProblemHTTP).
var legacyKinds = map[string]domain.ProblemKind{
	"not found": domain.ProblemHTTP, "gone": domain.ProblemHTTP, "access refused": domain.ProblemHTTP,
	"too many requests": domain.ProblemHTTP, "server error": domain.ProblemHTTP, "error": domain.ProblemHTTP,
	"stopped the program while being read": domain.ProblemRunDied,
	"refused: private address":             domain.ProblemPrivateAddress,
	"too large":                            domain.ProblemTooLarge,
	"too many redirects":                   domain.ProblemTooManyRedirects,
	"not a feed":                           domain.ProblemNotFeed,
	"could not be read":                    domain.ProblemUnreadable,
	"":                                     domain.ProblemUnreadable,
}

// legacyUnnamed are the words older versions kept for a network failure
// without its server, with the message that says them as they were.
var legacyUnnamed = map[string]string{
	"timed out":                       "reason.timed_out",
	"could not connect: unknown host": "reason.unknown_host",
	"could not connect securely":      "reason.insecure",
	"could not connect":               "reason.no_connection",
}

// legacyStatus splits the words of an older version's HTTP problem from
// its status: "server error (503)".
var legacyStatus = regexp.MustCompile(`^(.*) \(([1-9][0-9]{2})\)$`)

// legacyNetwork are the words an older version kept for a network
// failure (the English words of en.toml's reason.* network messages,
// which older versions wrote out in fetch), each with the kind it stood for and
// the fact after the server's name, if any.
var legacyNetwork = []struct {
	words *regexp.Regexp
	kind  domain.ProblemKind
	fact  string
}{
	{regexp.MustCompile(`^could not find the host (.+) \(DNS lookup failed\)$`), domain.ProblemUnknownHost, ""},
	{regexp.MustCompile(`^connection refused by (.+)$`), domain.ProblemRefused, ""},
	{regexp.MustCompile(`^(.+) closed the connection before answering$`), domain.ProblemClosed, ""},
	{regexp.MustCompile(`^(.+) cut the connection while sending the feed$`), domain.ProblemCut, ""},
	{regexp.MustCompile(`^(.+) did not answer in time$`), domain.ProblemTimeout, ""},
	{regexp.MustCompile(`^could not reach (.+) \(no route to it\)$`), domain.ProblemUnreachable, ""},
	{regexp.MustCompile(`^the certificate of (.+) is not signed by a known authority$`), domain.ProblemCertUnknown, ""},
	{regexp.MustCompile(`^the certificate of (.+) has expired$`), domain.ProblemCertExpired, ""},
	{regexp.MustCompile(`^the certificate of (.+) expired on ([0-9]{1,2} [A-Z][a-z]{2} [0-9]{4})$`), domain.ProblemCertExpired, "Date"},
	{regexp.MustCompile(`^the certificate of (.+) is for another site \((.+)\)$`), domain.ProblemCertHost, "Names"},
	{regexp.MustCompile(`^the certificate of (.+) is for another site$`), domain.ProblemCertHost, ""},
	{regexp.MustCompile(`^could not set up a secure connection with (.+) \((.+)\)$`), domain.ProblemTLS, "Detail"},
	{regexp.MustCompile(`^could not connect to (.+) \((.+)\)$`), domain.ProblemNetwork, "Detail"},
}

// legacyCode is the code an older version's words stood for; zero when
// they are none of its words.
func legacyCode(words string) domain.ProblemCode {
	for _, n := range legacyNetwork {
		m := n.words.FindStringSubmatch(words)
		if m == nil {
			continue
		}
		code := domain.ProblemCode{Kind: n.kind}
		if m[1] != "the server" {
			code.Host = m[1]
		}
		switch n.fact {
		case "Date":
			code.Expired, _ = time.Parse("2 Jan 2006", m[2])
		case "Names":
			code.Names = m[2]
		case "Detail":
			code.Detail = m[2]
		}
		return code
	}
	status := 0
	if m := legacyStatus.FindStringSubmatch(words); m != nil {
		words = m[1]
		status, _ = strconv.Atoi(m[2])
	}
	kind, ok := legacyKinds[words]
	if !ok || (kind == domain.ProblemHTTP) != (status != 0) {
		return domain.ProblemCode{}
	}
	return domain.ProblemCode{Kind: kind, Status: status}
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
