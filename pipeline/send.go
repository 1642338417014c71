package pipeline

import (
	"context"
	"fmt"

	"feeddigest/config"
	"feeddigest/mail"
	"feeddigest/render"
)

// send mails every digest that wants sending and was not sent yet. A
// failed send is recorded and retried at the next run; the stable
// Message-ID lets a mail client recognise a repeat.
func (p *pass) send(ctx context.Context) error {
	if p.cfg.Email.SMTP == nil {
		return nil
	}
	if err := p.warnInterruptedSends(ctx); err != nil {
		return err
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
		if err := p.st.BeginSend(ctx, d.User, d.Date, p.opts.Now); err != nil {
			return err
		}
		// An interrupt must not cut a conversation in half: the server may
		// have taken the mail when we stop listening. The sender has its
		// own timeout.
		sendErr := sender.Send(context.WithoutCancel(ctx), msg)
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

func (p *pass) newSender() (*mail.Sender, error) {
	srv := p.cfg.Email.SMTP
	var opts []mail.SenderOption
	switch p.cfg.Email.TLS {
	case config.TLSNone:
		opts = append(opts, mail.WithoutTLS())
	case config.TLSOpportunistic:
	default: // config.TLSStartTLS, the default
		opts = append(opts, mail.WithRequiredTLS())
	}
	return mail.NewSender(srv.Host, srv.Port, srv.User, p.opts.SMTPPassword, srv.ImplicitTLS, opts...)
}

// warnInterruptedSends reports sends cut off by a crash. They are not
// retried: the server may have taken the mail, and a digest is sent at
// most once.
func (p *pass) warnInterruptedSends(ctx context.Context) error {
	cut, err := p.st.InterruptedSends(ctx)
	for _, d := range cut {
		p.opts.Log.Warn("a send was interrupted by a crash; not sent again to avoid a duplicate",
			"user", d.User, "date", d.Date, "started", d.SendStarted)
	}
	return err
}
