// Command scenario builds the site that the browser check screenshots
// for review: twelve real-looking feeds served on loopback (a blog, a
// podcast, a news site with fifty items a day, long reads with figures,
// Arabic and Hebrew feeds, an untitled microblog, a Russian feed with a
// 105-character title, a feed embedding a video, and three that fail:
// 500, a dropped connection, 410 Gone from the second day), and a monthly
// column quiet all week, read by the real feeddigest binary (`run -now`)
// over five simulated days, Thursday 19 to Monday 23 November 2026, for
// four users: ada (London, daily), ben (New York, weekly on Mondays, so
// his first digest comes on the Thursday he is added), noor (Jerusalem,
// daily, mostly Arabic and Hebrew, and reading Arabic) and cy (London,
// weekly on Mondays, the quiet column alone: a weekly digest with nothing
// new); and ada's feeds read in four more languages, by amelie (Paris,
// French), jonas (Berlin, German), kenji (Tokyo, Japanese) and olga
// (Moscow, Russian).
//
//	go run ./e2e/browsercheck/scenario -bin ./feeddigest -out /tmp/scenario
//
// OUT gets config.toml, state.db, outbox/, site/, email/ and
// scenario.json, which names the pages to look at (busy-day,
// first-digest, weekly, weekly-first, weekly-quiet, rtl, status, and
// busy-day-fr, -de, -ja, -ru: the busy day in other languages),
// relative to site/, and the emails' HTML parts (busy-day-email, the
// busy day's email decoded from its .eml in outbox/), relative to OUT.
// Nothing leaves the machine: the feeds are on 127.0.0.1 and the rest of
// their links go to .example hosts that are never asked for.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// runHours are the hours (UTC) of each simulated day at which feeddigest
// runs: noor's digest hour (07:00 in Jerusalem), ada's (07:00 in London),
// ben's (07:00 in New York), and one in the evening for retries.
var runHours = []int{5, 7, 12, 18}

func main() {
	bin := flag.String("bin", "", "the feeddigest `BINARY` to run (required)")
	out := flag.String("out", "", "the `DIR` to build the scenario in: empty, or one an earlier scenario finished (required)")
	flag.Parse()
	if *bin == "" || *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := buildScenario(context.Background(), *bin, *out, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "scenario: %v\n", err)
		os.Exit(1)
	}
}

// buildScenario serves the feeds, runs bin over the simulated days into
// out, and writes out/scenario.json; w is told what happens.
func buildScenario(ctx context.Context, bin, out string, w io.Writer) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	out, err = filepath.Abs(out)
	if err != nil {
		return err
	}
	if err := prepare(out); err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + l.Addr().String()
	feeds, err := world(base)
	if err != nil {
		return err
	}
	srv := newServer(feeds)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	defer hs.Close()

	cfg := filepath.Join(out, "config.toml")
	if err := os.WriteFile(cfg, []byte(configText(base)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "scenario: feeds on %s, %d days from %s, runs at %v UTC\n", base, days, firstDay.Format("Mon 2 Jan 2006"), runHours)
	for d := range days {
		for _, h := range runHours {
			now := firstDay.AddDate(0, 0, d).Add(time.Duration(h)*time.Hour + 5*time.Minute)
			srv.setNow(now)
			if err := runFeeddigest(ctx, bin, cfg, now, w); err != nil {
				return err
			}
		}
	}
	pages, err := choosePages(filepath.Join(out, "site"))
	if err != nil {
		return err
	}
	emails := map[string]string{}
	for name, eml := range map[string]string{"busy-day-email": "ada-2026-11-21.eml"} {
		if emails[name], err = writeHTMLPart(out, eml); err != nil {
			return fmt.Errorf("email %s: %w", name, err)
		}
	}
	b, err := json.MarshalIndent(map[string]any{"site": "site", "pages": pages, "emails": emails}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "scenario.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "scenario: %s\n", filepath.Join(out, "scenario.json"))
	return nil
}

// prepare makes out ready: a folder an earlier scenario finished (it
// holds scenario.json) is replaced; any other must be empty or absent.
func prepare(out string) error {
	if _, err := os.Stat(filepath.Join(out, "scenario.json")); err == nil {
		if err := os.RemoveAll(out); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(out)
	if err == nil && len(entries) > 0 {
		err = fmt.Errorf("%s is not empty and holds no scenario.json; choose another folder with -out", out)
	}
	return err
}

// runFeeddigest runs one pass at now and prints its first line of
// summary; its whole output when it fails.
func runFeeddigest(ctx context.Context, bin, cfg string, now time.Time, w io.Writer) error {
	stamp := now.Format(time.RFC3339)
	cmd := exec.CommandContext(ctx, bin, "run", "-now", stamp, cfg)
	cmd.Dir = filepath.Dir(cfg)
	cmd.Env = append(os.Environ(), "FEEDDIGEST_SMTP_PASSWORD=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("feeddigest run -now %s: %w\n%s%s", stamp, err, stdout.String(), stderr.String())
	}
	fmt.Fprintf(w, "  %s  %s\n", now.Format("Mon 02 Jan 15:04Z"), oneLine(stdout.String()))
	return nil
}

// oneLine is a run's summary on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// choosePages names the pages to review, relative to site: the busy
// day is ada's digest of Saturday 21 (a day of the news feed's fifty
// items and every other feed's posts), the first digests are each
// user's earliest page, the weekly one ben's latest, the quiet weekly
// one cy's latest, the RTL one noor's latest.
func choosePages(site string) (map[string]string, error) {
	pages := map[string]string{"status": "status.html"}
	for name, pick := range map[string]func(string) (string, error){
		"busy-day":     func(string) (string, error) { return "ada/2026-11-21.html", nil },
		"first-digest": func(s string) (string, error) { return datedPage(s, "ada", false) },
		"weekly":       func(s string) (string, error) { return datedPage(s, "ben", true) },
		"weekly-first": func(s string) (string, error) { return datedPage(s, "ben", false) },
		"weekly-quiet": func(s string) (string, error) { return datedPage(s, "cy", true) },
		"rtl":          func(s string) (string, error) { return datedPage(s, "noor", true) },
	} {
		p, err := pick(site)
		if err != nil {
			return nil, fmt.Errorf("page %s: %w", name, err)
		}
		pages[name] = p
	}
	for _, r := range readersElsewhere {
		pages["busy-day-"+r.language] = r.name + "/2026-11-21.html"
	}
	for name, p := range pages {
		if _, err := os.Stat(filepath.Join(site, p)); err != nil {
			return nil, fmt.Errorf("page %s: %w", name, err)
		}
	}
	return pages, nil
}

// datedPage is user's earliest digest page, or the latest.
func datedPage(site, user string, latest bool) (string, error) {
	found, err := filepath.Glob(filepath.Join(site, user, "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].html"))
	if err != nil {
		return "", err
	}
	if len(found) == 0 {
		return "", fmt.Errorf("%s has no digest page", user)
	}
	sort.Strings(found)
	p := found[0]
	if latest {
		p = found[len(found)-1]
	}
	rel, err := filepath.Rel(site, p)
	return filepath.ToSlash(rel), err
}

func configText(base string) string {
	return strings.NewReplacer("BASE", base).Replace(`# Written by e2e/browsercheck/scenario: the feeds are served on BASE.
state = "state.db"
site_dir = "site"
intro = "Good morning. Here is what the feeds you follow published since the last digest."

[fetch]
allow_private_networks = true   # the scenario's feeds are on 127.0.0.1
host_rate = 1000                # one loopback host, owed no politeness
per_host = 4
contact = "https://example.org/feeddigest-scenario"

[email]
from = "Digest <digest@example.org>"
outbox = "outbox"

# Ada follows the twelve feeds but the almanac, some in folders, some not (the first of
# those, dropped.xml, never has an entry); three fail (500, a dropped
# connection, 410 Gone from Friday).
[[users]]
name = "ada"
timezone = "Europe/London"
email = "ada@example.org"
digest_hour = 7
feeds = [
  { url = "BASE/blog.xml", folder = "Friends" },
  "BASE/dropped.xml",
  "BASE/news.xml",
  { url = "BASE/longreads.atom", folder = "Reading" },
  { url = "BASE/podcast.xml", folder = "Listening" },
  "BASE/microblog.json",
  { url = "BASE/garden-ar.xml", folder = "Neighbours" },
  { url = "BASE/city-he.xml", folder = "Neighbours" },
  "BASE/gorod.xml",
  { url = "BASE/workshop.xml", folder = "Listening" },
  { url = "BASE/broken.xml", folder = "Reading" },
  "BASE/newsletter.xml",
]

# Ben reads once a week, on Monday; he is added on Thursday, so his first
# digest comes at once and the next on Monday.
[[users]]
name = "ben"
timezone = "America/New_York"
email = "ben@example.org"
digest_hour = 7
every = "week"
digest_day = "monday"
feeds = [
  "BASE/blog.xml",
  "BASE/longreads.atom",
  "BASE/podcast.xml",
  "BASE/workshop.xml",
  "BASE/microblog.json",
  "BASE/gorod.xml",
]

# Cy reads a monthly column once a week: his first digest comes on the
# Thursday he is added, and Monday's has nothing new.
[[users]]
name = "cy"
timezone = "Europe/London"
email = "cy@example.org"
digest_hour = 7
every = "week"
digest_day = "monday"
feeds = ["BASE/almanac.xml"]

# Noor reads mostly Arabic and Hebrew, and her digests speak Arabic.
[[users]]
name = "noor"
timezone = "Asia/Jerusalem"
email = "noor@example.org"
digest_hour = 7
language = "ar"
feeds = [
  "BASE/garden-ar.xml",
  "BASE/city-he.xml",
  "BASE/blog.xml",
]
`) + otherLanguages(base)
}

// readersElsewhere read ada's feeds in their own languages, at 07:00
// where they live: the busy day in French, German, Japanese and Russian
// (long compounds, plurals of three forms, text without spaces).
var readersElsewhere = []struct{ name, zone, language string }{
	{"amelie", "Europe/Paris", "fr"},
	{"jonas", "Europe/Berlin", "de"},
	{"kenji", "Asia/Tokyo", "ja"},
	{"olga", "Europe/Moscow", "ru"},
}

func otherLanguages(base string) string {
	var b strings.Builder
	for _, r := range readersElsewhere {
		fmt.Fprintf(&b, "\n[[users]]\nname = %q\ntimezone = %q\ndigest_hour = 7\nlanguage = %q\nfeeds = [\n", r.name, r.zone, r.language)
		for _, f := range []string{`{ url = "BASE/blog.xml", folder = "Friends" }`, `"BASE/news.xml"`, `{ url = "BASE/longreads.atom", folder = "Reading" }`,
			`{ url = "BASE/podcast.xml", folder = "Listening" }`, `"BASE/microblog.json"`, `{ url = "BASE/garden-ar.xml", folder = "Neighbours" }`,
			`"BASE/gorod.xml"`, `{ url = "BASE/broken.xml", folder = "Reading" }`, `"BASE/newsletter.xml"`} {
			b.WriteString("  " + strings.ReplaceAll(f, "BASE", base) + ",\n")
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// writeHTMLPart decodes the HTML part of the email eml of out's outbox
// into out/email/, as a browser opens it, and returns its path relative
// to out.
func writeHTMLPart(out, eml string) (string, error) {
	f, err := os.Open(filepath.Join(out, "outbox", eml))
	if err != nil {
		return "", err
	}
	defer f.Close()
	msg, err := mail.ReadMessage(f)
	if err != nil {
		return "", err
	}
	body, err := htmlPart(msg.Header.Get("Content-Type"), msg.Body)
	if err != nil {
		return "", err
	}
	rel := filepath.Join("email", strings.TrimSuffix(eml, ".eml")+".html")
	if err := os.MkdirAll(filepath.Join(out, "email"), 0o755); err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), os.WriteFile(filepath.Join(out, rel), body, 0o644)
}

// htmlPart finds the text/html part of a body of type contentType,
// through multiparts, decoded.
func htmlPart(contentType string, body io.Reader) ([]byte, error) {
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(media, "multipart/") {
		return nil, fmt.Errorf("no text/html part")
	}
	r := multipart.NewReader(body, params["boundary"])
	for {
		part, err := r.NextRawPart()
		if err != nil {
			return nil, fmt.Errorf("no text/html part: %w", err)
		}
		ct := part.Header.Get("Content-Type")
		if strings.HasPrefix(ct, "multipart/") {
			if b, err := htmlPart(ct, part); err == nil {
				return b, nil
			}
			continue
		}
		if !strings.HasPrefix(ct, "text/html") {
			continue
		}
		var decoded io.Reader = part
		switch strings.ToLower(part.Header.Get("Content-Transfer-Encoding")) {
		case "quoted-printable":
			decoded = quotedprintable.NewReader(part)
		case "base64":
			decoded = base64.NewDecoder(base64.StdEncoding, part)
		}
		return io.ReadAll(decoded)
	}
}
