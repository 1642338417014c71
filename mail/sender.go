// Package mail composes render's emails into MIME messages and delivers
// them over SMTP, both with go-mail. What a message says (its headers'
// values, its two bodies) is render's work; how it is encoded, how large
// it may be as sent, and how it travels is this package's.
package mail

import (
	"context"
	"fmt"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// smtpTimeout bounds connecting and each SMTP exchange.
const smtpTimeout = 30 * time.Second

// Sender delivers messages over SMTP.
type Sender struct {
	client *gomail.Client
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
	client, err := gomail.NewClient(host, clientOptions(cfg, port, username, password, implicitTLS)...)
	if err != nil {
		return nil, fmt.Errorf("mail: smtp client for %s: %w", host, err)
	}
	return &Sender{client: client}, nil
}

func clientOptions(cfg senderConfig, port int, username, password string, implicitTLS bool) []gomail.Option {
	if port <= 0 {
		port = 587
		if implicitTLS {
			port = 465
		}
	}
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(cfg.timeout)}
	switch {
	case implicitTLS:
		opts = append(opts, gomail.WithSSL())
	case cfg.noTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case cfg.requireTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(username), gomail.WithPassword(password))
	}
	if cfg.helo != "" {
		opts = append(opts, gomail.WithHELO(cfg.helo))
	}
	return opts
}

// Send delivers the messages over one connection. A failure is an *Error
// that says whether it may pass and whether it came before any message;
// it joins the failures of every message that was not accepted.
func (s *Sender) Send(ctx context.Context, msgs ...*Message) error {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]*gomail.Msg, len(msgs))
	for i, m := range msgs {
		out[i] = m.msg
	}
	if err := s.client.DialAndSendWithContext(ctx, out...); err != nil {
		return failure(err)
	}
	return nil
}
