// Package demo shows feeddigest working, offline: it serves sample feeds
// on 127.0.0.1, writes a configuration for users in three time zones, and
// runs the real pipeline hour by hour over two simulated days.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"feeddigest/config"
	"feeddigest/internal/english"
	"feeddigest/internal/feedtest"
	"feeddigest/pipeline"
)

// Simulated clock: hourly runs from Start for Hours hours. The second
// snapshot of the feeds goes up at SecondDay.
var (
	Start     = time.Date(2026, 11, 20, 12, 5, 0, 0, time.UTC)
	Hours     = 53
	SecondDay = time.Date(2026, 11, 21, 17, 0, 0, 0, time.UTC)
)

const marker = ".feeddigest-demo"

// Run runs the demo into the folder out and tells w where to look. self
// is how the reader started the program ("go run ." or "./feeddigest"),
// so that the commands the demo suggests work from where they stand.
func Run(ctx context.Context, feeds fs.FS, out, self string, w io.Writer) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	if err := prepare(out); err != nil {
		return err
	}
	ts := feedtest.New()
	defer ts.Close()
	if err := serveSnapshot(ts, feeds, "day1"); err != nil {
		return err
	}
	cfgPath := filepath.Join(out, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(configText(ts.URL)), 0o644); err != nil {
		return err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return fmt.Errorf("demo config: %w", err)
	}
	// The one host is the demo's own server, on loopback: it is owed no
	// politeness, and at the default rate (a request a second) the demo
	// spent ten seconds waiting on it. The config file keeps the default,
	// which a user's own feeds need.
	cfg.Fetch.HostRate = config.MaxHostRate
	fmt.Fprintf(w, "feeddigest demo: sample feeds on %s, users in London, New York and Tokyo (weekly, in Japanese)\n", ts.URL)
	fmt.Fprintf(w, "simulating hourly runs from %s to %s\n\n", Start.Format(time.RFC3339), Start.Add(time.Duration(Hours-1)*time.Hour).Format(time.RFC3339))
	var total pipeline.Summary
	day2 := false
	for h := range Hours {
		now := Start.Add(time.Duration(h) * time.Hour)
		if !now.Before(SecondDay) && !day2 {
			if err := serveSnapshot(ts, feeds, "day2"); err != nil {
				return err
			}
			day2 = true
		}
		sum, err := pipeline.Run(ctx, cfg, pipeline.Options{Now: now})
		if err != nil {
			return fmt.Errorf("run at %s: %w", now.Format(time.RFC3339), err)
		}
		if sum.FeedsPolled > 0 || sum.DigestsBuilt > 0 {
			fmt.Fprintf(w, "%s  polled %s (%s, %s first seen, %d failed), built %s\n",
				now.Format("Mon 02 Jan 15:04Z"), english.Count(sum.FeedsPolled, "feed"), english.Count(sum.Requests, "request"),
				english.Count(sum.NewEntries, "entry"), sum.Failed, english.Count(sum.DigestsBuilt, "digest"))
		}
		add(&total, sum)
	}
	return report(w, cfg, out, self, total)
}

func add(total *pipeline.Summary, s pipeline.Summary) {
	total.FeedsPolled += s.FeedsPolled
	total.Requests += s.Requests
	total.NewEntries += s.NewEntries
	total.DigestsBuilt += s.DigestsBuilt
	total.Unchanged += s.Unchanged
}

// prepare makes out ready, clearing only a folder an earlier demo made.
func prepare(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(out, marker)); err != nil {
			return fmt.Errorf("%s is not empty and was not made by the demo; choose another folder with -out", out)
		}
		if err := os.RemoveAll(out); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, marker), []byte("made by feeddigest demo; safe to delete\n"), 0o644)
}

func configText(base string) string {
	return strings.NewReplacer("BASE", base).Replace(`# Written by feeddigest demo: the sample feeds are served on BASE.
state = "state.db"
site_dir = "site"
intro = "Good morning. Here is what the feeds you follow published since your last digest."

[fetch]
allow_private_networks = true   # the demo's feeds are on 127.0.0.1
contact = "https://example.org/feeddigest-demo"

[email]
from = "Digest <digest@example.org>"
outbox = "outbox"
# Each email's List-Unsubscribe header names this address ({user}: the
# user's name); mail clients show an unsubscribe button for it.
unsubscribe = "mailto:digest-admin@example.org?subject=unsubscribe%20{user}"

# Ada sorts her feeds into folders and names one herself. garden-ar.xml
# is in Arabic (it says so: <language>ar</language>), podcast.xml carries
# audio, missing.xml answers 404 (her digests say so under "Could not
# read") and old-blog.xml answers 410 Gone. On the second day
# links.json links a post of calm-blog.xml: one story, shown once, under
# the blog (her first of the two), "also in" Good Links.
# teasers.xml publishes only a story's first line: full_text = true
# fetches each new story's page (served here too) and shows its article
# instead.
[[users]]
name = "ada"
timezone = "Europe/London"
email = "ada@example.org"
feeds = [
  { url = "BASE/calm-blog.xml", folder = "Reading" },
  { url = "BASE/podcast.xml", folder = "Listening" },
  { url = "BASE/notes.atom", title = "A librarian's notes", folder = "Reading" },
  { url = "BASE/garden-ar.xml", folder = "الحديقة" },
  { url = "BASE/teasers.xml", folder = "Reading", full_text = true },
  "BASE/links.json",
  "BASE/missing.xml",
  "BASE/old-blog.xml",
]

# Grace mutes the blog's repair posts (a rule: her digests count what it
# leaves out, and "feeddigest check" shows what it would).
[[users]]
name = "grace"
timezone = "America/New_York"
email = "grace@example.org"
digest_hour = 6
feeds = ["BASE/calm-blog.xml", "BASE/links.json", "BASE/broken.xml"]
mute = ["title:^fixing"]

# Kenji reads once a week, on Monday (his feeds are still polled every
# day, so nothing rolls out of a feed's window between two digests), in
# Japanese: his digests' own words, dates and counts are Japanese, his
# feeds' texts stay as they are.
[[users]]
name = "kenji"
timezone = "Asia/Tokyo"
email = "kenji@example.org"
every = "week"
digest_day = "monday"
language = "ja"
feeds = ["BASE/calm-blog.xml", "BASE/notes.atom", "BASE/garden-ar.xml"]
`)
}

func report(w io.Writer, cfg *config.Config, out, self string, total pipeline.Summary) error {
	fmt.Fprintf(w, "\nIn all: %s, %s (%d answered 'not modified'), %s stored, %s built.\n\n",
		english.Count(total.FeedsPolled, "poll"), english.Count(total.Requests, "request"), total.Unchanged,
		english.Count(total.NewEntries, "entry"), english.Count(total.DigestsBuilt, "digest"))
	fmt.Fprintln(w, "Look at:")
	for _, u := range cfg.Users {
		pages, _ := filepath.Glob(filepath.Join(cfg.SiteDir, u.Name, "*-*-*.html"))
		sort.Strings(pages)
		lang := ""
		if u.Language != "" {
			lang = ", in " + u.Lang.EnglishName()
		}
		fmt.Fprintf(w, "  %-6s %s  (%s, Atom feed: feed.xml%s)\n", u.Name, filepath.Join(cfg.SiteDir, u.Name, "index.html"), english.Count(len(pages), "digest page"), lang)
	}
	fmt.Fprintf(w, "  status %s\n", filepath.Join(cfg.SiteDir, "status.html"))
	mails, _ := filepath.Glob(filepath.Join(cfg.Email.Outbox, "*.eml"))
	fmt.Fprintf(w, "  email  %s  (%s)\n", cfg.Email.Outbox, english.Count(len(mails), "message"))
	fmt.Fprintf(w, "\nThe config is %s; `%s status -config %s` shows the feeds' health.\n",
		filepath.Join(out, "config.toml"), self, filepath.Join(out, "config.toml"))
	return nil
}
