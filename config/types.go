// Package config reads and validates feeddigest's TOML configuration.
package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"feeddigest/locale"
	"feeddigest/rules"
)

// Config is a loaded, validated configuration. Paths are absolute,
// resolved against the folder of the config file.
type Config struct {
	Path      string        // absolute path of the config file
	Dir       string        // folder of the config file
	State     string        // SQLite file, absolute, or a postgres:// URL as written (key "state", default "state.db")
	SiteDir   string        // output folder (key "site_dir", default "site")
	SiteURL   string        // optional absolute http(s) URL ending in "/" (key "site_url")
	Retention time.Duration // key "retention", default 60 days; e.g. "60d", "1440h"
	Intro     string        // optional Markdown shown atop every digest (key "intro")
	// Language is the key language as written (a BCP 47 tag, "" when
	// unset), Lang the language on offer it matches: the digests' own
	// words for the users who choose none. English when unset.
	Language string
	Lang     *locale.Locale
	Fetch    Fetch
	Email    Email
	Users    []User
	// MaxEntriesPerFeed is how many of a feed's entries a digest lists
	// (key "max_entries_per_feed", default 50); it says how many more
	// there are and links to the feed's site.
	MaxEntriesPerFeed int
	// Warnings are problems that do not stop a run (a user without
	// feeds), worded like errors; commands print them on stderr.
	Warnings []string
	// source is the document, for the warnings that polls find
	// (SameFeeds); nil for a Config made in code.
	source *source
}

// Fetch is the [fetch] table.
type Fetch struct {
	Concurrency          int           // default 16, 1..1024
	PerHost              int           // default 2, 1..64
	HostRate             float64       // requests/second per host, default 1.0, > 0
	Timeout              time.Duration // default 30s, > 0
	MaxBody              int64         // bytes, default 10 MB ("10MB"); accepts B, KB, MB, GB, KiB, MiB, GiB
	AllowPrivateNetworks bool          // default false
	Contact              string        // URL or mailto for the User-Agent; optional
	Head                 HeadMode      // default HeadAuto
	StartDelayMin        time.Duration // from start_delay: "0s" (default), "2m", or a range "1m-3m"
	StartDelayMax        time.Duration
	HintCap              time.Duration // key "hint_cap", default 7 days: longest a publisher hint may defer a poll
}

// HeadMode is the key fetch.head: when a conditional HEAD precedes a GET.
type HeadMode string

const (
	HeadAuto   HeadMode = "auto"   // only where it can save a body
	HeadAlways HeadMode = "always" // before every GET
)

// Email is the [email] table.
type Email struct {
	From   string      // RFC 5322 address, e.g. "Digest <digest@example.org>"; required when outbox or smtp is set
	Outbox string      // absolute folder, "" when unset
	SMTP   *SMTPServer // key "smtp"; nil when unset
	TLS    TLSMode     // key "tls" as written; "" (unset) means TLSStartTLS
	// TLSCA is the key "tls_ca", resolved against the config's folder:
	// a PEM file of certificates the server's must verify against instead
	// of the system's roots (a relay's own, self-signed). "" when unset.
	TLSCA string
	// Unsubscribe is the key "unsubscribe": a mailto: or https: address
	// the operator handles to stop a user's digests, named in each
	// email's List-Unsubscribe header; "{user}" in it stands for the
	// user's name (see UnsubscribeFor). "" when unset.
	Unsubscribe string
	// SkipEmpty is the key "skip_empty" (default false): a digest with
	// nothing new, no feed that could not be read and no feed change is
	// not mailed (its page is still written).
	SkipEmpty bool
}

// UnsubscribeFor is the List-Unsubscribe address of user's digests: the
// key unsubscribe with "{user}" replaced by the user's name; "" when unset.
func (e Email) UnsubscribeFor(user string) string {
	return strings.ReplaceAll(e.Unsubscribe, "{user}", user)
}

// TLSMode is the key email.tls: how an smtp:// server is spoken to
// (smtps:// is always TLS).
type TLSMode string

const (
	TLSStartTLS      TLSMode = "starttls"      // refuse to send unless the server offers STARTTLS and its certificate verifies
	TLSImplicit      TLSMode = "tls"           // TLS from the first byte, verified (as smtps://; port 465 unless given)
	TLSOpportunistic TLSMode = "opportunistic" // STARTTLS when offered, unverified; a login only over it
	TLSNone          TLSMode = "none"          // plain text, e.g. a relay on this machine
)

// SMTPServer is the parsed key email.smtp, "smtp://user@host:587" or
// "smtps://user@host:465". The password is never part of it: it comes
// from the environment (FEEDDIGEST_SMTP_PASSWORD).
type SMTPServer struct {
	Host        string
	Port        int    // 587 for smtp://, 465 for smtps:// unless given
	User        string // "" when the server takes mail without a login
	ImplicitTLS bool   // smtps://: TLS from the first byte rather than STARTTLS
}

// String gives the server as a URL, for messages.
func (s SMTPServer) String() string {
	scheme, user := "smtp", ""
	if s.ImplicitTLS {
		scheme = "smtps"
	}
	if s.User != "" {
		user = s.User + "@"
	}
	return fmt.Sprintf("%s://%s%s", scheme, user, net.JoinHostPort(s.Host, strconv.Itoa(s.Port)))
}

// User is one [[users]] entry.
type User struct {
	Name       string         // [a-z0-9][a-z0-9-]*, unique
	Timezone   string         // IANA name as written
	Location   *time.Location // loaded from Timezone
	Email      string         // optional
	DigestHour int            // 0..23, default 0
	Every      Rhythm         // key "every": Daily (default) or Weekly
	DigestDay  time.Weekday   // key "digest_day", a weekly user's day; default Monday
	Intro      string         // optional per-user Markdown (key "intro")
	// Language is the user's key language as written ("" when unset),
	// Lang the language of their digests: theirs, else the top-level
	// one, else English. Never nil.
	Language string
	Lang     *locale.Locale
	Feeds    []Subscription // in config order, each URL once (the first wins); never nil
	Rules    rules.Set      // keys "mute" and "keep": the user's rules, for every feed of theirs
	// FullEntries (key full_entries) is how many of a feed's entries a
	// digest shows in full (the rest as a compact list of titles), and how
	// many a poll of a full_text feed fetches whole.
	FullEntries int
}

// DefaultFullEntries is full_entries when unset; MaxFullEntries bounds it.
const (
	DefaultFullEntries = 10
	MaxFullEntries     = 1000
)

// Rhythm is the key users.every: how often a user gets a digest.
type Rhythm string

const (
	Daily  Rhythm = "day"  // a digest every day at digest_hour
	Weekly Rhythm = "week" // a digest every digest_day at digest_hour; feeds still polled daily
)

// Defaults of a user's rhythm.
const (
	DefaultEvery     = Daily
	DefaultDigestDay = time.Monday
)

// Subscription is one item of a user's feeds: a URL, or a table
// { url = "...", title = "...", folder = "..." }.
type Subscription struct {
	URL    string // absolute http(s) URL, as written
	Title  string // replaces the feed's own name in digests; "" when unset
	Folder string // groups feeds under a heading; "" when unset
	// Rules are the keys "mute" and "keep" of the table: the feed's
	// rules, for every subscriber who writes them; nil when none (a
	// pointer keeps Subscription comparable).
	Rules *rules.Set
	// FullText fetches each new entry's page for its article (key
	// full_text); FullEntries replaces the user's full_entries (0: unset).
	FullText    bool
	FullEntries int
}

// ArticlesAPoll is how many new entries' pages a poll of the feed fetches
// for this subscriber: 0 unless full_text.
func (s Subscription) ArticlesAPoll(u User) int {
	if !s.FullText {
		return 0
	}
	return s.ShownInFull(u)
}

// ShownInFull is how many of the feed's entries u's digest shows in full:
// the feed's full_entries, else the user's.
func (s Subscription) ShownInFull(u User) int {
	if s.FullEntries > 0 {
		return s.FullEntries
	}
	return u.FullEntries
}

// FeedURLs returns the URLs of the user's feeds, in config order.
func (u User) FeedURLs() []string {
	urls := make([]string, len(u.Feeds))
	for i, f := range u.Feeds {
		urls[i] = f.URL
	}
	return urls
}
