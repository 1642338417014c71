// Package smtptest runs a real SMTP server (go-smtp) on a loopback port
// for tests, as net/http/httptest does for HTTP: it keeps what it
// receives, can be stopped and started again on the same port, can answer
// DATA with a temporary failure, and can offer AUTH without TLS (which a
// careful client must refuse).
package smtptest

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message as the server received it.
type Message struct {
	From string
	To   []string
	Data []byte
}

// Server is a running test SMTP server.
type Server struct {
	t        testing.TB
	port     int
	authMech []string

	mu       sync.Mutex
	server   *smtp.Server
	listener net.Listener
	accepted []Message
	rejected []Message // DATA answered 451 while failing
	failing  bool
}

// Option changes a Server.
type Option func(*Server)

// OfferAuth makes the server offer these SASL mechanisms (PLAIN works)
// on its unencrypted connection.
func OfferAuth(mechanisms ...string) Option {
	return func(s *Server) { s.authMech = mechanisms }
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
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", s.port))
	if err != nil {
		s.t.Fatal(err)
	}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	s.mu.Lock()
	s.port = l.Addr().(*net.TCPAddr).Port
	s.server, s.listener = srv, l
	s.mu.Unlock()
	go srv.Serve(l)
}

// Stop closes the listener: connections are refused until Restart.
func (s *Server) Stop() {
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
	s.accepted = append(s.accepted, m)
	return nil
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) {
	if len(b.s.authMech) > 0 {
		return &authSession{session{server: b.s}}, nil
	}
	return &session{server: b.s}, nil
}

type session struct {
	server *Server
	cur    Message
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.cur = Message{From: from}
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = b
	return s.server.receive(s.cur)
}

func (s *session) Reset()        { s.cur = Message{} }
func (s *session) Logout() error { return nil }

type authSession struct{ session }

func (s *authSession) AuthMechanisms() []string { return s.server.authMech }

func (s *authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, _, _ string) error { return nil }), nil
}
