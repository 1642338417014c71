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
	var stages []Stage
	var fail Stage = -1
	var failWith error
	s := Start(t, WithHook(func(st Stage, m Message) error {
		mu.Lock()
		defer mu.Unlock()
		stages = append(stages, st)
		if st == DataEnd && !strings.Contains(string(m.Data), "hello") {
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
	want := []Stage{Greeting, Hello, MailFrom, RcptTo, DataStart, DataEnd}
	if len(stages) != len(want) {
		t.Fatalf("stages %v, want %v", stages, want)
	}
	for i := range want {
		if stages[i] != want[i] {
			t.Fatalf("stages %v, want %v", stages, want)
		}
	}
	for _, c := range []struct {
		at   Stage
		with error
	}{{Greeting, ErrDrop}, {MailFrom, errors.New("no")}, {RcptTo, ErrDrop}, {DataEnd, ErrDrop}} {
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
