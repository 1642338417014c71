// Package smtptest runs a real SMTP server (go-smtp) on a loopback port
// for tests, as net/http/httptest does for HTTP: it keeps what it
// receives, can be stopped and started again on the same port, can answer
// DATA with a temporary or a permanent failure, can offer STARTTLS with a
// self-signed certificate, can offer AUTH: PLAIN or CRAM-MD5, whose
// logins it counts and can refuse (535), and can stall at any stage of
// the conversation (Stall).
package smtptest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message as the server received it.
type Message struct {
	From      string
	To        []string
	Data      []byte
	Encrypted bool // it came over TLS (STARTTLS)
}

// Server is a running test SMTP server.
type Server struct {
	t        testing.TB
	port     int
	authMech []string
	cert     *SelfSigned // STARTTLS offered with it; nil: plain only

	mu       sync.Mutex
	server   *smtp.Server
	listener net.Listener
	accepted []Message
	rejected []Message // DATA answered 451 while failing, 554 while rejecting
	failing  bool
	refusing bool // DATA answered 554
	logins   int  // AUTH attempts
	badLogin bool // AUTH answered 535
	hook     Hook // nil: every stage goes on at once
	stall    *stall
	narrow   bool // connections get a small window (NarrowWindow)
	waiters  []acceptWaiter
}

// acceptWaiter is closed once n messages were accepted (Accepted).
type acceptWaiter struct {
	n    int
	done chan struct{}
}

// Moment is a moment of an SMTP conversation at which a Hook is called.
type Moment int

const (
	AtGreeting Moment = iota // a connection was accepted, before the 220
	AtHello                  // EHLO/HELO, before its answer
	AtMail                   // MAIL FROM, before its answer
	AtRcpt                   // RCPT TO, before its answer
	AtData                   // DATA, before the message is read
	AtDataEnd                // the message was read to its end, before the answer
)

func (st Moment) String() string {
	return [...]string{"greeting", "hello", "mail", "rcpt", "data", "end of data"}[st]
}

// A Hook is called at each stage of each conversation, with the message
// as read so far (its Data only at AtDataEnd). It may block (a relay that
// stalls: the client waits), return an error the server answers with (an
// *smtp.SMTPError for a refusal), or return ErrDrop to close the
// connection without an answer. At AtDataEnd, ErrDropAccepted keeps the
// message as accepted and then drops the connection (the answer lost).
type Hook func(st Moment, m Message) error

var (
	ErrDrop         = errors.New("smtptest: drop the connection")
	ErrDropAccepted = errors.New("smtptest: accept the message, then drop the connection")
)

// WithHook makes the server call h at every stage of every conversation.
func WithHook(h Hook) Option { return func(s *Server) { s.hook = h } }

// at runs the hook, if any, for a stage of the conversation on c.
func (s *Server) at(st Moment, m Message, c io.Closer) error {
	if s.hook == nil {
		return nil
	}
	err := s.hook(st, m)
	if errors.Is(err, ErrDrop) {
		c.Close()
	}
	return err
}

// Option changes a Server.
type Option func(*Server)

// OfferAuth makes the server offer these SASL mechanisms (PLAIN works)
// on its unencrypted connection.
func OfferAuth(mechanisms ...string) Option {
	return func(s *Server) { s.authMech = mechanisms }
}

// NarrowWindow gives the server's connections a small TCP window, so
// that a client writing a message to a server that stopped reading
// (StallInData) is held after a few kilobytes, before the end of its
// data, instead of handing the whole message to its kernel at once.
func NarrowWindow() Option {
	return func(s *Server) { s.narrow = true }
}

// Start serves on a free loopback port until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	s := &Server{t: t}
	for _, o := range opts {
		o(s)
	}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Restart serves again, on the same port as before.
func (s *Server) Restart() {
	s.t.Helper()
	lc := net.ListenConfig{}
	if s.narrow {
		lc.Control = narrowWindow
	}
	inner, err := lc.Listen(context.Background(), "tcp", fmt.Sprintf("127.0.0.1:%d", s.port))
	if err != nil {
		s.t.Fatal(err)
	}
	l := stallListener{Listener: inner, s: s}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = s.cert == nil
	if s.cert != nil {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{s.cert.TLS}}
	}
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	s.mu.Lock()
	s.port = l.Addr().(*net.TCPAddr).Port
	s.server, s.listener = srv, l
	s.mu.Unlock()
	var served net.Listener = l
	if s.hook != nil {
		served = hookedListener{l, s}
	}
	go srv.Serve(served)
}

// hookedListener calls the hook's AtGreeting stage before the server
// writes its greeting to a connection.
type hookedListener struct {
	net.Listener
	s *Server
}

func (l hookedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &greetConn{Conn: c, s: l.s}, nil
}

// greetConn runs the AtGreeting stage at its first write (the 220), in
// the connection's own goroutine so that a stall holds only this client.
type greetConn struct {
	net.Conn
	s       *Server
	greeted bool
}

func (c *greetConn) Write(b []byte) (int, error) {
	if !c.greeted {
		c.greeted = true
		if err := c.s.at(AtGreeting, Message{}, c.Conn); err != nil {
			c.Conn.Close()
			return 0, err
		}
	}
	return c.Conn.Write(b)
}

// Stop closes the listener: connections are refused until Restart. A
// stall ends with it (Heal), so that no stalled connection outlives it.
func (s *Server) Stop() {
	s.Heal()
	s.mu.Lock()
	srv, l := s.server, s.listener
	s.server, s.listener = nil, nil
	s.mu.Unlock()
	// Close the listener itself: Serve may not have registered it with the
	// server yet, and then srv.Close alone would leave the port open.
	if l != nil {
		l.Close()
	}
	if srv != nil {
		srv.Close()
	}
}

// Port is the server's port.
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// URL is the server as feeddigest's [email] smtp setting names it.
func (s *Server) URL() string { return fmt.Sprintf("smtp://127.0.0.1:%d", s.Port()) }

// SetFailing makes DATA answer 451 (try again later) while f is true.
func (s *Server) SetFailing(f bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing = f
}

// SetRejecting makes DATA answer 554 (refused for good) while r is true.
func (s *Server) SetRejecting(r bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusing = r
}

// RefuseLogins makes AUTH answer 535 (authentication credentials
// invalid) while r is true.
func (s *Server) RefuseLogins(r bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.badLogin = r
}

// Logins counts the AUTH attempts made so far, refused or not.
func (s *Server) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// login records an AUTH attempt and answers it.
func (s *Server) login() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logins++
	if s.badLogin {
		return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "authentication credentials invalid"}
	}
	return nil
}

// Messages returns what was accepted, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.accepted...)
}

// Rejected returns what DATA refused while failing.
func (s *Server) Rejected() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.rejected...)
}

func (s *Server) receive(m Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failing {
		s.rejected = append(s.rejected, m)
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	if s.refusing {
		s.rejected = append(s.rejected, m)
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "message refused"}
	}
	s.accepted = append(s.accepted, m)
	s.waiters = slices.DeleteFunc(s.waiters, func(w acceptWaiter) bool {
		if len(s.accepted) < w.n {
			return false
		}
		close(w.done)
		return true
	})
	return nil
}

// Accepted is closed once the server has accepted n messages in all,
// the moment it took the n-th (before its answer is written): a test
// kills a client there.
func (s *Server) Accepted(n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := acceptWaiter{n: n, done: make(chan struct{})}
	if len(s.accepted) >= n {
		close(w.done)
		return w.done
	}
	s.waiters = append(s.waiters, w)
	return w.done
}

type backend struct{ s *Server }

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	if err := b.s.at(AtHello, Message{}, c); err != nil {
		return nil, err
	}
	if len(b.s.authMech) > 0 {
		return &authSession{session{server: b.s, conn: c}}, nil
	}
	return &session{server: b.s, conn: c}, nil
}

type session struct {
	server *Server
	conn   *smtp.Conn
	cur    Message
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	_, encrypted := s.conn.TLSConnectionState()
	s.cur = Message{From: from, Encrypted: encrypted}
	return s.server.at(AtMail, s.cur, s.conn)
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return s.server.at(AtRcpt, s.cur, s.conn)
}

func (s *session) Data(r io.Reader) error {
	if s.stallData(r) {
		return errStalled
	}
	if err := s.server.at(AtData, s.cur, s.conn); err != nil {
		return err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = b
	switch err := s.server.at(AtDataEnd, s.cur, s.conn); {
	case errors.Is(err, ErrDropAccepted):
		s.server.receive(s.cur)
		s.conn.Close()
		return err
	case err != nil:
		return err
	}
	return s.server.receive(s.cur)
}

func (s *session) Reset()        { s.cur = Message{} }
func (s *session) Logout() error { return nil }

type authSession struct{ session }

func (s *authSession) AuthMechanisms() []string { return s.server.authMech }

func (s *authSession) Auth(mech string) (sasl.Server, error) {
	if st := s.server.currentStall(); st != nil && st.stage == StallLogin {
		hold(st, s.conn.Conn())
		return nil, errStalled
	}
	if mech == CRAMMD5 {
		return &cramMD5{server: s.server}, nil
	}
	return sasl.NewPlainServer(func(_, _, _ string) error { return s.server.login() }), nil
}

// CRAMMD5 is a SASL mechanism a client may use without TLS, since the
// password never crosses the connection: with OfferAuth(CRAMMD5) a test
// holds a real login conversation on plain SMTP.
const CRAMMD5 = "CRAM-MD5"

// cramMD5 is the server side of CRAM-MD5 (RFC 2195): a challenge, then
// "user digest". Any digest passes unless logins are refused: the tests
// count and refuse logins, they do not check passwords.
type cramMD5 struct {
	server     *Server
	challenged bool
}

func (c *cramMD5) Next(response []byte) ([]byte, bool, error) {
	if !c.challenged {
		c.challenged = true
		return []byte("<1896.697170952@localhost>"), false, nil
	}
	return nil, true, c.server.login()
}
