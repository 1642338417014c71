// Package config reads and validates feeddigest's TOML configuration.
package config

import "time"

// Config is a loaded, validated configuration. Paths are absolute,
// resolved against the folder of the config file.
type Config struct {
	Path      string        // absolute path of the config file
	Dir       string        // folder of the config file
	State     string        // SQLite file (key "state", default "state.db")
	SiteDir   string        // output folder (key "site_dir", default "site")
	SiteURL   string        // optional absolute http(s) URL ending in "/" (key "site_url")
	Retention time.Duration // key "retention", default 60 days; e.g. "60d", "1440h"
	Intro     string        // optional Markdown shown atop every digest (key "intro")
	Fetch     Fetch
	Email     Email
	Users     []User
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
	Head                 string        // "auto" (default) or "always"
	StartDelayMin        time.Duration // from start_delay: "0s" (default), "2m", or a range "1m-3m"
	StartDelayMax        time.Duration
	HintCap              time.Duration // key "hint_cap", default 7 days: longest a publisher hint may defer a poll
}

// Email is the [email] table.
type Email struct {
	From   string // RFC 5322 address, e.g. "Digest <digest@example.org>"; required when outbox or smtp is set
	Outbox string // absolute folder, "" when unset
	SMTP   string // "smtp://user@host:587" or "smtps://user@host:465"; "" when unset
	TLS    string // key "tls": "starttls" (default: required), "opportunistic", or "none" (plain, e.g. a local relay)
}

// User is one [[users]] entry.
type User struct {
	Name       string         // [a-z0-9-]+, unique
	Timezone   string         // IANA name as written
	Location   *time.Location // loaded from Timezone
	Email      string         // optional
	DigestHour int            // 0..23, default 0
	Intro      string         // optional per-user Markdown (key "intro")
	Feeds      []string       // http(s) URLs, duplicates removed, order kept
}
