// Package output is the one door for output files. It owns the layout of
// the published site and the outbox:
//
//	SITE/<user>/<YYYY-MM-DD>.html   a day's digest page
//	SITE/<user>/index.html          a user's archive
//	SITE/<user>/feed.xml            a user's Atom feed
//	SITE/status.html                the feeds' health
//	SITE/favicon.svg                the site's icon, which every page links
//	OUTBOX/<user>-<YYYY-MM-DD>.eml  a digest email, as sent
//
// Every file is replaced atomically: the content goes to a temporary file
// in the same folder, is synced, and is renamed over the old file, so a
// web server, a mail client or a crash sees the old file or the new one,
// never half of one. Content arrives as an io.WriterTo and is streamed
// into the temporary file, so nothing needs to be built in memory first.
package output

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"
)

// ErrBadName is returned for a user name or date that cannot be one
// element of a path in the layout.
var ErrBadName = errors.New("output: not a usable file name")

// ErrNoOutbox is returned when a message is written without an outbox.
var ErrNoOutbox = errors.New("output: no outbox folder configured")

// filePerm is the mode of every published file: the web server and the
// mail tooling read them as another user.
const filePerm = 0o644

// Publisher writes the site and the outbox.
type Publisher struct {
	siteDir string
	outbox  string
}

// New returns a Publisher for the site in siteDir and the outbox in
// outbox ("" when messages are not kept). Folders are made on first write.
func New(siteDir, outbox string) *Publisher {
	return &Publisher{siteDir: siteDir, outbox: outbox}
}

// DigestPage writes the page of user's digest of date (YYYY-MM-DD).
func (p *Publisher) DigestPage(user, date string, page io.WriterTo) error {
	if err := checkUser(user); err != nil {
		return err
	}
	if err := checkDate(date); err != nil {
		return err
	}
	return replace(filepath.Join(p.siteDir, user, date+".html"), page)
}

// OpenDigestPage opens the written page of user's digest of date, for
// reading: the index copies the digest's body from it.
func (p *Publisher) OpenDigestPage(user, date string) (*os.File, error) {
	if err := checkUser(user); err != nil {
		return nil, err
	}
	if err := checkDate(date); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(p.siteDir, user, date+".html"))
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return f, nil
}

// UserIndex writes user's archive page.
func (p *Publisher) UserIndex(user string, page io.WriterTo) error {
	if err := checkUser(user); err != nil {
		return err
	}
	return replace(p.indexPath(user), page)
}

// UserFeed writes user's Atom feed.
func (p *Publisher) UserFeed(user string, feed io.WriterTo) error {
	if err := checkUser(user); err != nil {
		return err
	}
	return replace(filepath.Join(p.siteDir, user, "feed.xml"), feed)
}

// OpenUserFeed opens user's Atom feed as written before.
func (p *Publisher) OpenUserFeed(user string) (*os.File, error) {
	if err := checkUser(user); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(p.siteDir, user, "feed.xml"))
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return f, nil
}

// StatusPage writes the status page.
func (p *Publisher) StatusPage(page io.WriterTo) error {
	return replace(filepath.Join(p.siteDir, "status.html"), page)
}

// favicon is the site's own icon: pages link it by a relative address,
// so no page asks another site for anything.
//
//go:embed favicon.svg
var favicon []byte

// FaviconName is the icon's file name at the root of the site.
const FaviconName = "favicon.svg"

// Favicon writes the site's icon unless it is there already, as it is: a
// pass that changes nothing else leaves the site as it was.
func (p *Publisher) Favicon() error {
	path := filepath.Join(p.siteDir, FaviconName)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, favicon) {
		return nil
	}
	return replace(path, bytes.NewReader(favicon))
}

// KeepsOutbox reports whether an outbox is configured; without one there
// is no point in building messages for it.
func (p *Publisher) KeepsOutbox() bool {
	return p.outbox != ""
}

// OutboxMessage writes user's digest email of date to the outbox.
func (p *Publisher) OutboxMessage(user, date string, msg io.WriterTo) error {
	if !p.KeepsOutbox() {
		return ErrNoOutbox
	}
	if err := checkUser(user); err != nil {
		return err
	}
	if err := checkDate(date); err != nil {
		return err
	}
	return replace(filepath.Join(p.outbox, user+"-"+date+".eml"), msg)
}

// HasUserIndex reports whether user's archive page exists, so one lost
// (or never written) is written again.
func (p *Publisher) HasUserIndex(user string) bool {
	if checkUser(user) != nil {
		return false
	}
	_, err := os.Stat(p.indexPath(user))
	return err == nil
}

func (p *Publisher) indexPath(user string) string {
	return filepath.Join(p.siteDir, user, "index.html")
}

// replace streams content into a temporary file next to path and renames
// it over path; on any error path is left as it was.
func replace(path string, content io.WriterTo) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output: write %s: %w", path, err)
	}
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithStaticPermissions(filePerm))
	if err != nil {
		return fmt.Errorf("output: write %s: %w", path, err)
	}
	defer f.Cleanup()
	w := bufio.NewWriter(f)
	if _, err := content.WriteTo(w); err != nil {
		return fmt.Errorf("output: write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("output: write %s: %w", path, err)
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("output: write %s: %w", path, err)
	}
	return nil
}

// checkUser refuses a name that would leave its folder or hide among the
// temporary files (which start with a dot).
func checkUser(user string) error {
	if user == "" || strings.HasPrefix(user, ".") || strings.ContainsAny(user, `/\`) {
		return fmt.Errorf("%w: user %q", ErrBadName, user)
	}
	return nil
}

func checkDate(date string) error {
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return fmt.Errorf("%w: date %q is not YYYY-MM-DD", ErrBadName, date)
	}
	return nil
}
