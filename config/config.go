package config

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	// Embed the time zone database so that user time zones load the same
	// everywhere, also on hosts and containers without /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/BurntSushi/toml"

	"feeddigest/domain"
	"feeddigest/internal/english"
	"feeddigest/locale"
)

// Defaults of the optional keys.
const (
	DefaultState       = "state.db"
	DefaultSiteDir     = "site"
	DefaultRetention   = 60 * day
	DefaultConcurrency = 16
	DefaultPerHost     = 2
	DefaultHostRate    = 1.0
	DefaultTimeout     = 30 * time.Second
	DefaultMaxBody     = 10 * 1000 * 1000 // "10MB"
	DefaultHead        = HeadAuto
	DefaultHintCap     = 7 * day

	DefaultMaxEntriesPerFeed = 50
)

// Limits checked by validation.
const (
	MaxConcurrency = 1024
	MaxPerHost     = 64
	MaxHostRate    = 1000.0
	MaxUserName    = 64 // bytes; the name is used in file names

	MaxEntriesPerFeed = 10000
)

var userNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// The document as the toml package decodes it. Every key is a value[T],
// and tables are toml.Primitive, decoded one by one: a key or table of
// the wrong type is then one problem among the others, all reported at
// once, instead of the end of decoding.
type (
	document struct {
		State     value[string]  `toml:"state"`
		SiteDir   value[string]  `toml:"site_dir"`
		SiteURL   value[string]  `toml:"site_url"`
		Retention value[string]  `toml:"retention"`
		Intro     value[string]  `toml:"intro"`
		Language  value[string]  `toml:"language"`
		PerFeed   value[int64]   `toml:"max_entries_per_feed"`
		Fetch     toml.Primitive `toml:"fetch"`
		Email     toml.Primitive `toml:"email"`
		Users     toml.Primitive `toml:"users"`
	}
	fetchTable struct {
		Concurrency          value[int64]   `toml:"concurrency"`
		PerHost              value[int64]   `toml:"per_host"`
		HostRate             value[float64] `toml:"host_rate"`
		Timeout              value[string]  `toml:"timeout"`
		MaxBody              value[any]     `toml:"max_body"`
		AllowPrivateNetworks value[bool]    `toml:"allow_private_networks"`
		Contact              value[string]  `toml:"contact"`
		Head                 value[string]  `toml:"head"`
		StartDelay           value[string]  `toml:"start_delay"`
		HintCap              value[string]  `toml:"hint_cap"`
	}
	emailTable struct {
		From   value[string] `toml:"from"`
		Outbox value[string] `toml:"outbox"`
		SMTP   value[string] `toml:"smtp"`
		TLS    value[string] `toml:"tls"`
		TLSCA  value[string] `toml:"tls_ca"`
		Unsub  value[string] `toml:"unsubscribe"`
		Skip   value[bool]   `toml:"skip_empty"`
	}
	userTable struct {
		Name       value[string] `toml:"name"`
		Timezone   value[string] `toml:"timezone"`
		Email      value[string] `toml:"email"`
		DigestHour value[int64]  `toml:"digest_hour"`
		Every      value[string] `toml:"every"`
		DigestDay  value[string] `toml:"digest_day"`
		Intro      value[string] `toml:"intro"`
		Language   value[string] `toml:"language"`
		Feeds      value[any]    `toml:"feeds"` // URLs and tables, checked by hand
		Mute       value[any]    `toml:"mute"`  // rules, checked by hand
		Keep       value[any]    `toml:"keep"`
		Full       value[int64]  `toml:"full_entries"`
	}
)

// The keys of each table. The toml package matches keys to fields
// case-insensitively (and then counts "Timeout" as decoded), so unknown
// keys are found by comparing MetaData.Keys() with these.
var (
	topKeys   = keysOf(document{})
	fetchKeys = keysOf(fetchTable{})
	emailKeys = keysOf(emailTable{})
	userKeys  = keysOf(userTable{})
	feedKeys  = []string{"url", "title", "folder", "mute", "keep", "full_text", "full_entries"}
	tables    = map[string][]string{"": topKeys, "fetch": fetchKeys, "email": emailKeys, "users": userKeys, "users.feeds": feedKeys}
)

func keysOf(table any) []string {
	var keys []string
	for f := range reflect.TypeOf(table).Fields() {
		keys = append(keys, f.Tag.Get("toml"))
	}
	return keys
}

// value is one key's value as the document holds it. The toml package
// hands it over whatever its type; get checks the type.
type value[T any] struct {
	v   T
	raw any // nil when the key is absent
}

func (f *value[T]) UnmarshalTOML(v any) error {
	if n, isInt := v.(int64); isInt {
		if _, wantFloat := any(f.v).(float64); wantFloat {
			v = float64(n) // host_rate = 2
		}
	}
	f.raw = v
	f.v, _ = v.(T)
	return nil
}

// Load reads, parses and validates the configuration file at path. It never
// creates or modifies a file. On a bad configuration the error lists every
// problem found, one per line, each naming the file, the key or user at
// fault and, where known, the line.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path)
}

// Parse parses and validates a configuration held in memory. path names the
// file in messages, and relative paths in the configuration resolve against
// its folder (the working directory when path is "").
func Parse(data []byte, path string) (*Config, error) {
	name := path
	if name == "" {
		name = "config"
	}
	c := &Config{}
	dir, err := filepath.Abs(filepath.Dir(path))
	if path != "" {
		c.Path, err = filepath.Abs(path)
		dir = filepath.Dir(c.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c.Dir = dir

	var doc document
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		var pe toml.ParseError
		msg := name + ": " + domain.OneLine(err.Error())
		if errors.As(err, &pe) {
			msg = fmt.Sprintf("%s: TOML syntax error: %s (line %d, column %d)", name, domain.OneLine(pe.Message), pe.Position.Line, pe.Position.Col)
		}
		return nil, &Error{Problems: []string{msg}}
	}
	c.source = &source{name: name, text: string(data), users: map[string]writtenUser{}}
	p := &parser{doc: c.source, md: md, c: c, zones: map[string]*time.Location{}}
	p.unknownKeys()
	p.top(&doc)
	if len(p.errs) > 0 {
		return nil, newError(p.errs)
	}
	c.Warnings = p.warnings
	return c, nil
}

// User returns the user with the given name.
func (c *Config) User(name string) (*User, bool) {
	for i := range c.Users {
		if c.Users[i].Name == name {
			return &c.Users[i], true
		}
	}
	return nil, false
}

// AllFeeds returns the union of all users' feed URLs, each once, in the
// order of the config (users in order, each user's feeds in order): the
// order its writer finds them in.
func (c *Config) AllFeeds() []string {
	var all []string
	seen := map[string]bool{}
	for _, u := range c.Users {
		for _, url := range u.FeedURLs() {
			if !seen[url] {
				seen[url] = true
				all = append(all, url)
			}
		}
	}
	return all
}

// parser turns the decoded document into a Config, collecting problems.
type parser struct {
	doc *source
	md  toml.MetaData
	// zones are the time zones loaded so far: thousands of users share a
	// few dozen, each read from disk once.
	zones map[string]*time.Location
	// plainURLs are the feed URLs found fine so far, each with its
	// normalised form: users share feeds, and a config of thousands of
	// users names each several times.
	plainURLs map[string]string
	c         *Config
	errs      []problem
	warnings  []string
}

// errorf records a problem. at is the indexed key path it concerns (for
// the line); the message names the key, user or value at fault.
func (p *parser) errorf(at, format string, args ...any) {
	msg, line := p.message(at, format, args...)
	p.errs = append(p.errs, problem{line, msg})
}

func (p *parser) warnf(at, format string, args ...any) {
	msg, _ := p.message(at, format, args...)
	p.warnings = append(p.warnings, msg)
}

func (p *parser) message(at, format string, args ...any) (string, int) {
	return p.doc.message(at, format, args...)
}

// zone loads the time zone named tz, once per document.
func (p *parser) zone(tz string) (*time.Location, error) {
	if loc, ok := p.zones[tz]; ok {
		return loc, nil
	}
	loc, err := time.LoadLocation(tz)
	if err == nil {
		p.zones[tz] = loc
	}
	return loc, err
}

func (p *parser) locator() *locator { return p.doc.locator() }

// unknownKeys reports, in document order, each key that is not one of
// its table's, once (not the keys below it).
func (p *parser) unknownKeys() {
	keys := p.md.Keys()
	var paths [][]string // scanned at the first unknown key
	reported := map[string]bool{}
	for i, k := range keys {
		for j := range k {
			known, ours := tables[k[:j].String()]
			if !ours {
				break // below a key that is not a table: reported as a type error
			}
			if slices.Contains(known, k[j]) {
				continue
			}
			if paths == nil {
				paths = p.locator().paths(keys)
			}
			path := strings.Join(paths[i][:j+1], ".")
			if !reported[path] {
				reported[path] = true
				hint := ""
				if s := english.Closest(k[j], known); s != "" {
					hint = fmt.Sprintf("; did you mean %q?", s)
				}
				at := path
				if p.locator().line(at) == 0 { // a dotted key: "fetcher.x = 1"
					at = strings.Join(paths[i], ".")
				}
				p.errorf(at, "unknown key %q%s", path, hint)
			}
			break
		}
	}
}

// tomlType names the TOML type of a decoded value for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return fmt.Sprintf("string %q", v)
	case int64, float64, bool:
		return fmt.Sprintf("%s %v", map[string]string{"int64": "integer", "float64": "float", "bool": "boolean"}[fmt.Sprintf("%T", v)], v)
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	}
	return "a date-time" // the only other TOML type
}

// get returns a key's value; ok is false when the key is absent or of
// the wrong type (reported).
func get[T any](p *parser, f value[T], path string) (v T, ok bool) {
	if f.raw == nil {
		return f.v, false
	}
	if _, ok := f.raw.(T); !ok {
		want := map[string]string{"string": "a string", "int64": "an integer", "float64": "a number", "bool": "true or false"}[fmt.Sprintf("%T", f.v)]
		p.errorf(path, "%s: want %s, got %s", path, want, tomlType(f.raw))
		return f.v, false
	}
	return f.v, true
}

// parsed reads a string key through parse; a failure is reported as
// "path: error".
func parsed[V any](p *parser, f value[string], path string, parse func(string) (V, error)) (V, bool) {
	s, ok := get(p, f, path)
	if !ok {
		var zero V
		return zero, false
	}
	v, err := parse(s)
	if err != nil {
		p.errorf(path, "%s: %v", path, err)
	}
	return v, err == nil
}

// table decodes a table into t; false (reported) when key is not one.
func (p *parser) table(prim toml.Primitive, key string, t any) bool {
	if err := p.md.PrimitiveDecode(prim, t); err != nil {
		var raw any
		p.md.PrimitiveDecode(prim, &raw)
		p.errorf(key, "%s: want a table, got %s", key, tomlType(raw))
		return false
	}
	return true
}

// duration reads an optional duration (see ParseDuration) that must be > 0.
func (p *parser) duration(f value[string], path string, def time.Duration) time.Duration {
	d, ok := parsed(p, f, path, func(s string) (time.Duration, error) {
		d, err := ParseDuration(s)
		if err == nil && d <= 0 {
			err = fmt.Errorf("must be longer than zero, got %q", s)
		}
		return d, err
	})
	if !ok {
		return def
	}
	return d
}

// integer reads an optional integer in [lo, hi]; what names it in messages.
func (p *parser) integer(f value[int64], path, what string, lo, hi, def int) int {
	n, ok := get(p, f, path)
	if !ok {
		return def
	}
	if n < int64(lo) || n > int64(hi) {
		p.errorf(path, "%s: must be %d to %d, got %d", what, lo, hi, n)
		return def
	}
	return int(n)
}

// folder reads a path key that may not be empty, resolved against the
// config's folder.
func (p *parser) folder(f value[string], key, def string) string {
	s, ok := get(p, f, key)
	if ok && strings.TrimSpace(s) == "" {
		p.errorf(key, "%s: must not be empty (default %q)", key, def)
	}
	if !ok || strings.TrimSpace(s) == "" {
		s = def
	}
	return p.resolve(s)
}

// resolve makes a configured path absolute against the config's folder.
func (p *parser) resolve(s string) string {
	if filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return filepath.Join(p.c.Dir, s)
}

// state reads the state key: an SQLite file, resolved against the
// config's folder, or a PostgreSQL URL, kept as written. The database's
// password never comes from the config file (which is often committed,
// or shown): pgx reads it from PGPASSWORD or ~/.pgpass.
func (p *parser) state(f value[string]) string {
	s, ok := get(p, f, "state")
	if !ok || !IsPostgresURL(s) {
		return p.folder(f, "state", DefaultState)
	}
	if err := CheckPostgresURL(s); err != nil {
		p.errorf("state", "state: %v", err)
	}
	return s
}

// CheckPostgresURL checks a PostgreSQL URL given for the state: it must
// parse, and carry no password. Messages never quote the URL, which may
// hold one.
func CheckPostgresURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || !IsPostgresURL(s) {
		return errors.New("not a valid PostgreSQL URL (want postgres://user@host:port/database?sslmode=...)")
	}
	_, set := u.User.Password()
	for key := range u.Query() {
		set = set || strings.EqualFold(key, "password")
	}
	if set {
		return errors.New("the PostgreSQL URL must not carry a password; remove it and set PGPASSWORD or use ~/.pgpass")
	}
	return nil
}

// IsPostgresURL says whether a state setting names a PostgreSQL database
// (postgres:// or postgresql://) rather than an SQLite file.
func IsPostgresURL(state string) bool {
	lower := strings.ToLower(state)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// StateIsPostgres says whether the state is a PostgreSQL database.
func (c *Config) StateIsPostgres() bool { return IsPostgresURL(c.State) }

func (p *parser) top(d *document) {
	c := p.c
	c.State = p.state(d.State)
	c.SiteDir = p.folder(d.SiteDir, "site_dir", DefaultSiteDir)
	c.SiteURL, _ = parsed(p, d.SiteURL, "site_url", siteURL)
	c.Retention = p.duration(d.Retention, "retention", DefaultRetention)
	c.Intro, _ = get(p, d.Intro, "intro")
	c.Language, c.Lang = p.language(d.Language, "language", "language", locale.English())
	c.MaxEntriesPerFeed = p.integer(d.PerFeed, "max_entries_per_feed", "max_entries_per_feed", 1, MaxEntriesPerFeed, DefaultMaxEntriesPerFeed)
	p.fetch(d.Fetch)
	p.email(d.Email)
	p.users(d.Users)
}

// siteURL checks site_url and gives it a trailing "/"; "" is unset.
func siteURL(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	u, err := httpURL(s)
	if err != nil {
		return "", err
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q must not have a query or fragment", s)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u.String(), nil
}

func (p *parser) fetch(prim toml.Primitive) {
	f := &p.c.Fetch
	*f = Fetch{HostRate: DefaultHostRate, MaxBody: DefaultMaxBody, Head: DefaultHead}
	var t fetchTable
	p.table(prim, "fetch", &t)
	f.Concurrency = p.integer(t.Concurrency, "fetch.concurrency", "fetch.concurrency", 1, MaxConcurrency, DefaultConcurrency)
	f.PerHost = p.integer(t.PerHost, "fetch.per_host", "fetch.per_host", 1, MaxPerHost, DefaultPerHost)
	f.Timeout = p.duration(t.Timeout, "fetch.timeout", DefaultTimeout)
	f.HintCap = p.duration(t.HintCap, "fetch.hint_cap", DefaultHintCap)
	f.AllowPrivateNetworks, _ = get(p, t.AllowPrivateNetworks, "fetch.allow_private_networks")

	if rate, ok := get(p, t.HostRate, "fetch.host_rate"); ok && !(rate > 0 && rate <= MaxHostRate) {
		p.errorf("fetch.host_rate", "fetch.host_rate: must be above 0 and at most %g, got %v", MaxHostRate, rate)
	} else if ok {
		f.HostRate = rate
	}
	var size int64
	var err error
	switch v := t.MaxBody.raw.(type) {
	case nil:
		size = DefaultMaxBody
	case string:
		size, err = ParseSize(v)
	case int64:
		size = v
	default:
		err = fmt.Errorf("want a size like \"10MB\", got %s", tomlType(v))
	}
	switch {
	case err != nil:
		p.errorf("fetch.max_body", "fetch.max_body: %v", err)
	case size <= 0:
		p.errorf("fetch.max_body", "fetch.max_body: must be more than 0 bytes, got %v", t.MaxBody.raw)
	default:
		f.MaxBody = size
	}
	f.Contact, _ = parsed(p, t.Contact, "fetch.contact", contact)
	if mode, ok := parsed(p, t.Head, "fetch.head", func(s string) (HeadMode, error) {
		if mode := HeadMode(s); mode == HeadAuto || mode == HeadAlways {
			return mode, nil
		}
		return "", fmt.Errorf("must be %q or %q, got %q", HeadAuto, HeadAlways, s)
	}); ok {
		f.Head = mode
	}
	delay, _ := parsed(p, t.StartDelay, "fetch.start_delay", func(s string) (d [2]time.Duration, err error) {
		d[0], d[1], err = parseStartDelay(s)
		return d, err
	})
	f.StartDelayMin, f.StartDelayMax = delay[0], delay[1]
}

// httpURL parses an absolute http(s) URL with a host.
func httpURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q", s)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q is not an absolute http:// or https:// URL", s)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, fmt.Errorf("URL %q has no host", s)
	}
	return u, nil
}

// contact checks fetch.contact, an http(s) or mailto: URL; "" is unset.
func contact(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, " \t\r\n") {
		return "", fmt.Errorf("%q must not contain spaces", s)
	}
	if strings.HasPrefix(strings.ToLower(s), "mailto:") {
		u, err := url.Parse(s)
		if err != nil || u.Opaque == "" {
			return "", fmt.Errorf("invalid mailto URL %q", s)
		}
		addr, _, _ := strings.Cut(u.Opaque, "?")
		if _, err := mail.ParseAddress(addr); err != nil {
			return "", fmt.Errorf("invalid address in %q", s)
		}
	} else if _, err := httpURL(s); err != nil && s != "" {
		return "", fmt.Errorf("%q must be an absolute http(s) URL or a mailto: URL", s)
	}
	return s, nil
}

func (p *parser) email(prim toml.Primitive) {
	var t emailTable
	if !p.table(prim, "email", &t) {
		return
	}
	e := &p.c.Email
	from, fromOK := get(p, t.From, "email.from")
	outbox, _ := get(p, t.Outbox, "email.outbox")
	smtp, _ := get(p, t.SMTP, "email.smtp")
	from, outbox, smtp = strings.TrimSpace(from), strings.TrimSpace(outbox), strings.TrimSpace(smtp)
	// Unset, TLS stays "" (TLSStartTLS), so that an absent [email] stays zero.
	e.TLS, _ = parsed(p, t.TLS, "email.tls", func(s string) (TLSMode, error) {
		if mode := TLSMode(strings.TrimSpace(s)); slices.Contains([]TLSMode{"", TLSStartTLS, TLSImplicit, TLSOpportunistic, TLSNone}, mode) {
			return mode, nil
		}
		return "", fmt.Errorf("%q is not one of %q, %q, %q, %q", s, TLSStartTLS, TLSImplicit, TLSOpportunistic, TLSNone)
	})
	e.TLSCA, _ = parsed(p, t.TLSCA, "email.tls_ca", func(s string) (string, error) {
		if s = strings.TrimSpace(s); s == "" {
			return "", nil
		}
		return p.resolve(s), readCertificates(p.resolve(s))
	})
	if outbox != "" {
		e.Outbox = p.resolve(outbox)
	}
	e.SMTP, _ = parsed(p, t.SMTP, "email.smtp", func(s string) (*SMTPServer, error) {
		if strings.TrimSpace(s) == "" {
			return nil, nil // unset
		}
		srv, err := parseSMTP(s)
		if err == nil && e.TLS == TLSImplicit {
			srv.implicit(s)
		}
		return srv, err
	})
	if e.TLSCA != "" && (e.TLS == TLSNone || e.TLS == TLSOpportunistic) {
		p.errorf("email.tls_ca", "email.tls_ca: %q verifies no certificate with email.tls = %q; use %q (or %q) to have the relay's certificate checked against it, or drop tls_ca",
			e.TLSCA, e.TLS, TLSStartTLS, TLSImplicit)
	}
	if srv := e.SMTP; srv != nil && e.TLS == TLSNone && srv.User != "" && !srv.ImplicitTLS {
		p.errorf("email.tls", "email.tls: %q cannot be used with a user name in email.smtp (%q): a password is never sent unencrypted, so no login could succeed; use %q, or drop the user for a relay that needs no login",
			TLSNone, srv.User, TLSStartTLS)
	}
	e.Unsubscribe, _ = parsed(p, t.Unsub, "email.unsubscribe", unsubscribeAddress)
	e.SkipEmpty, _ = get(p, t.Skip, "email.skip_empty")
	fromPresent := t.From.raw != nil
	switch {
	case from != "":
		if _, err := mail.ParseAddress(from); err != nil {
			p.errorf("email.from", "email.from: invalid address %q", from)
		} else {
			e.From = from
		}
	case (outbox != "" || smtp != "") && (fromOK || !fromPresent):
		at := "email"
		if fromPresent {
			at = "email.from"
		}
		p.errorf(at, "email.from: required when email.outbox or email.smtp is set (e.g. \"Digest <digest@example.org>\")")
	}
}

// unsubscribeAddress checks the key email.unsubscribe: a mailto: URL with
// an address, or an https: URL, that fits in a header between angle
// brackets once "{user}" is replaced by a user's name; "" is unset.
func unsubscribeAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	const want = `want a mailto: or https: address that you handle, e.g. "mailto:unsubscribe@example.org?subject=unsubscribe%20{user}" or "https://example.org/unsubscribe?user={user}"`
	sample := strings.ReplaceAll(s, "{user}", "ada")
	if strings.ContainsAny(sample, " \t<>\"{}") {
		return "", fmt.Errorf("%q has a space, a quote, angle brackets or braces other than {user}; %s", s, want)
	}
	u, err := url.Parse(sample)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL; %s", s, want)
	}
	switch strings.ToLower(u.Scheme) {
	case "mailto":
		to, _, _ := strings.Cut(u.Opaque, "?")
		if addr, err := url.PathUnescape(to); err != nil || to == "" || !validAddress(addr) {
			return "", fmt.Errorf("%q names no valid address after mailto:; %s", s, want)
		}
	case "https":
		if u.Host == "" {
			return "", fmt.Errorf("%q names no host; %s", s, want)
		}
	case "http":
		return "", fmt.Errorf("%q is not https: mail clients send one-click unsubscribes only over https; %s", s, want)
	default:
		return "", fmt.Errorf("%q is not a mailto: or https: address; %s", s, want)
	}
	return s, nil
}

func validAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && strings.Contains(a.Address, "@")
}

// implicit makes an smtp:// server speak TLS from the first byte, as
// email.tls = "tls" asks, on port 465 unless the URL gives one.
func (srv *SMTPServer) implicit(raw string) {
	if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.Port() == "" {
		srv.Port = 465
	}
	srv.ImplicitTLS = true
}

// readCertificates checks that file holds at least one PEM certificate
// that parses: a tls_ca that cannot be read is found when the config is,
// not at the first send.
func readCertificates(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("cannot read the certificate file: %w", err)
	}
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			return fmt.Errorf("%s holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\"); want the relay's certificate, e.g. /etc/exim4/exim.crt or /etc/ssl/certs/ssl-cert-snakeoil.pem", file)
		}
		if block.Type == "CERTIFICATE" {
			if _, err := x509.ParseCertificate(block.Bytes); err != nil {
				return fmt.Errorf("%s: the certificate does not parse: %w", file, err)
			}
			return nil
		}
	}
}

// parseSMTP parses the smtp URL. Its messages quote no more of it than
// the scheme and host: user info, a path or a query may hold a password,
// and so may an opaque part when "//" is missing ("smtp:user:pw@host").
func parseSMTP(s string) (*SMTPServer, error) {
	const want = "want smtp://user@host:port or smtps://user@host:port"
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("invalid smtp URL (%s)", want)
	}
	if _, has := u.User.Password(); has {
		return nil, errors.New("the smtp URL contains a password: remove it and set FEEDDIGEST_SMTP_PASSWORD instead")
	}
	srv := &SMTPServer{Host: u.Hostname(), Port: 587, User: u.User.Username()}
	shown := u.Scheme + "://" + u.Host
	if u.Opaque != "" {
		shown = u.Scheme + ":..."
	}
	switch {
	case u.Scheme == "smtps":
		srv.Port, srv.ImplicitTLS = 465, true
	case u.Scheme != "smtp":
		return nil, fmt.Errorf("smtp URL %q must start with smtp:// or smtps://", shown)
	}
	switch ps := u.Port(); {
	case u.Opaque != "":
		return nil, fmt.Errorf("smtp URL %q has no \"//\" after %q (%s)", shown, u.Scheme+":", want)
	case srv.Host == "":
		return nil, fmt.Errorf("smtp URL %q has no host (%s)", shown, want)
	case ps == "" && strings.HasSuffix(u.Host, ":"):
		return nil, fmt.Errorf("smtp URL %q has an empty port", shown)
	case ps != "":
		if srv.Port, err = strconv.Atoi(ps); err != nil || srv.Port < 1 || srv.Port > 65535 {
			return nil, fmt.Errorf("smtp URL %q has an invalid port", shown)
		}
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("smtp URL %q: unexpected path or query (%s)", shown, want)
	}
	return srv, nil
}

func (p *parser) users(prim toml.Primitive) {
	var items []toml.Primitive
	if err := p.md.PrimitiveDecode(prim, &items); err != nil {
		var raw any
		p.md.PrimitiveDecode(prim, &raw)
		p.errorf("users", "users: want [[users]] tables, got %s", tomlType(raw))
		return
	}
	if len(items) == 0 {
		p.errorf("users", "no [[users]]: add at least one user with a name, a timezone and feeds")
		return
	}
	seen := map[string]int{}
	for i, item := range items {
		base := fmt.Sprintf("users[%d]", i)
		var t userTable
		if !p.table(item, base, &t) {
			continue
		}
		u, ok := p.user(base, &t)
		if !ok {
			continue
		}
		if j, dup := seen[u.Name]; dup {
			p.errorf(base+".name", "%s %q: duplicate user name (also users[%d])", base, u.Name, j)
			continue
		}
		seen[u.Name] = i
		p.c.Users = append(p.c.Users, u)
	}
}

// user reads users[i] (base); ok is false when it has no usable name.
func (p *parser) user(base string, t *userTable) (u User, ok bool) {
	name, hasName := get(p, t.Name, base+".name")
	who := base // how messages name the user
	if hasName && name != "" {
		who = fmt.Sprintf("%s %q", base, name)
	}
	switch {
	case t.Name.raw == nil:
		p.errorf(base, "%s: name is required", base)
	case !hasName:
	case name == "":
		p.errorf(base+".name", "%s: name must not be empty", base)
	case !userNameRE.MatchString(name):
		p.errorf(base+".name", "%s: name %q may only contain a-z, 0-9 and -, and must start with a letter or digit", base, name)
	case len(name) > MaxUserName:
		p.errorf(base+".name", "%s: name %q is longer than %d characters", base, name, MaxUserName)
	default:
		u.Name, ok = name, true
	}

	tz, hasTZ := get(p, t.Timezone, base+".timezone")
	switch {
	case t.Timezone.raw == nil:
		p.errorf(base, "%s: timezone is required (an IANA name such as \"Europe/London\")", who)
	case !hasTZ:
	case tz == "" || tz == "Local":
		p.errorf(base+".timezone", "%s: time zone %q is not allowed: use an IANA name such as \"Europe/London\" or \"UTC\"", who, tz)
	default:
		loc, err := p.zone(tz)
		if err != nil {
			p.errorf(base+".timezone", "%s: unknown time zone %q%s", who, tz, didYouMean(suggestZones(tz, zoneNames())))
		} else {
			u.Timezone, u.Location = tz, loc
		}
	}

	if s, ok := get(p, t.Email, base+".email"); ok && strings.TrimSpace(s) != "" {
		u.Email = strings.TrimSpace(s)
		if _, err := mail.ParseAddress(u.Email); err != nil {
			p.errorf(base+".email", "%s: invalid email address %q", who, s)
		}
	}
	u.DigestHour = p.integer(t.DigestHour, base+".digest_hour", who+": digest_hour", 0, 23, 0)
	p.rhythm(base, who, t, &u)
	u.Intro, _ = get(p, t.Intro, base+".intro")
	u.Language, u.Lang = p.language(t.Language, base+".language", who+": language", p.c.Lang)
	u.FullEntries = p.integer(t.Full, base+".full_entries", who+": full_entries", 1, MaxFullEntries, DefaultFullEntries)
	var written []writtenFeed
	u.Feeds, written = p.feeds(base, who, t.Feeds.raw)
	if ok {
		p.doc.users[u.Name] = writtenUser{base: base, who: who, feeds: written}
	}
	u.Rules = p.rules(base, who, t.Mute.raw, t.Keep.raw)
	if len(u.Feeds) == 0 && ok {
		at := base + ".feeds"
		if t.Feeds.raw == nil {
			at = base
		}
		p.warnf(at, "%s has no feeds: their digests will be empty (add feed URLs to feeds)", who)
	}
	return u, ok
}

// language reads the key language at path (what names it in messages),
// a BCP 47 tag matched against the languages on offer; def when unset
// or wrong (a wrong one is an error that names the languages on offer,
// or the tag a malformed one most likely means).
func (p *parser) language(f value[string], path, what string, def *locale.Locale) (string, *locale.Locale) {
	tag, ok := get(p, f, path)
	if !ok || strings.TrimSpace(tag) == "" {
		return "", def
	}
	l, err := locale.Match(tag)
	if err != nil {
		p.errorf(path, "%s: %v", what, err)
		return tag, def
	}
	return tag, l
}

// rhythm reads a user's every and digest_day.
func (p *parser) rhythm(base, who string, t *userTable, u *User) {
	u.Every, u.DigestDay = DefaultEvery, DefaultDigestDay
	everyOK := t.Every.raw == nil
	if every, ok := get(p, t.Every, base+".every"); ok {
		switch r := Rhythm(strings.ToLower(strings.TrimSpace(every))); r {
		case Daily, Weekly:
			u.Every, everyOK = r, true
		default:
			p.errorf(base+".every", "%s: every: must be %q or %q, got %q", who, Daily, Weekly, every)
		}
	}
	day, ok := get(p, t.DigestDay, base+".digest_day")
	if !ok {
		return
	}
	if wd, known := ParseWeekday(day); known {
		u.DigestDay = wd
	} else {
		var hint []string
		if s := english.Closest(strings.ToLower(strings.TrimSpace(day)), weekdayNames()); s != "" {
			hint = []string{s}
		}
		p.errorf(base+".digest_day", "%s: digest_day: %q is not a day of the week (monday to sunday)%s", who, day, didYouMean(hint))
	}
	if everyOK && u.Every == Daily {
		// Ignored, it would leave the user waiting for a weekly digest
		// that never comes.
		p.errorf(base+".digest_day", "%s: digest_day is only for a weekly digest: add every = %q, or remove digest_day", who, Weekly)
	}
}

// ParseWeekday reads an English day name ("monday", "Mon"), in any case.
func ParseWeekday(s string) (time.Weekday, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for d := time.Sunday; d <= time.Saturday; d++ {
		name := strings.ToLower(d.String())
		if s == name || (len(s) == 3 && s == name[:3]) {
			return d, true
		}
	}
	return 0, false
}

func weekdayNames() []string {
	var names []string
	for d := time.Monday; d <= time.Saturday+1; d++ {
		names = append(names, strings.ToLower((d % 7).String()))
	}
	return names
}

// feeds reads a user's feeds: URLs and { url, title, folder } tables;
// and how each was written.
func (p *parser) feeds(base, who string, raw any) ([]Subscription, []writtenFeed) {
	var items []any
	switch v := raw.(type) {
	case nil:
	case []any:
		items = v
	case []map[string]any: // [[users.feeds]]
		for _, m := range v {
			items = append(items, m)
		}
	default:
		p.errorf(base+".feeds", "%s: feeds: want an array of URLs, got %s", who, tomlType(raw))
	}
	at := func(j int) string { return fmt.Sprintf("%s.feeds[%d]", base, j) }
	subs := make([]Subscription, 0, len(items))
	written := make([]writtenFeed, 0, len(items)) // how each of subs was written
	for j, item := range items {
		// A plain URL that is fine, nearly every item, without the
		// words that would name it in a message (a config of thousands
		// of users has a hundred thousand).
		s, ok := p.plainFeed(item)
		if !ok {
			if s, ok = p.subscription(at(j), fmt.Sprintf("%s: feeds[%d]", who, j), item); !ok {
				continue
			}
		}
		k := slices.IndexFunc(subs, func(have Subscription) bool { return have.URL == s.URL })
		switch raw := rawFeedURL(item); {
		case k < 0:
			subs = append(subs, s)
			written = append(written, writtenFeed{item: j, raw: raw})
		case (s.Title != subs[k].Title || s.Folder != subs[k].Folder) && (s.Title != "" || s.Folder != "") || s.Rules != nil:
			also := ""
			if s.Rules != nil {
				also = ", and so are its rules"
			}
			p.warnf(at(j), "%s: feeds[%d] repeats %s: the first item with that URL is kept, this one's title and folder are ignored%s", who, j, s.URL, also)
		case raw != written[k].raw:
			// The same feed written another way ("HTTP://host/x",
			// "http://host/x#top"): polled and shown once, but the
			// user may have meant another feed.
			p.warnf(at(j), "%s", sameFeed(who, writtenFeed{item: j, raw: raw}, "is the same feed as", written[k]))
		}
	}
	return subs, written
}

// rawFeedURL is the URL of an item of feeds as written, trimmed.
func rawFeedURL(item any) string {
	switch v := item.(type) {
	case string:
		return strings.TrimSpace(v)
	case map[string]any:
		s, _ := v["url"].(string)
		return strings.TrimSpace(s)
	}
	return ""
}

// subscription reads one item of feeds (at); what names it in messages.
func (p *parser) subscription(at, what string, item any) (Subscription, bool) {
	var s Subscription
	var ok bool
	switch v := item.(type) {
	case string:
		s.URL, ok = p.feedURL(at, what, v)
	case map[string]any:
		ok = true
		text := func(key string) string {
			s, isString := v[key].(string)
			if v[key] != nil && !isString {
				p.errorf(at+"."+key, "%s: %s: want a string, got %s", what, key, tomlType(v[key]))
				ok = false
			} else if strings.ContainsFunc(s, unicode.IsControl) {
				p.errorf(at+"."+key, "%s: %s %q must not contain control characters", what, key, s)
				ok = false
			}
			return strings.TrimSpace(s)
		}
		s.Title, s.Folder = text("title"), text("folder")
		ok = p.wholeArticles(at, what, v, &s) && ok
		if v["url"] == nil {
			p.errorf(at, "%s: url is required in { url = \"...\", title = \"...\", folder = \"...\" }", what)
			return s, false
		}
		url := text("url")
		if ok {
			s.URL, ok = p.feedURL(at+".url", what, url)
		}
		if ok {
			if set := p.rules(at, fmt.Sprintf("%s (%s)", what, s.URL), v["mute"], v["keep"]); !set.Empty() {
				s.Rules = &set
			}
		}
	default:
		p.errorf(at, "%s: want a URL string or { url = \"...\", title = \"...\", folder = \"...\" }, got %s", what, tomlType(item))
	}
	return s, ok
}

// wholeArticles reads a feed table's full_text and full_entries.
func (p *parser) wholeArticles(at, what string, v map[string]any, s *Subscription) bool {
	ok := true
	if raw, set := v["full_text"]; set {
		s.FullText, ok = raw.(bool)
		if !ok {
			p.errorf(at+".full_text", "%s: full_text: want true or false, got %s", what, tomlType(raw))
		}
	}
	if raw, set := v["full_entries"]; set {
		n, isInt := raw.(int64)
		if !isInt || n < 1 || n > MaxFullEntries {
			p.errorf(at+".full_entries", "%s: full_entries: want a whole number from 1 to %d, got %v", what, MaxFullEntries, raw)
			return false
		}
		s.FullEntries = int(n)
	}
	return ok
}

// plainFeed reads an item of feeds that is a good URL string; ok is
// false for anything else (subscription then says what is wrong).
func (p *parser) plainFeed(item any) (Subscription, bool) {
	v, isString := item.(string)
	if !isString {
		return Subscription{}, false
	}
	url, ok := p.plainURLs[v]
	if !ok {
		if _, err := httpURL(v); err != nil {
			return Subscription{}, false
		}
		var err error
		if url, err = domain.NormalizeFeedURL(v); err != nil {
			return Subscription{}, false
		}
		if p.plainURLs == nil {
			p.plainURLs = map[string]string{}
		}
		p.plainURLs[v] = url
	}
	return Subscription{URL: url}, true
}

// feedURL checks a feed URL and gives it as feeds are compared
// (domain.NormalizeFeedURL).
func (p *parser) feedURL(at, what, s string) (string, bool) {
	if _, err := httpURL(s); err != nil {
		p.errorf(at, "%s: bad feed URL: %v", what, err)
		return "", false
	}
	url, err := domain.NormalizeFeedURL(s)
	if err != nil {
		p.errorf(at, "%s: bad feed URL: %v", what, err)
		return "", false
	}
	return url, true
}

// Error is a configuration that did not load: each problem is one line
// naming the file, the key or user at fault and, where known, the line.
type Error struct {
	Problems []string
}

type problem struct {
	line int // 0 when unknown
	msg  string
}

// newError orders problems by line, those without one last.
func newError(probs []problem) *Error {
	slices.SortStableFunc(probs, func(a, b problem) int {
		if (a.line == 0) != (b.line == 0) {
			if a.line == 0 {
				return 1
			}
			return -1
		}
		return a.line - b.line
	})
	e := &Error{}
	for _, pr := range probs {
		e.Problems = append(e.Problems, pr.msg)
	}
	return e
}

func (e *Error) Error() string { return strings.Join(e.Problems, "\n") }

// Count says how many problems there are, e.g. "1 error", "3 errors".
func (e *Error) Count() string {
	if len(e.Problems) == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", len(e.Problems))
}
