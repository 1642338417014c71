package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"feeddigest/config"
	"feeddigest/config/opml"
	"feeddigest/domain"
	"feeddigest/fetch"
	"feeddigest/internal/english"
	"feeddigest/pipeline"
)

// importCmd adds the feeds of an OPML file to one user's feeds in the
// configuration file, editing only that user's feeds array. Folders and
// titles come along; every outline left out is named, with the reason.
func importCmd(ctx context.Context, inv *invocation) error {
	if len(inv.args) != 1 {
		return usagef("want one OPML file, got %s", english.Count(len(inv.args), "argument"))
	}
	file, stdout := inv.args[0], inv.stdout
	// Check the config and the user before reading the OPML, so that a
	// typo in -user is the one error shown.
	cfg, err := inv.loadConfig()
	if err != nil {
		return err
	}
	user := inv.opts.user
	if user == "" {
		if len(cfg.Users) != 1 {
			return usagef("-user NAME is required: %s has %s", cfg.Path, english.Count(len(cfg.Users), "user"))
		}
		user = cfg.Users[0].Name
	}
	if _, ok := cfg.User(user); !ok {
		return noUser(cfg, cfg.Path, user)
	}
	outlines, err := readOPML(file)
	if err != nil {
		return err
	}
	if len(outlines) == 0 {
		fmt.Fprintf(stdout, "%s lists no feeds; nothing to import\n", file)
		return nil
	}
	plan := planImport(outlines)
	added, present, err := config.AddSubscriptions(cfg.Path, user, plan.subscriptions())
	if err != nil {
		return err
	}
	plan.alreadyHad(present, user)
	writeImport(stdout, inv.opts.config, user, added, plan)
	if !cfg.Fetch.AllowPrivateNetworks {
		warnPrivate(ctx, stdout, added)
	}
	return nil
}

// warnPrivate names each added feed whose host is on a loopback or
// private address: the next run will refuse to poll it unless
// allow_private_networks is set, and the user should hear it now.
func warnPrivate(ctx context.Context, w io.Writer, added []config.Subscription) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, s := range added {
		u, err := url.Parse(s.URL)
		if err != nil {
			continue
		}
		if ip, private := fetch.PrivateAddress(ctx, u.Hostname()); private {
			fmt.Fprintf(w, "warning: %s is on a private address (%s): runs will not poll it unless [fetch] allow_private_networks = true\n", s.URL, ip)
		}
	}
}

func noUser(cfg *config.Config, path, name string) error {
	names := make([]string, len(cfg.Users))
	for i, u := range cfg.Users {
		names[i] = u.Name
	}
	return fmt.Errorf("%s: no user named %q (users: %s)", path, name, strings.Join(names, ", "))
}

// readOPML reads every outline of the file that is not a folder: feeds,
// and the outlines import has to say it skipped.
func readOPML(path string) ([]opml.Outline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	outlines, err := opml.ParseAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return outlines, nil
}

// importPlan is what becomes of each outline of an OPML file, in document
// order: a subscription, or a reason to skip it.
type importPlan []importItem

type importItem struct {
	outline opml.Outline
	sub     config.Subscription // URL normalised; set when reason is ""
	reason  string              // why the outline is not imported
}

// planImport turns feeds into subscriptions (normalised URL, the
// outline's title, its folder path) and gives every other outline a reason:
// no xmlUrl, an URL that cannot be polled, or a feed listed earlier in the
// file under the same normalised URL.
func planImport(outlines []opml.Outline) importPlan {
	plan := make(importPlan, 0, len(outlines))
	first := map[string]opml.Outline{}
	for _, o := range outlines {
		it := importItem{outline: o}
		url, err := domain.NormalizeFeedURL(o.XMLURL)
		switch earlier, dup := first[url]; {
		case o.XMLURL == "":
			it.reason = "no xmlUrl: not a feed"
		case err != nil:
			it.reason = skipReason(o.XMLURL, err)
		case dup:
			it.reason = "the same feed as " + outlineName(earlier) + " earlier in the file"
		default:
			first[url] = o
			it.sub = config.Subscription{URL: url, Title: domain.OneLine(o.Title), Folder: domain.OneLine(o.Category)}
		}
		plan = append(plan, it)
	}
	return plan
}

func (p importPlan) subscriptions() []config.Subscription {
	var subs []config.Subscription
	for _, it := range p {
		if it.reason == "" {
			subs = append(subs, it.sub)
		}
	}
	return subs
}

// alreadyHad skips the subscriptions the user has already.
func (p importPlan) alreadyHad(present []config.Subscription, user string) {
	for _, have := range present {
		url, _ := domain.NormalizeFeedURL(have.URL)
		for i := range p {
			if p[i].reason == "" && p[i].sub.URL == url {
				p[i].reason = "already in " + user + "'s feeds"
				if have.URL != p[i].outline.XMLURL {
					p[i].reason += " as " + have.URL
				}
			}
		}
	}
}

func skipReason(raw string, err error) string {
	u, perr := url.Parse(strings.TrimSpace(raw))
	switch {
	case perr != nil:
		return "not a valid URL"
	case u.Scheme == "":
		return "not an absolute URL"
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "feed":
		return fmt.Sprintf("scheme %q: only http and https feeds can be polled", u.Scheme)
	}
	return err.Error()
}

// outlineName names an outline for the reader: its title and URL, or
// whichever it has.
func outlineName(o opml.Outline) string {
	link := o.XMLURL
	if link == "" {
		link = o.HTMLURL
	}
	switch {
	case o.Title != "" && link != "":
		return fmt.Sprintf("%q (%s)", o.Title, link)
	case o.Title != "":
		return fmt.Sprintf("%q", o.Title)
	case link != "":
		return link
	}
	return "an outline without a name"
}

func writeImport(w io.Writer, cfgPath, user string, added []config.Subscription, plan importPlan) {
	fmt.Fprintf(w, "added %s to %s in %s\n", english.Count(len(added), "feed"), user, cfgPath)
	for _, s := range added {
		var about []string
		if s.Title != "" {
			about = append(about, s.Title)
		}
		if s.Folder != "" {
			about = append(about, "in "+s.Folder)
		}
		if len(about) > 0 {
			fmt.Fprintf(w, "  + %s  (%s)\n", s.URL, strings.Join(about, ", "))
		} else {
			fmt.Fprintf(w, "  + %s\n", s.URL)
		}
	}
	var skipped []importItem
	for _, it := range plan {
		if it.reason != "" {
			skipped = append(skipped, it)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "skipped %s:\n", english.Count(len(skipped), "outline"))
		for _, it := range skipped {
			fmt.Fprintf(w, "  - %s: %s\n", outlineName(it.outline), it.reason)
		}
	}
}

// exportCmd writes the feeds of one user, or of every user (one folder
// each when there are several), as OPML on stdout: config folders as
// nested folders, feeds without one as top-level outlines, and the
// config's titles, else the titles the feeds gave themselves. A config
// of one user exports as `-user` would: a folder named after its only
// user is made up, and an import of it would make it a folder.
func exportCmd(ctx context.Context, inv *invocation) error {
	cfg, err := inv.loadConfig()
	if err != nil {
		return err
	}
	now, stdout, stderr := time.Now(), inv.stdout, inv.stderr
	user := &inv.opts.user
	users, title := cfg.Users, "feeddigest subscriptions"
	if *user != "" {
		u, ok := cfg.User(*user)
		if !ok {
			return noUser(cfg, cfg.Path, *user)
		}
		users = []config.User{*u}
	}
	perUser := len(users) > 1
	if len(users) == 1 {
		title = fmt.Sprintf("feeddigest subscriptions of %s", users[0].Name)
	}
	known := knownFeeds(ctx, cfg, stderr)
	var outlines []opml.Outline
	firstUser := map[string]string{} // feed URL: the user it is listed under
	var shared []string
	for _, u := range users {
		for _, feed := range u.Feeds {
			if _, listed := firstUser[feed.URL]; listed {
				// One outline a feed: readers such as rss2email refuse a
				// file that lists a feed twice.
				shared = append(shared, fmt.Sprintf("%s (under %s; also %s's)", feed.URL, firstUser[feed.URL], u.Name))
				continue
			}
			firstUser[feed.URL] = u.Name
			o := opml.Outline{XMLURL: feed.URL, Title: feed.Title, HTMLURL: known[feed.URL].SiteURL, Category: feed.Folder}
			if o.Title == "" {
				o.Title = known[feed.URL].Title
			}
			if perUser {
				o.Category = strings.TrimSuffix(u.Name+opml.FolderSeparator+feed.Folder, opml.FolderSeparator)
			}
			outlines = append(outlines, o)
		}
	}
	if len(shared) > 0 {
		fmt.Fprintf(stderr, "feeddigest: %s of several users listed once, in the folder of the first user that has it (name a user with -user for all of theirs):\n", english.Count(len(shared), "feed"))
		for _, s := range shared {
			fmt.Fprintf(stderr, "  %s\n", s)
		}
	}
	return opml.Write(stdout, title, now, outlines)
}

// knownFeeds reads feed titles and site URLs from the state file, read
// only. Before the first run there is none, and an unreadable one only
// costs the titles: the export still lists every feed, by URL.
func knownFeeds(ctx context.Context, cfg *config.Config, stderr io.Writer) map[string]domain.Feed {
	st, err := pipeline.OpenReader(ctx, cfg)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		defer st.Close()
		var feeds []domain.Feed
		if feeds, err = st.Feeds(ctx); err == nil {
			known := make(map[string]domain.Feed, len(feeds))
			for _, f := range feeds {
				known[f.URL] = f
			}
			return known
		}
	}
	fmt.Fprintf(stderr, "feeddigest: feed titles unavailable, exporting URLs only: %v\n", err)
	return nil
}
