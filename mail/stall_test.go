package mail_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/internal/smtptest"
	"feeddigest/mail"
	"feeddigest/render"
)

// largeDigestEmail is a digest email of about 400 kB: far more than a
// connection with a narrow window (smtptest.NarrowWindow) holds
// unread, so that writing it to a server that stopped reading blocks
// before the end of its data.
func largeDigestEmail(t *testing.T) *mail.Message {
	t.Helper()
	built := time.Date(2020, 11, 22, 0, 5, 0, 0, time.UTC)
	d := render.Digest{User: "ada", Email: "ada@example.org", Date: "2020-11-22", Location: time.UTC, BuiltAt: built}
	for g := range 40 {
		site := fmt.Sprintf("https://blog%d.example.org/", g)
		group := render.FeedGroup{FeedURL: site + "feed.xml", FeedName: fmt.Sprintf("Blog %d", g), SiteURL: site}
		for i := range 10 {
			group.Entries = append(group.Entries, domain.Entry{Title: fmt.Sprintf("Post %d", i), Link: fmt.Sprintf("%s%d", site, i),
				Content: "<p>" + strings.Repeat(fmt.Sprintf("Sentence %d of a long post. ", i), 200) + "</p>", FirstSeen: built})
		}
		d.Groups = append(d.Groups, group)
	}
	draft, err := render.DigestEmail(d, testFrom, "https://example.org/digest/")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ComposeDigest(draft)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(messageBytes(t, msg)); n < 200_000 {
		t.Fatalf("the large message has %d bytes", n)
	}
	return msg
}

// A relay that stalls before the end of a message's data leaves the
// message unsent for sure: the sender times out without ever calling
// DataEnd, and says the failure passes and the message is not in doubt.
// Only a relay that stalls after the end of the data leaves it in doubt,
// and DataEnd was called before that end reached the server.
func TestStalledRelayIsInDoubtOnlyAfterTheEndOfTheData(t *testing.T) {
	for _, stage := range smtptest.Stages {
		t.Run(string(stage), func(t *testing.T) {
			t.Parallel() // each waits for its timeout
			var opts []smtptest.Option
			msg := digestEmail(t, "2020-11-22")
			user := ""
			senderOpts := []mail.SenderOption{mail.WithTimeout(time.Second)}
			switch stage {
			case smtptest.StallSTARTTLS:
				opts = append(opts, smtptest.OfferSTARTTLS(smtptest.NewSelfSigned(t, time.Now())))
			case smtptest.StallInData:
				// Held mid-data only when the message is far larger than
				// what the connection holds unread.
				opts = append(opts, smtptest.NarrowWindow())
				msg = largeDigestEmail(t)
			case smtptest.StallLogin:
				// CRAM-MD5 on a plain connection, so that the test server
				// sees the AUTH command.
				opts = append(opts, smtptest.OfferAuth(smtptest.CRAMMD5))
				user = "ada"
				senderOpts = append(senderOpts, mail.WithoutTLS())
			}
			sink := smtptest.Start(t, opts...)
			reached := sink.Stall(stage)
			s, err := mail.NewSender("127.0.0.1", sink.Port(), user, "secret", false, senderOpts...)
			if err != nil {
				t.Fatal(err)
			}
			ended := false
			err = s.SendMarked(context.Background(), func(*mail.Message) error {
				ended = true
				select {
				case <-reached:
					t.Errorf("the server saw stage %q before DataEnd", stage)
				default:
				}
				return nil
			}, msg)
			select {
			case <-reached:
			default:
				t.Fatalf("the conversation never reached %q: %v", stage, err)
			}
			var failure *mail.Error
			if !errors.As(err, &failure) {
				t.Fatalf("SendMarked: %v, want a *mail.Error", err)
			}
			afterData := stage == smtptest.StallAfterData
			if ended != afterData || failure.InDoubt != afterData || !failure.Temporary {
				t.Errorf("%v: DataEnd called %v, in doubt %v, temporary %v; want %v, %v, true",
					err, ended, failure.InDoubt, failure.Temporary, afterData, afterData)
			}
			sink.Heal()
			if n := len(sink.Messages()); n != 0 {
				t.Errorf("the stalled server kept %d messages", n)
			}
		})
	}
}

// A DataEnd that fails stops the message before the end of its data:
// the server keeps nothing, the failure says why, and the sender's next
// message goes through.
func TestFailedDataEndStopsTheMessage(t *testing.T) {
	sink := smtptest.Start(t)
	s, err := mail.NewSender("127.0.0.1", sink.Port(), "", "", false, mail.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	unwritable := errors.New("state unwritable")
	err = s.SendMarked(context.Background(), func(*mail.Message) error { return unwritable }, digestEmail(t, "2020-11-22"))
	var failure *mail.Error
	if !errors.As(err, &failure) || !errors.Is(err, unwritable) || !errors.Is(err, mail.ErrDataEndRefused) || failure.InDoubt {
		t.Errorf("SendMarked with a failing DataEnd: %v", err)
	}
	// The server notices the dropped connection in its own time.
	time.Sleep(100 * time.Millisecond)
	if n := len(sink.Messages()); n != 0 {
		t.Errorf("the server kept %d messages of a send stopped before the end of its data", n)
	}
	if err := s.SendMarked(context.Background(), func(*mail.Message) error { return nil }, digestEmail(t, "2020-11-23")); err != nil {
		t.Fatal(err)
	}
	if n := len(sink.Messages()); n != 1 {
		t.Errorf("the server kept %d messages, want the second", n)
	}
}
