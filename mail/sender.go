// Package mail composes render's emails into MIME messages and delivers
// them over SMTP, both with go-mail. What a message says (its headers'
// values, its two bodies) is render's work; how it is encoded, how large
// it may be as sent, and how it travels is this package's.
package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/textproto"
	"os"
	"time"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// smtpTimeout bounds connecting and each SMTP exchange.
const smtpTimeout = 30 * time.Second

// Sender delivers messages over SMTP.
type Sender struct {
	client   *gomail.Client
	host     string
	cfg      senderConfig
	login    bool // a user name is set and sent
	verified bool // the certificate is verified when TLS is used
}

// SenderOption changes how a Sender connects.
type SenderOption func(*senderConfig)

type senderConfig struct {
	noTLS      bool
	requireTLS bool
	roots      *x509.CertPool // nil: the system's
	caFile     string         // where roots came from, for messages
	timeout    time.Duration
	helo       string
}

// WithoutTLS sends over plain SMTP without even trying STARTTLS: for tests
// and trusted local relays only.
func WithoutTLS() SenderOption {
	return func(c *senderConfig) { c.noTLS = true }
}

// WithRequiredTLS refuses to send unless the server offers STARTTLS and
// its certificate verifies, so the password and the mail never cross the
// network in clear or to an impostor.
func WithRequiredTLS() SenderOption {
	return func(c *senderConfig) { c.requireTLS = true }
}

// ErrNoCertificate: a tls_ca file holds no PEM certificate.
var ErrNoCertificate = errors.New("no PEM certificate in the file")

// TrustedCA reads file, PEM certificates (a relay's own, self-signed),
// and returns the option that verifies the server's certificate against
// them instead of the system's roots.
func TrustedCA(file string) (SenderOption, error) {
	pemBytes, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("mail: trusted certificates: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		return nil, fmt.Errorf("mail: trusted certificates %s: %w", file, ErrNoCertificate)
	}
	return func(c *senderConfig) { c.roots, c.caFile = pool, file }, nil
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
// speaks TLS from the start (port 465 by default) and verifies the
// certificate. Otherwise, by default, it is opportunistic as mail servers
// mean it (Postfix's "may"): STARTTLS when the server offers it, without
// verifying the certificate (encryption against listening, not against an
// impostor), plain when not offered; WithRequiredTLS verifies and
// WithoutTLS never encrypts. A username is only ever sent, with the
// password, over an encrypted connection.
func NewSender(host string, port int, username, password string, implicitTLS bool, opts ...SenderOption) (*Sender, error) {
	cfg := senderConfig{timeout: smtpTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	client, err := gomail.NewClient(host, clientOptions(cfg, host, port, username, password, implicitTLS)...)
	if err != nil {
		return nil, fmt.Errorf("mail: smtp client for %s: %w", host, err)
	}
	return &Sender{client: client, host: host, cfg: cfg, login: username != "" && !cfg.noTLS,
		verified: implicitTLS || cfg.requireTLS}, nil
}

func clientOptions(cfg senderConfig, host string, port int, username, password string, implicitTLS bool) []gomail.Option {
	if port <= 0 {
		port = 587
		if implicitTLS {
			port = 465
		}
	}
	verified := implicitTLS || cfg.requireTLS
	tlsConfig := &tls.Config{ServerName: host, RootCAs: cfg.roots, MinVersion: tls.VersionTLS12,
		InsecureSkipVerify: !verified} //nolint:gosec // opportunistic TLS is unverified by definition
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(cfg.timeout), gomail.WithTLSConfig(tlsConfig)}
	switch {
	case implicitTLS:
		opts = append(opts, gomail.WithSSL())
	case cfg.noTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case cfg.requireTLS, username != "":
		// A login needs an encrypted connection: opportunistic with a
		// user is mandatory STARTTLS, still unverified.
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
	return s.SendMarked(ctx, nil, msgs...)
}

// DataEnd is called with a message once its data is written, just
// before the line that ends the data (".") is sent: from then on the
// server may take the message whatever becomes of this process, and
// until then it cannot. An error stops the message there: the
// connection is dropped, and the server, which never saw the end of the
// data, discards it.
type DataEnd func(*Message) error

// SendMarked is Send calling dataEnd (nil: none) before the end of each
// message's data. A message whose data ended and that got no answer (the
// connection broke or timed out) fails InDoubt: it may have been taken.
func (s *Sender) SendMarked(ctx context.Context, dataEnd DataEnd, msgs ...*Message) error {
	if len(msgs) == 0 {
		return nil
	}
	conn, err := s.client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return s.failure(err)
	}
	var errs []error
	usable := true
	for _, m := range msgs {
		err := s.handOver(conn, m, dataEnd)
		if err == nil {
			continue
		}
		errs = append(errs, err)
		if usable = conn.Reset() == nil; !usable {
			break // the connection is gone: the rest would fail alike
		}
	}
	if usable {
		// Every message's fate is known from its own answer: a failed QUIT
		// changes none of them.
		conn.Quit() //nolint:errcheck // see above
	}
	conn.Close() //nolint:errcheck // closed already after QUIT
	if len(errs) > 0 {
		return s.failure(errors.Join(errs...))
	}
	return nil
}

// handOver sends one message over conn, a connection ready for MAIL:
// its envelope, its data, and, after dataEnd agreed, the end of the data.
// The timeout counts from the message's first command, as go-mail's
// own sending does.
func (s *Sender) handOver(conn *smtp.Client, m *Message, dataEnd DataEnd) error {
	if err := conn.UpdateDeadline(s.cfg.timeout); err != nil {
		return &messageError{step: "MAIL FROM", err: err}
	}
	from, err := m.msg.GetSender(false)
	if err != nil {
		return &messageError{step: "MAIL FROM", err: err}
	}
	rcpts, err := m.msg.GetRecipients()
	if err != nil {
		return &messageError{step: "RCPT TO", err: err}
	}
	if err := conn.Mail(from); err != nil {
		return &messageError{step: "MAIL FROM", err: err}
	}
	for _, rcpt := range rcpts {
		if err := conn.Rcpt(rcpt); err != nil {
			return &messageError{step: "RCPT TO " + rcpt, err: err}
		}
	}
	w, err := conn.Data()
	if err != nil {
		return &messageError{step: "DATA", err: err}
	}
	// The data goes through a buffer that only Close flushes with the
	// line that ends it, so that line cannot leave before dataEnd.
	if _, err := m.msg.WriteTo(w); err != nil {
		conn.Close() //nolint:errcheck // broken off mid-data: the server discards the message
		return &messageError{step: "the message's data", err: err}
	}
	if dataEnd != nil {
		if err := dataEnd(m); err != nil {
			// No RSET or QUIT can follow unfinished data (the server would
			// read them as data): only dropping the connection stops it.
			conn.Close() //nolint:errcheck // see above
			return &messageError{step: "before the end of the data", err: fmt.Errorf("%w: %w", ErrDataEndRefused, err)}
		}
	}
	if err := w.Close(); err != nil {
		var reply *textproto.Error
		return &messageError{step: "the end of the data", err: err, inDoubt: !errors.As(err, &reply)}
	}
	return nil
}

// ErrDataEndRefused: the caller's DataEnd refused the end of a message's
// data, so the message was not sent.
var ErrDataEndRefused = errors.New("the message was stopped before the end of its data")

// Probe is what a connection without a message found: whether it was
// encrypted and verified, and whether a login was made.
type Probe struct {
	Encrypted bool
	Verified  bool // the certificate verified (required TLS, implicit TLS)
	LoggedIn  bool
}

// Probe connects as Send would (EHLO, STARTTLS, AUTH when a user is
// set), sends no message, and says what it found; a failure is an *Error
// as Send's.
func (s *Sender) Probe(ctx context.Context) (Probe, error) {
	conn, err := s.client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return Probe{}, s.failure(err)
	}
	defer s.client.CloseWithSMTPClient(conn) //nolint:errcheck // nothing was sent: a failed QUIT loses nothing
	var p Probe
	if _, err := conn.GetTLSConnectionState(); err == nil {
		p.Encrypted = true
		p.Verified = s.verified
	}
	p.LoggedIn = s.login
	return p, nil
}
