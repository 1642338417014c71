package config

import (
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	// Embed the time zone database so that user time zones load the same
	// everywhere, also on hosts and containers without /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/BurntSushi/toml"
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
	DefaultHead        = "auto"
	DefaultHintCap     = 7 * day
)

// Limits checked by validation.
const (
	MaxConcurrency = 1024
	MaxPerHost     = 64
	MaxHostRate    = 1000.0
	MaxUserName    = 64 // bytes; the name is used in file names
)

var userNameRE = regexp.MustCompile(`^[a-z0-9-]+$`)

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
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.Path = abs
		c.Dir = filepath.Dir(abs)
	} else {
		dir, err := filepath.Abs(".")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.Dir = dir
	}

	// Decode into a plain tree rather than into structs: type errors in one
	// key then do not hide the problems of the others (all are reported at
	// once), keys match exactly (the struct decoder would also accept
	// "Timeout" for "timeout", and MetaData.Undecoded would not flag it), and
	// a key that is absent is told apart from one set to zero. Unknown keys
	// are found by checking the tree against the known names.
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := strings.Join(strings.Fields(pe.Message), " ")
			return nil, fmt.Errorf("%s: TOML syntax error: %s (line %d, column %d)", name, msg, pe.Position.Line, pe.Position.Col)
		}
		return nil, fmt.Errorf("%s: %s", name, oneLine(err.Error()))
	}

	p := &parser{name: name, lines: keyLines(string(data)), c: c}
	p.top(raw)
	if err := p.result(); err != nil {
		return nil, err
	}
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

// AllFeeds returns the union of all users' feeds, sorted, each once.
func (c *Config) AllFeeds() []string {
	var all []string
	for _, u := range c.Users {
		all = append(all, u.Feeds...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// SMTPParts splits the smtp URL: host, port (default 587 for smtp://, 465
// for smtps://), user name (may be empty) and whether TLS is implicit
// (smtps://) rather than STARTTLS (smtp://). The password is not part of the
// URL; it comes from the environment (FEEDDIGEST_SMTP_PASSWORD).
func (e Email) SMTPParts() (host string, port int, user string, implicitTLS bool, err error) {
	if strings.TrimSpace(e.SMTP) == "" {
		return "", 0, "", false, errors.New("no smtp URL set")
	}
	u, err := url.Parse(strings.TrimSpace(e.SMTP))
	if err != nil {
		// Not echoed: it may hold a password.
		return "", 0, "", false, errors.New("invalid smtp URL (want smtp://user@host:port or smtps://user@host:port)")
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return "", 0, "", false, fmt.Errorf("smtp URL %q contains a password: remove it and set FEEDDIGEST_SMTP_PASSWORD instead", redactURL(u))
		}
		user = u.User.Username()
	}
	switch u.Scheme {
	case "smtp":
		port = 587
	case "smtps":
		port, implicitTLS = 465, true
	default:
		return "", 0, "", false, fmt.Errorf("smtp URL %q must start with smtp:// or smtps://", e.SMTP)
	}
	host = u.Hostname()
	if host == "" || u.Opaque != "" {
		return "", 0, "", false, fmt.Errorf("smtp URL %q has no host", e.SMTP)
	}
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, "", false, fmt.Errorf("smtp URL %q has an invalid port", e.SMTP)
		}
		port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return "", 0, "", false, fmt.Errorf("smtp URL %q has an empty port", e.SMTP)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", 0, "", false, fmt.Errorf("smtp URL %q: unexpected path or query (want smtp://user@host:port)", e.SMTP)
	}
	return host, port, user, implicitTLS, nil
}

func redactURL(u *url.URL) string {
	v := *u
	if v.User != nil {
		v.User = url.UserPassword(v.User.Username(), "xxxxx")
	}
	return v.String()
}

// parser turns the decoded TOML tree into a Config, collecting problems.
type parser struct {
	name  string
	lines *keyScan
	c     *Config
	errs  []problem
}

type problem struct {
	line int // 0 when unknown
	err  error
}

// result returns the problems as one error, in the order of their lines
// (problems without a line last).
func (p *parser) result() error {
	if len(p.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(p.errs, func(a, b problem) int {
		if (a.line == 0) != (b.line == 0) {
			if a.line == 0 {
				return 1
			}
			return -1
		}
		return a.line - b.line
	})
	errs := make([]error, len(p.errs))
	for i, pr := range p.errs {
		errs[i] = pr.err
	}
	return errors.Join(errs...)
}

// errorf records a problem. at is the indexed key path it concerns (for the
// line); msg should name the key, user or value at fault.
func (p *parser) errorf(at string, format string, args ...any) {
	msg := oneLine(fmt.Sprintf(format, args...))
	ln := p.lines.line(at)
	if ln > 0 {
		msg += fmt.Sprintf(" (line %d)", ln)
	}
	p.errs = append(p.errs, problem{ln, fmt.Errorf("%s: %s", p.name, msg)})
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

var (
	topKeys   = []string{"state", "site_dir", "site_url", "retention", "intro", "fetch", "email", "users"}
	fetchKeys = []string{"concurrency", "per_host", "host_rate", "timeout", "max_body", "allow_private_networks", "contact", "head", "start_delay", "hint_cap"}
	emailKeys = []string{"from", "outbox", "smtp", "tls"}
	userKeys  = []string{"name", "timezone", "email", "digest_hour", "intro", "feeds"}
)

// unknownKeys reports the keys of table that are not in known. base is the
// table's indexed path ("" at the top).
func (p *parser) unknownKeys(table map[string]any, base string, known []string) {
	var bad []string
	for k := range table {
		if !slices.Contains(known, k) {
			bad = append(bad, k)
		}
	}
	// Report in document order.
	slices.SortFunc(bad, func(a, b string) int {
		la, lb := p.lines.line(joinIndexed(base, a)), p.lines.line(joinIndexed(base, b))
		if la != lb {
			return la - lb
		}
		return strings.Compare(a, b)
	})
	for _, k := range bad {
		path := joinIndexed(base, k)
		hint := ""
		if s := suggest(k, known); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", s)
		}
		p.errorf(path, "unknown key %q%s", path, hint)
	}
}

// suggest returns the known key closest to k, if it is close.
func suggest(k string, known []string) string {
	best, bestD := "", 3
	for _, cand := range known {
		if strings.EqualFold(k, cand) {
			return cand
		}
		if d := editDistance(strings.ToLower(k), cand); d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// tomlType names the TOML type of a decoded value for messages.
func tomlType(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("string %q", v)
	case int64:
		return fmt.Sprintf("integer %d", v)
	case float64:
		return fmt.Sprintf("float %v", v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	case time.Time:
		return "a date-time"
	default:
		return fmt.Sprintf("a %T", v)
	}
}

// str fetches an optional string; ok reports whether it was set (and valid).
func (p *parser) str(t map[string]any, base, key string) (string, bool) {
	v, present := t[key]
	if !present {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		path := joinIndexed(base, key)
		p.errorf(path, "%s: want a string, got %s", path, tomlType(v))
		return "", false
	}
	return s, true
}

func (p *parser) integer(t map[string]any, base, key string) (int64, bool) {
	v, present := t[key]
	if !present {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		path := joinIndexed(base, key)
		p.errorf(path, "%s: want an integer, got %s", path, tomlType(v))
		return 0, false
	}
	return n, true
}

func (p *parser) boolean(t map[string]any, base, key string) (bool, bool) {
	v, present := t[key]
	if !present {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		path := joinIndexed(base, key)
		p.errorf(path, "%s: want true or false, got %s", path, tomlType(v))
		return false, false
	}
	return b, true
}

// duration fetches an optional duration string (see ParseDuration) that
// must be > 0.
func (p *parser) duration(t map[string]any, base, key string, def time.Duration) time.Duration {
	s, ok := p.str(t, base, key)
	if !ok {
		return def
	}
	path := joinIndexed(base, key)
	d, err := ParseDuration(s)
	if err != nil {
		p.errorf(path, "%s: %v", path, err)
		return def
	}
	if d <= 0 {
		p.errorf(path, "%s: must be longer than zero, got %q", path, s)
		return def
	}
	return d
}

// table fetches an optional sub-table.
func (p *parser) table(t map[string]any, key string) map[string]any {
	v, present := t[key]
	if !present {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.errorf(key, "%s: want a table [%s], got %s", key, key, tomlType(v))
		return nil
	}
	return m
}

// resolve makes a configured path absolute against the config's folder.
func (p *parser) resolve(s string) string {
	if filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return filepath.Join(p.c.Dir, s)
}

func (p *parser) top(raw map[string]any) {
	c := p.c
	p.unknownKeys(raw, "", topKeys)

	c.State = p.resolve(DefaultState)
	if s, ok := p.str(raw, "", "state"); ok {
		if strings.TrimSpace(s) == "" {
			p.errorf("state", "state: must not be empty (default %q)", DefaultState)
		} else {
			c.State = p.resolve(s)
		}
	}
	c.SiteDir = p.resolve(DefaultSiteDir)
	if s, ok := p.str(raw, "", "site_dir"); ok {
		if strings.TrimSpace(s) == "" {
			p.errorf("site_dir", "site_dir: must not be empty (default %q)", DefaultSiteDir)
		} else {
			c.SiteDir = p.resolve(s)
		}
	}
	if s, ok := p.str(raw, "", "site_url"); ok && strings.TrimSpace(s) != "" {
		u, err := httpURL(s)
		switch {
		case err != nil:
			p.errorf("site_url", "site_url: %v", err)
		case u.RawQuery != "" || u.Fragment != "":
			p.errorf("site_url", "site_url: %q must not have a query or fragment", s)
		default:
			if !strings.HasSuffix(u.Path, "/") {
				u.Path += "/"
				if u.RawPath != "" {
					u.RawPath += "/"
				}
			}
			c.SiteURL = u.String()
		}
	}
	c.Retention = p.duration(raw, "", "retention", DefaultRetention)
	if s, ok := p.str(raw, "", "intro"); ok {
		c.Intro = s
	}

	p.fetch(p.table(raw, "fetch"))
	p.email(p.table(raw, "email"))
	p.users(raw)
}

func (p *parser) fetch(t map[string]any) {
	f := &p.c.Fetch
	*f = Fetch{
		Concurrency: DefaultConcurrency,
		PerHost:     DefaultPerHost,
		HostRate:    DefaultHostRate,
		Timeout:     DefaultTimeout,
		MaxBody:     DefaultMaxBody,
		Head:        DefaultHead,
		HintCap:     DefaultHintCap,
	}
	const b = "fetch"
	p.unknownKeys(t, b, fetchKeys)

	if n, ok := p.integer(t, b, "concurrency"); ok {
		if n < 1 || n > MaxConcurrency {
			p.errorf("fetch.concurrency", "fetch.concurrency: must be 1 to %d, got %d", MaxConcurrency, n)
		} else {
			f.Concurrency = int(n)
		}
	}
	if n, ok := p.integer(t, b, "per_host"); ok {
		if n < 1 || n > MaxPerHost {
			p.errorf("fetch.per_host", "fetch.per_host: must be 1 to %d, got %d", MaxPerHost, n)
		} else {
			f.PerHost = int(n)
		}
	}
	if v, present := t["host_rate"]; present {
		var r float64
		switch v := v.(type) {
		case float64:
			r = v
		case int64:
			r = float64(v)
		default:
			p.errorf("fetch.host_rate", "fetch.host_rate: want a number of requests per second, got %s", tomlType(v))
			r = DefaultHostRate
		}
		if !(r > 0 && r <= MaxHostRate) {
			p.errorf("fetch.host_rate", "fetch.host_rate: must be above 0 and at most %g, got %v", MaxHostRate, v)
		} else {
			f.HostRate = r
		}
	}
	f.Timeout = p.duration(t, b, "timeout", DefaultTimeout)
	f.HintCap = p.duration(t, b, "hint_cap", DefaultHintCap)
	if v, present := t["max_body"]; present {
		var n int64
		var err error
		switch v := v.(type) {
		case string:
			n, err = ParseSize(v)
		case int64:
			n = v
		default:
			err = fmt.Errorf("want a size like \"10MB\", got %s", tomlType(v))
		}
		switch {
		case err != nil:
			p.errorf("fetch.max_body", "fetch.max_body: %v", err)
		case n <= 0:
			p.errorf("fetch.max_body", "fetch.max_body: must be more than 0 bytes, got %v", v)
		default:
			f.MaxBody = n
		}
	}
	if v, ok := p.boolean(t, b, "allow_private_networks"); ok {
		f.AllowPrivateNetworks = v
	}
	if s, ok := p.str(t, b, "contact"); ok && strings.TrimSpace(s) != "" {
		if err := checkContact(s); err != nil {
			p.errorf("fetch.contact", "fetch.contact: %v", err)
		} else {
			f.Contact = strings.TrimSpace(s)
		}
	}
	if s, ok := p.str(t, b, "head"); ok {
		if s != "auto" && s != "always" {
			p.errorf("fetch.head", "fetch.head: must be \"auto\" or \"always\", got %q", s)
		} else {
			f.Head = s
		}
	}
	if s, ok := p.str(t, b, "start_delay"); ok {
		lo, hi, err := parseStartDelay(s)
		if err != nil {
			p.errorf("fetch.start_delay", "fetch.start_delay: %v", err)
		} else {
			f.StartDelayMin, f.StartDelayMax = lo, hi
		}
	}
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

func checkContact(s string) error {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, " \t\r\n") {
		return fmt.Errorf("%q must not contain spaces", s)
	}
	if strings.HasPrefix(strings.ToLower(s), "mailto:") {
		u, err := url.Parse(s)
		if err != nil || u.Opaque == "" {
			return fmt.Errorf("invalid mailto URL %q", s)
		}
		addr, _, _ := strings.Cut(u.Opaque, "?")
		if _, err := mail.ParseAddress(addr); err != nil {
			return fmt.Errorf("invalid address in %q", s)
		}
		return nil
	}
	if _, err := httpURL(s); err != nil {
		return fmt.Errorf("%q must be an absolute http(s) URL or a mailto: URL", s)
	}
	return nil
}

func (p *parser) email(t map[string]any) {
	e := &p.c.Email
	const b = "email"
	p.unknownKeys(t, b, emailKeys)
	from, fromOK := p.str(t, b, "from")
	outbox, _ := p.str(t, b, "outbox")
	smtp, _ := p.str(t, b, "smtp")
	tlsMode, _ := p.str(t, b, "tls")
	from, outbox, smtp = strings.TrimSpace(from), strings.TrimSpace(outbox), strings.TrimSpace(smtp)
	switch tlsMode = strings.TrimSpace(tlsMode); tlsMode {
	case "":
		// Unset means starttls; left empty so an absent [email] stays zero.
	case "starttls", "opportunistic", "none":
		e.TLS = tlsMode
	default:
		p.errorf("email.tls", "email.tls: %q is not one of \"starttls\", \"opportunistic\", \"none\"", tlsMode)
	}

	if outbox != "" {
		e.Outbox = p.resolve(outbox)
	}
	if smtp != "" {
		e.SMTP = smtp
		if _, _, _, _, err := e.SMTPParts(); err != nil {
			p.errorf("email.smtp", "email.smtp: %v", err)
			e.SMTP = ""
		}
	}
	_, fromPresent := t["from"]
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

func (p *parser) users(raw map[string]any) {
	var tables []map[string]any
	switch v := raw["users"].(type) {
	case nil:
	case []map[string]any:
		tables = v
	case []any:
		for i, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				at := fmt.Sprintf("users[%d]", i)
				p.errorf(at, "%s: want a table, got %s", at, tomlType(e))
				continue
			}
			tables = append(tables, m)
		}
		if len(v) > 0 && len(tables) == 0 {
			return // each element reported above
		}
	default:
		p.errorf("users", "users: want [[users]] tables, got %s", tomlType(v))
		return
	}
	if len(tables) == 0 {
		p.errorf("users", "no [[users]]: add at least one user with a name, a timezone and feeds")
		return
	}

	seen := map[string]int{}
	for i, t := range tables {
		u, ok := p.user(i, t)
		if !ok {
			continue
		}
		if j, dup := seen[u.Name]; dup {
			p.errorf(fmt.Sprintf("users[%d].name", i), "users[%d] %q: duplicate user name (also users[%d])", i, u.Name, j)
			continue
		}
		seen[u.Name] = i
		p.c.Users = append(p.c.Users, u)
	}
}

// user reads users[i]; ok is false when the user has no usable name.
func (p *parser) user(i int, t map[string]any) (User, bool) {
	base := fmt.Sprintf("users[%d]", i)
	p.unknownKeys(t, base, userKeys)
	var u User

	name, hasName := p.str(t, base, "name")
	who := base // how messages name the user
	nameOK := false
	switch {
	case !hasName:
		if _, present := t["name"]; !present {
			p.errorf(base, "%s: name is required", base)
		}
	case name == "":
		p.errorf(base+".name", "%s: name must not be empty", base)
	case !userNameRE.MatchString(name):
		p.errorf(base+".name", "%s: name %q may only contain a-z, 0-9 and -", base, name)
	case len(name) > MaxUserName:
		p.errorf(base+".name", "%s: name %q is longer than %d characters", base, name, MaxUserName)
	default:
		nameOK = true
		u.Name = name
	}
	if hasName && name != "" {
		who = fmt.Sprintf("%s %q", base, name)
	}

	tz, hasTZ := p.str(t, base, "timezone")
	switch {
	case !hasTZ:
		if _, present := t["timezone"]; !present {
			p.errorf(base, "%s: timezone is required (an IANA name such as \"Europe/London\")", who)
		}
	case tz == "" || tz == "Local":
		p.errorf(base+".timezone", "%s: time zone %q is not allowed: use an IANA name such as \"Europe/London\" or \"UTC\"", who, tz)
	default:
		loc, err := time.LoadLocation(tz)
		if err != nil {
			p.errorf(base+".timezone", "%s: unknown time zone %q", who, tz)
		} else {
			u.Timezone, u.Location = tz, loc
		}
	}

	if s, ok := p.str(t, base, "email"); ok && strings.TrimSpace(s) != "" {
		if _, err := mail.ParseAddress(strings.TrimSpace(s)); err != nil {
			p.errorf(base+".email", "%s: invalid email address %q", who, s)
		} else {
			u.Email = strings.TrimSpace(s)
		}
	}

	if h, ok := p.integer(t, base, "digest_hour"); ok {
		if h < 0 || h > 23 {
			p.errorf(base+".digest_hour", "%s: digest_hour must be 0 to 23, got %d", who, h)
		} else {
			u.DigestHour = int(h)
		}
	}

	if s, ok := p.str(t, base, "intro"); ok {
		u.Intro = s
	}

	if v, present := t["feeds"]; present {
		list, ok := v.([]any)
		if !ok {
			p.errorf(base+".feeds", "%s: feeds: want an array of URLs, got %s", who, tomlType(v))
		}
		u.Feeds = []string{}
		for j, e := range list {
			at := fmt.Sprintf("%s.feeds[%d]", base, j)
			s, ok := e.(string)
			if !ok {
				p.errorf(at, "%s: feeds[%d]: want a URL string, got %s", who, j, tomlType(e))
				continue
			}
			if _, err := httpURL(s); err != nil {
				p.errorf(at, "%s: bad feed URL: %v", who, err)
				continue
			}
			s = strings.TrimSpace(s)
			if !slices.Contains(u.Feeds, s) {
				u.Feeds = append(u.Feeds, s)
			}
		}
	} else {
		u.Feeds = []string{}
	}
	return u, nameOK
}
