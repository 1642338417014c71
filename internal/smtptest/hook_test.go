package smtptest

import (
	"errors"
	"net/smtp"
	"strings"
	"sync"
	"testing"
)

// TestHookSeesEveryStageAndCanRefuseOrDrop: the hook is called at each
// stage in order with the message so far; an error it returns is the
// answer, ErrDrop closes the connection, and a message refused or dropped
// is not kept.
func TestHookSeesEveryStageAndCanRefuseOrDrop(t *testing.T) {
	var mu sync.Mutex
	var stages []Moment
	var fail Moment = -1
	var failWith error
	s := Start(t, WithHook(func(st Moment, m Message) error {
		mu.Lock()
		defer mu.Unlock()
		stages = append(stages, st)
		if st == AtDataEnd && !strings.Contains(string(m.Data), "hello") {
			t.Errorf("at the end of data the hook got %q", m.Data)
		}
		if st == fail {
			return failWith
		}
		return nil
	}))
	send := func() error {
		return smtp.SendMail(strings.TrimPrefix(s.URL(), "smtp://"), nil, "a@example.org", []string{"b@example.org"}, []byte("Subject: x\r\n\r\nhello\r\n"))
	}
	if err := send(); err != nil {
		t.Fatal(err)
	}
	want := []Moment{AtGreeting, AtHello, AtMail, AtRcpt, AtData, AtDataEnd}
	if len(stages) != len(want) {
		t.Fatalf("stages %v, want %v", stages, want)
	}
	for i := range want {
		if stages[i] != want[i] {
			t.Fatalf("stages %v, want %v", stages, want)
		}
	}
	for _, c := range []struct {
		at   Moment
		with error
	}{{AtGreeting, ErrDrop}, {AtMail, errors.New("no")}, {AtRcpt, ErrDrop}, {AtDataEnd, ErrDrop}} {
		mu.Lock()
		fail, failWith = c.at, c.with
		mu.Unlock()
		if err := send(); err == nil {
			t.Errorf("failing at %s with %v: the send succeeded", c.at, c.with)
		}
	}
	if n := len(s.Messages()); n != 1 {
		t.Errorf("%d messages kept, want the first only", n)
	}
}
