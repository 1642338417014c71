package smtptest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
)

// Stage is where a stalled server stops answering (Server.Stall).
type Stage string

// The stages of an SMTP conversation a server can stall at, in order.
const (
	StallConnect   Stage = "connect"         // the connection is accepted and never greeted
	StallGreeting  Stage = "greeting"        // greeted, and EHLO never answered
	StallSTARTTLS  Stage = "STARTTLS"        // STARTTLS never answered (OfferSTARTTLS)
	StallLogin     Stage = "AUTH"            // AUTH never answered (OfferAuth)
	StallMail      Stage = "MAIL"            // MAIL FROM never answered
	StallRcpt      Stage = "RCPT"            // RCPT TO never answered
	StallData      Stage = "DATA"            // DATA never answered (no 354)
	StallInData    Stage = "during the data" // the data read in part, then no longer
	StallAfterData Stage = "after the data"  // the data read to its end, never answered
)

// Stages are the stages a server can stall at, in the order a
// conversation reaches them.
var Stages = []Stage{StallConnect, StallGreeting, StallSTARTTLS, StallLogin, StallMail, StallRcpt, StallData,
	StallInData, StallAfterData}

// verbs are the commands whose arrival is each command stage: the
// server's side of the connection reads the command and never lets
// go-smtp see it. (AUTH comes after STARTTLS, encrypted: the session
// stalls it, see authSession.Auth.)
var verbs = map[Stage][]string{
	StallGreeting: {"EHLO", "HELO"},
	StallSTARTTLS: {"STARTTLS"},
	StallMail:     {"MAIL FROM"},
	StallRcpt:     {"RCPT TO"},
	StallData:     {"DATA"},
}

// inDataRead is how much of the data a server stalled StallInData reads
// before it stops: the start of the headers.
const inDataRead = 512

// stall is a stall in force: its stage, closed once the first
// connection reached it, and closed when it ends (Heal).
type stall struct {
	stage   Stage
	reached chan struct{}
	once    sync.Once
	healed  chan struct{}
}

func (st *stall) reach() { st.once.Do(func() { close(st.reached) }) }

// Stall makes every connection from now on stop answering at stage,
// until Heal: the client waits as for a relay with a stuck queue or a
// network that black-holes. The channel is closed when the first
// connection reaches the stage. Nothing a stalled connection carried is
// kept: Heal drops it.
func (s *Server) Stall(stage Stage) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stall != nil {
		close(s.stall.healed)
	}
	s.stall = &stall{stage: stage, reached: make(chan struct{}), healed: make(chan struct{})}
	return s.stall.reached
}

// Heal ends the stall: stalled connections are dropped, new ones served.
func (s *Server) Heal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stall != nil {
		close(s.stall.healed)
		s.stall = nil
	}
}

// currentStall is the stall in force, nil if none.
func (s *Server) currentStall() *stall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stall
}

// hold keeps conn unanswered until st ends, then drops it.
func hold(st *stall, conn io.Closer) {
	st.reach()
	<-st.healed
	conn.Close()
}

// stallListener hands go-smtp the connections a stall lets through,
// each watched for the stall's command (stallConn); at StallConnect it
// keeps them itself, never greeted.
type stallListener struct {
	net.Listener
	s *Server
}

func (l stallListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		st := l.s.currentStall()
		switch {
		case st == nil:
			return conn, nil
		case st.stage == StallConnect:
			go hold(st, conn)
		case verbs[st.stage] != nil:
			return &stallConn{Conn: conn, stall: st}, nil
		default:
			return conn, nil // AUTH or a data stage: the session stalls
		}
	}
}

// stallConn is a connection that stops at the first line starting with
// one of its stall's verbs, before the data: the line is read off the
// network and go-smtp never sees it, so it never answers.
type stallConn struct {
	net.Conn
	stall  *stall
	line   []byte // the start of the line being read
	inData bool   // DATA was sent: the rest is the message, not commands
}

func (c *stallConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.inData || n == 0 {
		return n, err
	}
	for _, b := range p[:n] {
		c.line = append(c.line, b)
		if b != '\n' {
			continue
		}
		line := bytes.ToUpper(bytes.TrimSpace(c.line))
		c.line = c.line[:0]
		for _, verb := range verbs[c.stall.stage] {
			if bytes.HasPrefix(line, []byte(verb)) {
				hold(c.stall, c.Conn)
				return 0, net.ErrClosed
			}
		}
		if bytes.Equal(line, []byte("DATA")) {
			c.inData = true
			break
		}
	}
	return n, err
}

// errStalled is what a stalled session's Data returns once healed: the
// connection is gone by then.
var errStalled = errors.New("smtptest: stalled")

// stallData stalls a session's DATA at its stage, if a data stage is in
// force: it reads part or all of r, then holds the connection. It says
// whether it stalled.
func (s *session) stallData(r io.Reader) bool {
	st := s.server.currentStall()
	if st == nil {
		return false
	}
	switch st.stage {
	case StallInData:
		io.ReadFull(r, make([]byte, inDataRead)) //nolint:errcheck // only the start is read
	case StallAfterData:
		io.Copy(io.Discard, r) //nolint:errcheck // the end of the data is what is waited for
	default:
		return false
	}
	hold(st, s.conn.Conn())
	return true
}
