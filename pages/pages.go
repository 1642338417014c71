// Package pages builds what a reader sees of the stored digests: each
// digest's page and email message, each user's index and Atom feed, and
// status.html, from the state's rows, written through output.Publisher.
// The run (pipeline) writes the pages of the digests it builds; the
// publish command writes the whole site from a state it only reads.
package pages

import (
	"context"
	"sync"
	"time"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/mail"
	"feeddigest/render"
	"feeddigest/store"
)

// Marker records that a digest's pages (and outbox file) are written: the
// state a run holds.
type Marker interface {
	MarkRendered(ctx context.Context, user, date string, now time.Time) error
}

// MailRows reads, for the status page, each user's mail that did not go
// out (the send plan is the run's; see pipeline.MailStatus).
type MailRows func(ctx context.Context, rd store.Reader, now time.Time) ([]render.MailStatus, error)

// Builder builds and writes the pages of one pass, or of one publish, as
// of now. Its methods may be called side by side.
type Builder struct {
	cfg  *config.Config
	rd   store.Reader
	mark Marker // nil: nothing is marked (publish only reads)
	now  time.Time
	// mailRows gives the status page its mail rows; nil: none.
	mailRows MailRows

	// installation is the state's installation id, once read (atomSite).
	installation *string
	installMu    sync.Mutex
	mu           sync.Mutex // guards written, outboxed and emails
	// written counts the digest pages written, outboxed the emails
	// written to the outbox.
	written, outboxed int
	// emails holds the digest emails composed for the outbox, by
	// digestKey, so the send step mails the very message the outbox has
	// and composes only those written in an earlier run.
	emails map[string]*mail.Message
	// feeds are the feed records as the poll left them (storedFeeds).
	feeds []domain.Feed
}

// New is a Builder of the pages of the state rd as of now, marking the
// digests whose pages it writes with mark (nil: none marked), and
// showing on the status page the mail rows that mailRows reads (nil:
// none).
func New(cfg *config.Config, rd store.Reader, mark Marker, now time.Time, mailRows MailRows) *Builder {
	return &Builder{cfg: cfg, rd: rd, mark: mark, now: now, mailRows: mailRows}
}

// Written is how many digest pages the Builder wrote.
func (b *Builder) Written() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.written
}

// Outboxed is how many digest emails the Builder wrote to the outbox.
func (b *Builder) Outboxed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.outboxed
}
