package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/ingest"
	"feeddigest/internal/english"
	"feeddigest/internal/redact"
	"feeddigest/mail"
	"feeddigest/pipeline"
)

// checkCmd validates a configuration and polls each of its feeds once,
// the way `run` would poll a feed it has never seen, and says what it
// found; with rules, it says what each would leave out of the stored
// entries. It opens the state only to read it and writes nothing, so it
// is safe to try before the first run or beside a running one.
func checkCmd(ctx context.Context, inv *invocation) error {
	cfg, err := inv.loadConfigWarn()
	if err != nil {
		return err
	}
	now, stdout := time.Now(), inv.stdout
	feeds := len(cfg.AllFeeds())
	fmt.Fprintf(stdout, "%s: configuration is valid (%s, %s)\n\n", cfg.Path,
		english.Count(len(cfg.Users), "user"), english.Count(feeds, "feed"))
	writeRuleReport(ctx, stdout, cfg, now)
	progress := newCheckProgress(inv.stderr, feeds)
	failed := 0
	lands := map[string]string{}
	checkFeeds(ctx, cfg, now, func(c feedCheck) {
		if !c.ok() {
			failed++
		}
		lands[c.url] = landsAt(c)
		progress.clear()
		writeCheck(stdout, c, now, cfg.Fetch.HintCap)
	}, progress.draw)
	progress.clear()
	fmt.Fprintf(stdout, "%s: %d ok, %d failed\n", english.Count(feeds, "feed"), feeds-failed, failed)
	// Lines that lead to one feed: a run reads it once and shows it
	// under the first, but the user may remove one.
	if same := cfg.SameFeeds(func(url string) string { return lands[url] }); len(same) > 0 {
		fmt.Fprintf(stdout, "\n%s listed twice:\n", english.Count(len(same), "feed"))
		for _, w := range same {
			fmt.Fprintf(stdout, "  %s\n", w)
		}
	}
	mailErr := checkSMTP(ctx, stdout, cfg.Email, os.Getenv("FEEDDIGEST_SMTP_PASSWORD"))
	if err := ctx.Err(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s failed", failed, english.Count(feeds, "feed"))
	}
	return mailErr
}

// checkSMTP holds the conversation a send would (EHLO, STARTTLS, AUTH
// when a user is set) with email.smtp, sends nothing, and says what it
// found; nothing when no server is set.
func checkSMTP(ctx context.Context, w io.Writer, e config.Email, password string) error {
	if e.SMTP == nil {
		return nil
	}
	fmt.Fprintf(w, "\nmail server %s\n", e.SMTP)
	sender, err := pipeline.NewSender(e, password)
	var found mail.Probe
	if err == nil {
		found, err = sender.Probe(ctx)
	}
	if err != nil {
		err = pipeline.MailAdvice(err)
		fmt.Fprintf(w, "  %-12s %s\n", "failed", ingest.OneLine(err.Error()))
		return fmt.Errorf("the mail server: %w", err)
	}
	tls := "none (plain SMTP)"
	switch {
	case found.Encrypted && found.Verified:
		tls = "encrypted, certificate verified"
	case found.Encrypted:
		tls = "encrypted, certificate not verified (opportunistic)"
	}
	login := "none (no user in email.smtp)"
	if found.LoggedIn {
		login = "accepted for " + e.SMTP.User
	}
	fmt.Fprintf(w, "  %-12s %s\n  %-12s %s\n  %-12s %s\n", "connected", "yes (no message sent)", "tls", tls, "login", login)
	return nil
}

// feedCheck is one feed's poll.
type feedCheck struct {
	url         string
	subscribers []string
	res         fetch.Result
}

// ok: the feed answered with a feed (or, for a URL with validators, would
// have; a first poll carries none, so that is a parsed body).
func (c feedCheck) ok() bool {
	return c.res.Outcome == fetch.OutcomeFresh || c.res.Outcome == fetch.OutcomeUnchanged
}

// checkFeeds polls every feed once, at most cfg.Fetch.Concurrency at a
// time, with a client made as the pipeline makes it (so per-host limits,
// the private-address rule and the size limit apply). The start delay is
// skipped: a person is waiting. Each feed is handed to show in config
// order (the order its writer knows), as soon as it and the feeds
// before it are done: a slow feed holds back the blocks after it, never
// the ones before. After each feed done, tick learns how many are and
// which feed the next block waits for ("" when none).
func checkFeeds(ctx context.Context, cfg *config.Config, now time.Time, show func(feedCheck), tick func(done int, waiting string)) {
	client := pipeline.NewClient(cfg)
	defer client.Close()
	subs := subscribers(cfg)
	urls := cfg.AllFeeds()
	checks := make([]feedCheck, len(urls))
	finished := make(chan int, len(urls))
	var g errgroup.Group
	g.SetLimit(max(cfg.Fetch.Concurrency, 1))
	go func() {
		for i, u := range urls {
			checks[i] = feedCheck{url: u, subscribers: subs[u]}
			if err := ctx.Err(); err != nil {
				checks[i].res = fetch.Result{Outcome: fetch.OutcomeNetError, Err: err}
				finished <- i
				continue
			}
			g.Go(func() error {
				// A first poll: no validators, so no HEAD and an unconditional GET.
				checks[i].res = client.Poll(ctx, fetch.Request{URL: u}, now)
				finished <- i
				return nil
			})
		}
	}()
	ready := make([]bool, len(urls))
	next := 0
	for done := 1; done <= len(urls); done++ {
		ready[<-finished] = true
		for next < len(urls) && ready[next] {
			show(checks[next])
			next++
		}
		waiting := ""
		if next < len(urls) {
			waiting = urls[next]
		}
		tick(done, waiting)
	}
	g.Wait()
}

// checkProgress says how far check is ("checking 3 of 12 feeds..."),
// on a line of the terminal that it clears before a feed's block is
// printed and draws again after. Off a terminal (a file, a CI log) it
// says nothing: the blocks, printed as the feeds finish, are the
// progress there, and the output stays the same from run to run.
type checkProgress struct {
	w     io.Writer // nil: not a terminal
	total int
}

func newCheckProgress(w io.Writer, total int) checkProgress {
	if !isTerminal(w) || total == 0 {
		return checkProgress{}
	}
	p := checkProgress{w: w, total: total}
	p.draw(0, "")
	return p
}

// draw shows the line: how many feeds of the total are done, and the
// one the next block waits for; nothing once all are done.
func (p checkProgress) draw(done int, waiting string) {
	if p.w == nil || done >= p.total {
		return
	}
	p.clear()
	fmt.Fprintf(p.w, "checking: %d of %s done", done, english.Count(p.total, "feed"))
	if waiting != "" {
		fmt.Fprintf(p.w, ", waiting for %s", shortened(ingest.OneLine(redact.URL(waiting)), 50))
		return
	}
	io.WriteString(p.w, "...")
}

// shortened is s cut to at most n characters, "..." marking a cut: the
// line must fit one line of the terminal to be cleared.
func shortened(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}

// clear takes the line away.
func (p checkProgress) clear() {
	if p.w != nil {
		io.WriteString(p.w, "\r\033[K")
	}
}

// subscribers maps each feed URL to the users who follow it.
func subscribers(cfg *config.Config) map[string][]string {
	subs := map[string][]string{}
	for _, u := range cfg.Users {
		for _, f := range u.FeedURLs() {
			subs[f] = append(subs[f], u.Name)
		}
	}
	return subs
}

// writeCheck prints one feed as a block of labelled lines.
func writeCheck(w io.Writer, c feedCheck, now time.Time, hintCap time.Duration) {
	mark := "ok"
	if !c.ok() {
		mark = "FAILED"
	}
	fmt.Fprintf(w, "%s  %s\n", mark, redact.URL(c.url))
	line := func(label, value string) { fmt.Fprintf(w, "  %-12s %s\n", label, ingest.OneLine(value)) }
	line("subscribers", strings.Join(c.subscribers, ", "))
	line("status", statusText(c.res.Status))
	if f := c.res.Feed; f != nil {
		line("format", f.Format)
		line("title", orNone(f.Title))
		line("entries", fmt.Sprint(len(f.Entries)))
	}
	if c.ok() {
		line("validators", validators(c.res))
		line("freshness", freshness(c.res, hintCap))
	}
	if c.res.PermanentURL != "" {
		line("moved", moved(c.res))
	}
	if !c.res.RetryAfter.IsZero() {
		line("retry after", fmt.Sprintf("%s (in %s)", c.res.RetryAfter.UTC().Format(time.RFC3339), humanDuration(c.res.RetryAfter.Sub(now))))
	}
	if c.res.Err != nil {
		line("error", errorText(c.res.Err))
	}
	fmt.Fprintln(w)
}

// landsAt is where a check's poll of a feed landed, as a run's record
// of it would say (domain.Feed.Lands): the feed a web page named, the
// end of a chain of permanent redirects, else the URL itself.
func landsAt(c feedCheck) string {
	f := domain.Feed{URL: c.url, EffectiveURL: c.res.DiscoveredURL}
	if f.EffectiveURL == "" && c.res.PermanentURL != "" {
		if c.res.OriginChanged {
			f.PendingURL = c.res.PermanentURL
		} else {
			f.EffectiveURL = c.res.PermanentURL
		}
	}
	return f.Lands()
}

func statusText(code int) string {
	if code == 0 {
		return "no response"
	}
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}

func validators(res fetch.Result) string {
	var v []string
	if res.ETag != "" {
		v = append(v, "ETag "+res.ETag)
	}
	if res.LastModified != "" {
		v = append(v, "Last-Modified "+res.LastModified)
	}
	if len(v) == 0 {
		return "none: every poll downloads the whole feed"
	}
	return strings.Join(v, "; ")
}

// freshness names the publisher's hints: the one the schedule will use
// (the longest) and the feed's own ttl when a header hint outranks it.
func freshness(res fetch.Result, hintCap time.Duration) string {
	var hints []string
	if res.Hint > 0 {
		h := res.HintSource + " " + humanDuration(res.Hint)
		if hintCap > 0 && res.Hint > hintCap {
			h += fmt.Sprintf(" (capped at %s)", humanDuration(hintCap))
		}
		hints = append(hints, h)
	}
	if f := res.Feed; f != nil && f.TTL > 0 && f.TTLSource != res.HintSource {
		hints = append(hints, f.TTLSource+" "+humanDuration(f.TTL))
	}
	if len(hints) == 0 {
		return "none (polled once a day at most, at each subscriber's digest hour)"
	}
	return strings.Join(hints, "; ")
}

func moved(res fetch.Result) string {
	s := "permanently to " + redact.URL(res.PermanentURL)
	if res.OriginChanged {
		return s + " (another site: run keeps the old URL and flags it in status; update the config if you trust it)"
	}
	return s + " (run will poll the new URL; update the config)"
}

// errorText is a poll's error on one line, with advice where a setting
// would change it.
func errorText(err error) string {
	return strings.Join(strings.Fields(pipeline.PollErrorText(err)), " ")
}

// humanDuration writes a duration the way people say it: 1h, 1h30m, 2d.
func humanDuration(d time.Duration) string {
	d = d.Round(time.Second)
	if d <= 0 {
		return "now"
	}
	var b strings.Builder
	for _, unit := range []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / unit.size; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, unit.name)
			d -= n * unit.size
		}
	}
	return b.String()
}
