package pipeline

import (
	"context"
	"fmt"

	"feeddigest/render"
)

// send mails every digest that wants sending and was not sent yet. A
// failed send is recorded and retried at the next run; the stable
// Message-ID lets a mail client recognise a repeat.
func (p *pass) send(ctx context.Context) error {
	if p.cfg.Email.SMTP == "" {
		return nil
	}
	pending, err := p.st.Unsent(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	sender, err := p.newSender()
	if err != nil {
		return err
	}
	feeds, err := p.feedNames(ctx)
	if err != nil {
		return err
	}
	for _, d := range pending {
		u, ok := p.cfg.User(d.User)
		if !ok || u.Email == "" {
			continue
		}
		rd, err := p.renderDigest(ctx, d, *u, feeds)
		if err != nil {
			return err
		}
		msg, err := render.EmailMessage(rd, p.cfg.Email.From, p.cfg.SiteURL)
		if err != nil {
			return fmt.Errorf("email for %s %s: %w", d.User, d.Date, err)
		}
		sendErr := sender.Send(ctx, msg)
		if sendErr != nil {
			p.sum.SendFailures++
			p.opts.Log.Warn("send failed; will retry next run", "user", d.User, "date", d.Date, "error", sendErr)
		} else {
			p.sum.EmailsSent++
			p.opts.Progress(Event{Kind: "sent", Detail: d.User + " " + d.Date})
		}
		if err := p.st.MarkSent(ctx, d.User, d.Date, p.opts.Now, sendErr); err != nil {
			return err
		}
	}
	return nil
}

func (p *pass) newSender() (*render.Sender, error) {
	host, port, user, implicitTLS, err := p.cfg.Email.SMTPParts()
	if err != nil {
		return nil, err
	}
	var opts []render.SenderOption
	if p.cfg.Email.TLS == "none" {
		opts = append(opts, render.WithoutTLS())
	}
	return render.NewSender(host, port, user, p.opts.SMTPPassword, implicitTLS, opts...)
}
