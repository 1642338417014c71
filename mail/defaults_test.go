package mail

import (
	"testing"

	gomail "github.com/wneessen/go-mail"
)

func TestSenderDefaults(t *testing.T) {
	cases := []struct {
		implicit bool
		want     string
	}{{false, "127.0.0.1:587"}, {true, "127.0.0.1:465"}}
	for _, c := range cases {
		s, err := NewSender("127.0.0.1", 0, "", "", c.implicit)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.client.ServerAddr(); got != c.want {
			t.Errorf("implicitTLS=%v: server %s, want %s", c.implicit, got, c.want)
		}
	}
	var _ *gomail.Msg // the Sender sends go-mail messages
}
