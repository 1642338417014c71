package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/internal/english"
	"feeddigest/opml"
	"feeddigest/pipeline"
)

// importCmd adds the feeds of an OPML file to one user's feeds in the
// configuration file, editing only that user's feeds array.
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
	urls, skipped := pollable(outlines)
	added, present, err := config.AddFeeds(cfg.Path, user, urls)
	if err != nil {
		return err
	}
	writeImport(stdout, inv.opts.config, user, outlines, added, present, skipped)
	return nil
}

func noUser(cfg *config.Config, path, name string) error {
	names := make([]string, len(cfg.Users))
	for i, u := range cfg.Users {
		names[i] = u.Name
	}
	return fmt.Errorf("%s: no user named %q (users: %s)", path, name, strings.Join(names, ", "))
}

func readOPML(path string) ([]opml.Outline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	outlines, err := opml.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return outlines, nil
}

// skip is an OPML feed that cannot be subscribed to, and why.
type skip struct{ url, reason string }

// pollable splits the OPML's URLs into those a config accepts and the
// rest.
func pollable(outlines []opml.Outline) (urls []string, skipped []skip) {
	for _, o := range outlines {
		if reason := skipReason(o.XMLURL); reason != "" {
			skipped = append(skipped, skip{o.XMLURL, reason})
			continue
		}
		urls = append(urls, strings.TrimSpace(o.XMLURL))
	}
	return urls, skipped
}

func skipReason(raw string) string {
	err := config.CheckFeedURL(raw)
	if err == nil {
		return ""
	}
	u, perr := url.Parse(strings.TrimSpace(raw))
	switch {
	case perr != nil:
		return "not a valid URL"
	case u.Scheme == "":
		return "not an absolute URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("scheme %q: only http and https feeds can be polled", u.Scheme)
	}
	return err.Error()
}

func writeImport(w io.Writer, cfgPath, user string, outlines []opml.Outline, added, present []string, skipped []skip) {
	titles := map[string]string{}
	for _, o := range outlines {
		titles[strings.TrimSpace(o.XMLURL)] = o.Title
	}
	fmt.Fprintf(w, "added %s to %s in %s\n", english.Count(len(added), "feed"), user, cfgPath)
	for _, u := range added {
		if t := titles[u]; t != "" {
			fmt.Fprintf(w, "  + %s  (%s)\n", u, t)
		} else {
			fmt.Fprintf(w, "  + %s\n", u)
		}
	}
	if len(present) > 0 {
		fmt.Fprintf(w, "already subscribed, skipped: %d\n", len(present))
		for _, u := range present {
			fmt.Fprintf(w, "  = %s\n", u)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "not imported: %d\n", len(skipped))
		for _, s := range skipped {
			fmt.Fprintf(w, "  - %s: %s\n", s.url, s.reason)
		}
	}
}

// exportCmd writes the feeds of one user, or of every user (one folder
// each), as OPML on stdout.
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
		users, title = []config.User{*u}, fmt.Sprintf("feeddigest subscriptions of %s", u.Name)
	}
	known := knownFeeds(ctx, cfg, stderr)
	var outlines []opml.Outline
	for _, u := range users {
		for _, feed := range u.FeedURLs() {
			o := opml.Outline{XMLURL: feed, Title: known[feed].Title, HTMLURL: known[feed].SiteURL}
			if *user == "" {
				o.Category = u.Name
			}
			outlines = append(outlines, o)
		}
	}
	return opml.Write(stdout, title, now, outlines)
}

// knownFeeds reads feed titles and site URLs from the state file, read
// only. Before the first run there is none, and an unreadable one only
// costs the titles: the export still lists every feed, by URL.
func knownFeeds(ctx context.Context, cfg *config.Config, stderr io.Writer) map[string]domain.Feed {
	if _, err := os.Stat(cfg.State); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	st, err := pipeline.OpenReader(ctx, cfg)
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
