package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"feeddigest/config"
	"feeddigest/internal/english"
	"feeddigest/locale"
)

// initCmd: `feeddigest init [-config FILE] [URL...]` writes a starter
// config that works as written, and never overwrites a file.
func initCmd(_ context.Context, inv *invocation) error {
	for _, u := range inv.args {
		if err := config.CheckFeedURL(u); err != nil {
			if strings.HasSuffix(u, ".toml") {
				return usagef("%q is not a feed URL; to name the file to write, use -config %s", u, u)
			}
			return fmt.Errorf("bad feed URL: %w", err)
		}
	}
	path := inv.opts.config
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists; init never overwrites a file: edit it, or write another with -config FILE", path)
	}
	zone, zoneSource := machineZone(os.Getenv, "/etc/localtime", "/etc/timezone")
	s := starter{User: loginName(), Zone: zone, ZoneSource: zoneSource, Feeds: inv.args}
	s.Language, s.LanguageFrom = machineLanguage(os.Getenv)
	for _, u := range inv.args {
		if onThisNetwork(u) {
			s.Private = append(s.Private, u)
		}
	}
	text := s.config()
	// The file must load as written: a starter config that does not is a
	// bug, caught here before anything is written.
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	cfg, err := config.Parse([]byte(text), abs)
	if err != nil {
		return fmt.Errorf("the starter config does not load (a bug in feeddigest): %w", err)
	}
	if err := writeNew(path, text); err != nil {
		return err
	}
	s.nextSteps(inv, cfg)
	return nil
}

// writeNew writes text to a file that must not exist yet (O_EXCL: not
// even one created since we looked).
func writeNew(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; init never overwrites a file: edit it, or write another with -config FILE", path)
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // ours, and incomplete
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// starter is what init puts in the config.
type starter struct {
	User, Zone, ZoneSource string
	// Language is the language on offer the machine's locale names, ""
	// when it names none on offer; LanguageFrom says where it looked
	// ("LANG=fr_FR.UTF-8"), "" when nothing named a language.
	Language, LanguageFrom string
	Feeds                  []string
	Private                []string // feeds on loopback or private addresses
}

func (s starter) config() string {
	var b strings.Builder
	fmt.Fprintf(&b, `# feeddigest configuration, written by feeddigest init.
#
# Check it (polls each feed once, writes nothing):  feeddigest check
# Build the digests that are due:                   feeddigest run
# Run "feeddigest run" every hour (cron, systemd or GitHub Actions: see
# README.md). Every key is described in config.example.toml. Relative paths
# are relative to this file's folder.

# SQLite file that remembers feeds, entries and digests.
state = "state.db"

# The pages: site/<user>/index.html (the newest digest and the archive),
# site/status.html (the feeds' health).
site_dir = "site"

# The address where site_dir is published (your web server, GitHub Pages),
# if it is. Each digest email then links its day's page, which holds the
# entries' full texts, and the Atom feeds name their own address. Without
# it the pages are only on this machine and the email links none.
# site_url = "https://example.org/digest/"

[fetch]
# Feeds on this machine or a private network (127.0.0.1, localhost,
# 192.168.x.x, ...) are refused unless this is true.
`)
	if len(s.Private) > 0 {
		fmt.Fprintf(&b, "# true because %s is on this machine or a private network.\nallow_private_networks = true\n", s.Private[0])
	} else {
		b.WriteString("allow_private_networks = false\n")
	}
	fmt.Fprintf(&b, `
# Where publishers can reach you, added to the User-Agent. Optional, polite:
# contact = "mailto:you@example.org"

[email]
# Each digest is written as an email file, outbox/<user>-<date>.eml; nothing
# is sent until smtp is set.
from = "feeddigest <feeddigest@localhost>"
outbox = "outbox"
# To mail the digests, name your mail server and a real sender address
# above; the password comes from the FEEDDIGEST_SMTP_PASSWORD environment
# variable, never from this file.
# smtp = "smtps://you@mail.example.org:465"

[[users]]
# a-z, 0-9 and "-": used in paths (site/%[5]s/).
name = %[1]s
# Your IANA time zone (%[3]s). The day's digest is built when
# digest_hour (0 = midnight, the default) comes in this zone.
timezone = %[2]s
# digest_hour = 7
%[6]s
# The address the digests are written to; put yours here before setting smtp.
email = %[4]s
# http(s) URLs of RSS, Atom or JSON feeds, or of pages that link to one.
feeds = [
`, config.Quote(s.User), config.Quote(s.Zone), s.ZoneSource, config.Quote(s.User+"@localhost"), s.User, s.languageLines())
	for _, u := range s.Feeds {
		fmt.Fprintf(&b, "  %s,\n", config.Quote(strings.TrimSpace(u)))
	}
	if len(s.Feeds) == 0 {
		b.WriteString("  # \"https://go.dev/blog/feed.atom\",\n")
	}
	b.WriteString("]\n")
	return b.String()
}

// languageLines are the starter's key language: the machine's, when it
// names a language on offer, else commented out, with the languages on
// offer.
func (s starter) languageLines() string {
	var tags []string
	for _, l := range locale.Offered() {
		tags = append(tags, l.Tag)
	}
	offer := "On offer: " + strings.Join(tags, ", ") + "."
	switch {
	case s.Language != "":
		return fmt.Sprintf("# The language of your digests' own words (%s). %s\nlanguage = %s", s.LanguageFrom, offer, config.Quote(s.Language))
	case s.LanguageFrom != "":
		return fmt.Sprintf("# The language of your digests' own words, English unless you set it: the\n# machine's (%s) is not on offer. %s\n# language = \"en\"", s.LanguageFrom, offer)
	}
	return fmt.Sprintf("# The language of your digests' own words, English unless you set it.\n# %s\n# language = \"en\"", offer)
}

// machineLanguage is the language on offer that the machine's locale
// names (LC_ALL, else LC_MESSAGES, else LANG, as POSIX reads them), and
// where it was found ("LANG=fr_FR.UTF-8"); language is "" when the
// locale names none on offer, from is "" when no variable names a
// language at all.
func machineLanguage(getenv func(string) string) (language, from string) {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		tag := locale.FromEnv(v)
		if tag == "" {
			return "", "" // "C", "POSIX": no language named
		}
		from = name + "=" + v
		if l, err := locale.Match(tag); err == nil {
			return l.Tag(), from
		}
		return "", from
	}
	return "", ""
}

// nextSteps tells the user what init wrote and what to type next.
func (s starter) nextSteps(inv *invocation, cfg *config.Config) {
	w := inv.stdout
	language := "English"
	if s.Language != "" {
		language = fmt.Sprintf("language %s (from %s)", s.Language, s.LanguageFrom)
	}
	fmt.Fprintf(w, "Wrote %s: user %q, time zone %s (%s), %s, %s.\n", inv.opts.config, s.User, s.Zone, s.ZoneSource, language, english.Count(len(s.Feeds), "feed"))
	if len(s.Private) > 0 {
		fmt.Fprintf(w, "allow_private_networks = true: %s is on this machine or a private network.\n", s.Private[0])
	}
	arg := ""
	if inv.configGiven {
		arg = " " + inv.opts.config
	}
	fmt.Fprintln(w, "\nNext:")
	if len(s.Feeds) == 0 {
		fmt.Fprintf(w, "  add your feeds to feeds = [...] in %s (or: %s import -user %s FILE.opml)\n", inv.opts.config, progName, s.User)
	}
	fmt.Fprintf(w, "  %s check%s    polls each feed once and says what it found; writes nothing\n", progName, arg)
	fmt.Fprintf(w, "  %s run%s      builds your first digest now; then run it every hour\n", progName, arg)
	fmt.Fprintf(w, "\nThen read %s, and the email in %s.\n",
		relative(filepath.Join(cfg.SiteDir, s.User, "index.html")), relative(cfg.Email.Outbox)+string(filepath.Separator))
}

// relative shortens path to one relative to the working folder when it is
// inside it.
func relative(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// loginName is the user's login as a config user name, or "me".
func loginName() string {
	u, err := user.Current()
	if err != nil {
		return userName("")
	}
	return userName(u.Username)
}

// userName turns a login ("Ada.Lovelace", `CORP\ada`) into a name the
// config accepts ([a-z0-9-]+): lower case, other characters as "-".
func userName(login string) string {
	if i := strings.LastIndexAny(login, `\/`); i >= 0 {
		login = login[i+1:] // Windows: DOMAIN\user
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(login) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	name := b.String()
	if len(name) > config.MaxUserName {
		name = strings.TrimRight(name[:config.MaxUserName], "-")
	}
	if name == "" {
		return "me"
	}
	return name
}

// machineZone names the machine's IANA time zone, and where it was found:
// the TZ variable, else the zone /etc/localtime links to, else
// /etc/timezone (Debian), else UTC.
func machineZone(getenv func(string) string, localtime, timezoneFile string) (zone, source string) {
	if tz := getenv("TZ"); tz != "" {
		if name, ok := ianaName(strings.TrimPrefix(tz, ":")); ok {
			return name, "from TZ"
		}
	}
	if target, err := os.Readlink(localtime); err == nil {
		if name, ok := ianaName(target); ok {
			return name, "from " + localtime
		}
	}
	if b, err := os.ReadFile(timezoneFile); err == nil {
		if name, ok := ianaName(strings.TrimSpace(string(b))); ok {
			return name, "from " + timezoneFile
		}
	}
	return "UTC", "the machine names none: change it unless you live on UTC"
}

// ianaName finds the IANA name in s ("Europe/Paris", or a path to a zone
// file such as /usr/share/zoneinfo/Europe/Paris) and checks that Go knows
// it.
func ianaName(s string) (string, bool) {
	if i := strings.LastIndex(s, "zoneinfo/"); i >= 0 {
		s = s[i+len("zoneinfo/"):]
		s = strings.TrimPrefix(strings.TrimPrefix(s, "posix/"), "right/")
	}
	if s == "" || s == "Local" || strings.HasPrefix(s, "/") {
		return "", false
	}
	if _, err := time.LoadLocation(s); err != nil {
		return "", false
	}
	return s, true
}

// onThisNetwork: the feed's host is this machine or a private network by
// name or address, so polling it needs allow_private_networks.
func onThisNetwork(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()
}
