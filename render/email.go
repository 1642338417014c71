package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
)

// ErrNoRecipient is returned by EmailMessage for a user without an email
// address: such a user gets pages only.
var ErrNoRecipient = errors.New("render: digest has no recipient address")

// EmailMessage builds the digest email: multipart/alternative with a
// plain-text part that reads well alone and an HTML part with inline
// styles (mail clients drop <style>). Everything that varies between two
// builds of one digest (Message-ID, MIME boundary, Date) is derived from
// the digest, so the message is byte for byte reproducible and a repeated
// send is recognisable by its Message-ID.
func EmailMessage(d Digest, from, siteURL string) (*mail.Msg, error) {
	if strings.TrimSpace(d.Email) == "" {
		return nil, ErrNoRecipient
	}
	v, err := newDigestView(d)
	if err != nil {
		return nil, err
	}
	v.Subject = "Your digest for " + v.Day.Format("Monday 2 January")
	v.WebURL = siteFile(siteURL, d.User, d.Date+".html")
	msg, err := newMsg(d, from, v.Subject)
	if err != nil {
		return nil, err
	}
	return msg, setBodies(msg, v)
}

// newMsg sets the headers of a digest email.
func newMsg(d Digest, from, subject string) (*mail.Msg, error) {
	msg := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := msg.From(from); err != nil {
		return nil, fmt.Errorf("render: email from %q: %w", from, err)
	}
	if err := msg.To(d.Email); err != nil {
		return nil, fmt.Errorf("render: email to %q: %w", d.Email, err)
	}
	domain := mailDomain(from)
	msg.Subject(subject)
	msg.SetDateWithValue(d.BuiltAt.In(zone(d)))
	msg.SetMessageIDWithValue(fmt.Sprintf("digest-%s-%s@%s", d.Date, d.User, domain))
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetGenHeader("List-Id", fmt.Sprintf("%s digest <%s.digest.%s>", d.User, d.User, domain))
	// Out-of-office replies to a digest help nobody.
	msg.SetGenHeader(mail.HeaderXAutoResponseSuppress, "All")
	msg.SetUserAgent("feeddigest")
	msg.SetBoundary(boundary(d.User, d.Date))
	return msg, nil
}

// setBodies renders both parts; the plain text comes first, as the MIME
// rules for alternatives put the simplest one first.
func setBodies(msg *mail.Msg, v *digestView) error {
	text, err := execText("email.txt", v)
	if err != nil {
		return err
	}
	page, err := execPage("email.html", v)
	if err != nil {
		return err
	}
	msg.SetBodyString(mail.TypeTextPlain, text)
	msg.AddAlternativeString(mail.TypeTextHTML, string(page))
	return nil
}

// mailDomain is the domain of the From address, so Message-IDs are ours;
// "feeddigest" when the address has none.
func mailDomain(from string) string {
	if a, err := netmail.ParseAddress(from); err == nil {
		if i := strings.LastIndexByte(a.Address, '@'); i >= 0 && i < len(a.Address)-1 {
			return a.Address[i+1:]
		}
	}
	return "feeddigest"
}

// boundary is a MIME boundary fixed per digest, so golden files and resent
// messages are identical; a hash cannot occur in the quoted-printable body.
func boundary(user, date string) string {
	sum := sha256.Sum256([]byte(user + "\x00" + date))
	return "feeddigest-" + hex.EncodeToString(sum[:12])
}

// EMLName is the outbox file name of a digest: <user>-<YYYY-MM-DD>.eml.
func EMLName(user, date string) string {
	return user + "-" + date + ".eml"
}

// WriteEML writes the message to path atomically: a temporary file in the
// same folder, synced, then renamed, so a reader (or a crash) never sees
// half a message.
func WriteEML(msg *mail.Msg, path string) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = msg.WriteTo(f); err != nil {
		return fmt.Errorf("render: write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// smtpTimeout bounds connecting and each SMTP exchange.
const smtpTimeout = 30 * time.Second

// Sender delivers messages over SMTP.
type Sender struct {
	client *mail.Client
}

// SenderOption changes how a Sender connects.
type SenderOption func(*senderConfig)

type senderConfig struct {
	noTLS      bool
	requireTLS bool
	timeout    time.Duration
	helo       string
}

// WithoutTLS sends over plain SMTP without even trying STARTTLS: for tests
// and trusted local relays only.
func WithoutTLS() SenderOption {
	return func(c *senderConfig) { c.noTLS = true }
}

// WithRequiredTLS refuses to send unless the server offers STARTTLS, so
// the password and the mail never cross the network in clear.
func WithRequiredTLS() SenderOption {
	return func(c *senderConfig) { c.requireTLS = true }
}

// WithTimeout replaces the 30 s SMTP timeout.
func WithTimeout(d time.Duration) SenderOption {
	return func(c *senderConfig) { c.timeout = d }
}

// WithHELO sets the name the client gives in EHLO (default: the host name).
func WithHELO(name string) SenderOption {
	return func(c *senderConfig) { c.helo = name }
}

// NewSender prepares delivery to an SMTP server. With implicitTLS it
// speaks TLS from the start (port 465 by default); otherwise it upgrades
// with STARTTLS when the server offers it (port 587 by default). It
// authenticates only when a username is given, and then never with a
// mechanism that would show the password on an unencrypted connection.
func NewSender(host string, port int, username, password string, implicitTLS bool, opts ...SenderOption) (*Sender, error) {
	cfg := senderConfig{timeout: smtpTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	client, err := mail.NewClient(host, clientOptions(cfg, port, username, password, implicitTLS)...)
	if err != nil {
		return nil, fmt.Errorf("render: smtp client for %s: %w", host, err)
	}
	return &Sender{client: client}, nil
}

func clientOptions(cfg senderConfig, port int, username, password string, implicitTLS bool) []mail.Option {
	if port <= 0 {
		port = 587
		if implicitTLS {
			port = 465
		}
	}
	opts := []mail.Option{mail.WithPort(port), mail.WithTimeout(cfg.timeout)}
	switch {
	case implicitTLS:
		opts = append(opts, mail.WithSSL())
	case cfg.noTLS:
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	case cfg.requireTLS:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	default:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	}
	if username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover),
			mail.WithUsername(username), mail.WithPassword(password))
	}
	if cfg.helo != "" {
		opts = append(opts, mail.WithHELO(cfg.helo))
	}
	return opts
}

// Send delivers the messages over one connection. The error joins the
// failures of every message that was not accepted.
func (s *Sender) Send(ctx context.Context, msgs ...*mail.Msg) error {
	if len(msgs) == 0 {
		return nil
	}
	if err := s.client.DialAndSendWithContext(ctx, msgs...); err != nil {
		return fmt.Errorf("render: smtp: %w", err)
	}
	return nil
}
