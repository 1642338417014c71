package pages

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/internal/redact"
	"feeddigest/output"
	"feeddigest/render"
	"feeddigest/schedule"
	"feeddigest/store"
)

// writeStatus writes status.html: the feeds' health, the users' rhythms
// and, with [email] smtp, the mail that did not go out.
func (b *Builder) writeStatus(ctx context.Context, pub *output.Publisher) error {
	// What the page shows is read side by side: at the end of a shared
	// pass, the page is all there is left to do, and each question waits
	// on the server.
	var (
		feeds  []domain.Feed
		asOf   time.Time
		users  []render.UserStatus
		subs   map[string][]string
		counts map[string]int
		mail   []render.MailStatus
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		if feeds, err = b.storedFeeds(gctx); err != nil {
			return err
		}
		asOf = lastPoll(feeds)
		users, err = UserRows(gctx, b.cfg, b.rd, asOf)
		return err
	})
	g.Go(func() (err error) {
		subs, err = b.rd.Subscribers(gctx)
		return err
	})
	g.Go(func() (err error) {
		counts, err = b.rd.EntryCounts(gctx)
		return err
	})
	if b.cfg.Email.SMTP != nil && b.mailRows != nil {
		g.Go(func() (err error) {
			mail, err = b.mailRows(gctx, b.rd, b.now)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	rows := buildFeedRows(b.cfg, users, feeds, subs, counts, asOf)
	// Streamed into the file: the page of thousands of feeds is
	// megabytes.
	return pub.StatusPage(streamed(func(w io.Writer) error {
		if err := render.WriteStatusPage(w, rows, users, asOf, mail...); err != nil {
			return fmt.Errorf("render status page: %w", err)
		}
		return nil
	}))
}

// lastPoll is the time of the newest poll: status.html shows the feeds as
// of then, not as of the pass, so a pass that polls nothing writes the
// same page again and leaves the site as it was (the scheduled workflow
// deploys the site only when it changed).
func lastPoll(feeds []domain.Feed) time.Time {
	var last time.Time
	for _, f := range feeds {
		if f.LastPoll.After(last) {
			last = f.LastPoll
		}
	}
	return last
}

// UserRows sees each user as of now or as of their newest digest, if that
// was built later (by a run with a later -now, or after the last poll
// that status.html is as of): a digest just built is never "due".
func UserRows(ctx context.Context, cfg *config.Config, st store.Reader, now time.Time) ([]render.UserStatus, error) {
	rows := make([]render.UserStatus, 0, len(cfg.Users))
	// The digests of the last days in one question, not one per user (a
	// status page of thousands of users); a user without one there is
	// asked for on their own.
	recent := map[string][]domain.Digest{}
	if st != nil {
		all, err := st.DigestsSince(ctx, now.AddDate(0, 0, -9).Format(time.DateOnly))
		if err != nil {
			return nil, err
		}
		for _, d := range all {
			recent[d.User] = append(recent[d.User], d)
		}
	}
	for _, u := range cfg.Users {
		digests := recent[u.Name]
		if st != nil && len(digests) == 0 {
			var err error
			if digests, err = st.Digests(ctx, u.Name); err != nil {
				return nil, err
			}
		}
		at := now
		for _, d := range digests {
			if d.BuiltAt.After(at) {
				at = d.BuiltAt
			}
		}
		su := ScheduleUser(u)
		su.NewestDigest = NewestDate(digests)
		_, due := su.Due(at, func(_, date string) bool {
			return slices.ContainsFunc(digests, func(d domain.Digest) bool { return d.Date == date })
		})
		row := render.UserStatus{Name: u.Name, Rhythm: rhythm(u), Location: u.Location, Due: due}
		if !due {
			row.NextDigest = su.NextDigest(at)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// rhythm says how often a user gets a digest, e.g. "daily at 00:00
// Europe/London", "weekly on Monday at 06:00 Europe/London".
func rhythm(u config.User) string {
	at := fmt.Sprintf("at %02d:00 %s", u.DigestHour, u.Timezone)
	if u.Every == config.Weekly {
		return fmt.Sprintf("weekly on %s %s", u.DigestDay, at)
	}
	return "daily " + at
}

// FeedRows are the feeds' health rows of the status page and command,
// from the state st, as of now.
func FeedRows(ctx context.Context, cfg *config.Config, st store.Reader, now time.Time) ([]render.FeedStatus, error) {
	feeds, err := st.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	subs, err := st.Subscribers(ctx)
	if err != nil {
		return nil, err
	}
	counts, err := st.EntryCounts(ctx)
	if err != nil {
		return nil, err
	}
	users, err := UserRows(ctx, cfg, st, now)
	if err != nil {
		return nil, err
	}
	return buildFeedRows(cfg, users, feeds, subs, counts, now), nil
}

// UnpolledRows are FeedRows before the first run made a state: every
// feed of the config new, every user's first digest due.
func UnpolledRows(cfg *config.Config, now time.Time) []render.FeedStatus {
	subs := map[string][]string{}
	var feeds []domain.Feed
	for _, url := range cfg.AllFeeds() {
		feeds = append(feeds, domain.Feed{URL: url})
	}
	users := make([]render.UserStatus, len(cfg.Users))
	for i, u := range cfg.Users {
		users[i] = render.UserStatus{Name: u.Name, Due: true}
		for _, url := range u.FeedURLs() {
			subs[url] = append(subs[url], u.Name)
		}
	}
	return buildFeedRows(cfg, users, feeds, subs, nil, now)
}

// buildFeedRows is FeedRows of what was read: the feeds that need their
// reader first (failing, gone, dead, moved to another site), then the
// others, each in the order of the config (users in order, each user's
// feeds in order), the order its writer finds them in; a feed the config
// no longer names, but a subscription still does, after them by URL.
func buildFeedRows(cfg *config.Config, users []render.UserStatus, feeds []domain.Feed, subs map[string][]string, counts map[string]int, now time.Time) []render.FeedStatus {
	due := map[string]bool{}
	for _, u := range users {
		due[u.Name] = u.Due
	}
	subscribers := make(map[string]schedule.Subscriber, len(cfg.Users))
	for _, u := range cfg.Users {
		subscribers[u.Name] = schedule.Subscriber{User: ScheduleUser(u), Due: due[u.Name]}
	}
	place := map[string]int{}
	for i, url := range cfg.AllFeeds() {
		place[url] = i
	}
	type row struct {
		render.FeedStatus
		place int
	}
	rows := make([]row, 0, len(feeds))
	for _, f := range feeds {
		if len(subs[f.URL]) == 0 {
			continue // nobody follows it any more
		}
		var theirs []schedule.Subscriber
		for _, name := range subs[f.URL] {
			if s, ok := subscribers[name]; ok {
				theirs = append(theirs, s)
			}
		}
		at, words := nextPoll(f, theirs, now)
		// Shown in a terminal and published on status.html: feed URLs
		// without their credentials (the state keeps them whole).
		r := row{FeedStatus: render.FeedStatus{
			URL: redact.URL(f.URL), EffectiveURL: redact.URL(f.EffectiveURL), Title: f.Title, LastPoll: f.LastPoll,
			LastStatus: f.LastStatus, LastError: redact.Text(f.LastError), NextPoll: at, ErrorCount: f.ErrorCount,
			Reason: join(words, notes(f)), Server: join(serverNote(f), articlesNote(f)), State: f.State(), Subscribers: subs[f.URL], Entries: counts[f.URL],
		}, place: len(place)}
		if i, ok := place[f.URL]; ok {
			r.place = i
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(
			-cmp.Compare(needsReader(a.State), needsReader(b.State)),
			cmp.Compare(a.place, b.place),
			cmp.Compare(a.URL, b.URL))
	})
	out := make([]render.FeedStatus, len(rows))
	for i, r := range rows {
		out[i] = r.FeedStatus
	}
	return out
}

// needsReader: 1 for a feed whose state asks something of its reader (it
// fails, is gone or dead, or moved to another site), 0 for the others.
func needsReader(s domain.FeedState) int {
	switch s {
	case domain.FeedFailing, domain.FeedGone, domain.FeedDead, domain.FeedMovedAway:
		return 1
	}
	return 0
}

// serverNote says in plain words what polling has taught about a feed's
// server, so that an operator sees why it is polled the way it is:
// whether it supports conditional requests (answers "not modified"),
// ignores them or rejects them; which of its change markers is used (the
// ETag before Last-Modified, as HTTP does), and which one stayed the same
// while the feed changed; whether a quick check (HEAD) comes first, or
// is no longer made (refused, failed, answered without markers, or found
// stale). The words are the status command's and status.html's. ""
// until a GET of the feed had an answer: a server that never answered
// has said nothing about its markers.
func serverNote(f domain.Feed) string {
	if f.LastPoll.IsZero() || f.LastGet.IsZero() {
		return ""
	}
	const downloads = "every poll downloads the whole feed"
	if f.Distrust.Conditional {
		return "rejects conditional requests (answers 400, 413 or 431 to them): " + downloads
	}
	var lied []string
	if f.Distrust.ETag {
		lied = append(lied, "ETag")
	}
	if f.Distrust.LastModified {
		lied = append(lied, "Last-Modified")
	}
	trusted := ""
	switch {
	case f.ETag != "" && !f.Distrust.ETag:
		trusted = "ETag"
	case f.LastModified != "" && !f.Distrust.LastModified:
		trusted = "Last-Modified"
	}
	var parts []string
	switch {
	case trusted == "" && len(lied) > 0:
		return "its " + strings.Join(lied, " and ") + " stayed the same while the feed changed, so neither is used: " + downloads
	case trusted == "":
		return "sends no ETag or Last-Modified, so a poll cannot ask whether the feed changed: " + downloads
	case f.IgnoresConditional && f.RefusesHEAD:
		parts = append(parts, "ignores conditional requests", "quick checks (HEAD) refused or unreliable: "+downloads)
	case f.IgnoresConditional:
		parts = append(parts, "ignores conditional requests",
			"a quick check (HEAD) by its "+trusted+" first, a full download when it changed and at least weekly")
	case f.Answers304:
		parts = append(parts, "supports conditional requests (by "+trusted+")")
	default:
		parts = append(parts, "offers conditional requests (by "+trusted+")")
	}
	if len(lied) > 0 {
		parts = append(parts, "its "+lied[0]+" stayed the same while the feed changed, so it is not used")
	}
	if f.RefusesHEAD && !f.IgnoresConditional {
		parts = append(parts, "quick checks (HEAD) refused or unreliable, not used")
	}
	return strings.Join(parts, "; ")
}

// articlesNote says how a full_text feed's last poll that asked for its
// entries' pages fared: "article pages: 3 of 4 read whole" (the others
// kept the feed's own text). "" for a feed that asked for none.
func articlesNote(f domain.Feed) string {
	if f.ArticlesAsked == 0 {
		return ""
	}
	return fmt.Sprintf("article pages: %d of %d read whole", f.ArticlesRead, f.ArticlesAsked)
}

// nextPoll is when feed f is polled next among its subscribers subs
// (schedule.NextTurn) and why, in words a reader takes right: "at ada's
// digest hour, 00:00 London", "retry after its penalty (404)"; zero and
// the reason for a feed never polled again. A turn that has come reads
// "due" where it is shown, and says for whom.
func nextPoll(f domain.Feed, subs []schedule.Subscriber, now time.Time) (time.Time, string) {
	turn := schedule.NextTurn(schedule.StateOf(f), subs, now)
	if turn.At.IsZero() {
		return time.Time{}, f.Reason // gone, dead, or nobody's
	}
	// A failing feed's penalty is said while it lasts, even when a digest
	// hour after it brings the poll; another wait only where it moves it.
	wait := ""
	if (turn.Waits || f.ErrorCount > 0 && f.NextPoll.After(now)) && f.Reason != "" {
		wait = "after its " + f.Reason
	}
	if f.Reason == "Retry-After" && wait != "" {
		wait = "as the server's Retry-After asks"
	}
	due := !turn.At.After(now)
	switch turn.Why {
	case schedule.Retry:
		if due {
			return turn.At, "a retry"
		}
		switch {
		case wait == "":
			return turn.At, "retry"
		case strings.HasPrefix(wait, "after"):
			return turn.At, "retry " + wait
		}
		return turn.At, "retry, " + wait
	case schedule.Overflow:
		return turn.At, "an extra poll of a busy feed"
	}
	whose := possessive(turn.Users)
	if due {
		return turn.At, whose + " digest hour has come"
	}
	if !turn.Hour {
		if wait == "" {
			return turn.At, "for " + whose + " daily poll"
		}
		return turn.At, "for " + whose + " daily poll, " + wait
	}
	loc := subscriberOf(subs, turn.Users[0]).Location
	if loc == nil {
		loc = time.UTC
	}
	words := fmt.Sprintf("at %s digest hour, %s %s", whose, turn.At.In(loc).Format("15:04"), placeName(loc))
	if wait != "" {
		words += ", " + wait
	}
	return turn.At, words
}

// possessive names users as owners: "ada's", "ada's and bob's", "ada's
// and 3 others'".
func possessive(users []string) string {
	switch len(users) {
	case 1:
		return users[0] + "'s"
	case 2:
		return users[0] + "'s and " + users[1] + "'s"
	}
	return fmt.Sprintf("%s's and %d others'", users[0], len(users)-1)
}

func subscriberOf(subs []schedule.Subscriber, name string) schedule.Subscriber {
	for _, s := range subs {
		if s.Name == name {
			return s
		}
	}
	return schedule.Subscriber{User: schedule.User{Location: time.UTC}}
}

// placeName is how people name a zone: its city ("London", "New York"
// for America/New_York), else its name ("UTC").
func placeName(loc *time.Location) string {
	if loc == nil {
		return "UTC"
	}
	name := loc.String()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ReplaceAll(name, "_", " ")
}

// notes are what the user should know of a feed besides its next poll:
// a move to another site, repaired XML, extra polls of a busy feed.
func notes(f domain.Feed) string {
	r := ""
	if f.PendingURL != "" {
		r = join(r, "redirects permanently to "+redact.URL(f.PendingURL)+" on another site: update the subscription if you trust it")
	}
	if f.Repaired != "" {
		r = join(r, "ill-formed XML, repaired ("+f.Repaired+")")
	}
	if f.OverflowGap > 0 {
		r = join(r, "busy feed: extra polls every "+f.OverflowGap.String())
	}
	return r
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// NewestDate is the date of the newest of a user's digests, "" for none.
func NewestDate(digests []domain.Digest) string {
	newest := ""
	for _, d := range digests {
		newest = max(newest, d.Date)
	}
	return newest
}

// ScheduleUser is what the schedule needs to know of a user.
func ScheduleUser(u config.User) schedule.User {
	return schedule.User{Name: u.Name, Location: u.Location, DigestHour: u.DigestHour,
		Weekly: u.Every == config.Weekly, DigestDay: u.DigestDay, Feeds: u.FeedURLs()}
}
