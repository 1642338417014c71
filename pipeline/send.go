package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/mail"
	"feeddigest/pages"
	"feeddigest/store"
)

// send mails the digests that want sending and are due a try (see
// planSends: failed sends back off, and some are given up), then notes
// in the summary, per user, the mail that did not go out. The stable
// Message-ID lets a mail client recognise a repeat.
func (p *pass) send(ctx context.Context) error {
	if p.cfg.Email.SMTP == nil {
		return nil
	}
	if err := p.warnInterruptedSends(ctx); err != nil {
		return err
	}
	unsent, err := p.st.Unsent(ctx)
	if err != nil {
		return err
	}
	if err := p.sendUnsent(ctx, unsent); err != nil {
		return err
	}
	return p.noteMailProblems(ctx)
}

// sendTo mails user's digests that want sending and are due a try, as
// send does for everyone: what the run that built a digest of a shared
// pass does.
func (p *pass) sendTo(ctx context.Context, user string) error {
	if p.cfg.Email.SMTP == nil {
		return nil
	}
	// The user's digests, not everyone's unsent ones (a pass of
	// thousands of digests would read them all for each); unsent as
	// store.Reader.Unsent says, oldest first.
	all, err := p.st.Digests(ctx, user)
	if err != nil {
		return err
	}
	var unsent []domain.Digest
	for _, d := range slices.Backward(all) {
		if d.SendWanted && d.SentAt.IsZero() && d.SendStarted.IsZero() && d.SendDataEnded.IsZero() && d.SendGivenUp.IsZero() {
			unsent = append(unsent, d)
		}
	}
	return p.sendUnsent(ctx, unsent)
}

// sendUnsent mails the unsent digests given, oldest first, that are due a
// try, after recording those not to be mailed (skip_empty) and those given
// up (planSends).
func (p *pass) sendUnsent(ctx context.Context, unsent []domain.Digest) error {
	unsent, err := p.skipEmpty(ctx, unsent)
	if err != nil {
		return err
	}
	plan := planSends(p.mailable(unsent), p.opts.Now)
	for _, g := range plan.giveUp {
		p.opts.Log.Warn("digest not sent: given up", "user", g.digest.User, "date", g.digest.Date, "why", g.why,
			"last_error", g.digest.SendError)
		if err := p.st.GiveUpSend(ctx, g.digest.User, g.digest.Date, p.opts.Now, g.why); err != nil {
			return err
		}
	}
	return p.deliver(ctx, plan.send)
}

// skipEmpty records the digests that are not mailed because they have
// nothing to say (see pages.Builder.SkipsMail) as not to be sent, so that they are
// neither tried again nor shown as unsent, and returns the others.
func (p *pass) skipEmpty(ctx context.Context, unsent []domain.Digest) ([]domain.Digest, error) {
	var out []domain.Digest
	for _, d := range unsent {
		if !p.pageBuilder().SkipsMail(d) {
			out = append(out, d)
			continue
		}
		if err := p.st.SkipSend(ctx, d.User, d.Date); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.sum.EmailsSkipped++
		p.mu.Unlock()
		p.opts.Log.Info("digest not mailed: nothing new (skip_empty)", "user", d.User, "date", d.Date)
	}
	return out, nil
}

// mailable keeps the digests of users who are still in the config, with
// an address.
func (p *pass) mailable(digests []domain.Digest) []domain.Digest {
	var out []domain.Digest
	for _, d := range digests {
		if u, ok := p.cfg.User(d.User); ok && u.Email != "" {
			out = append(out, d)
		}
	}
	return out
}

// deliver sends digests over SMTP, one connection each, and records each
// outcome. When the server cannot be reached or refuses the login, the
// rest are not tried in this pass (they would fail alike, and each try
// is a login): they share the failure and its back-off.
func (p *pass) deliver(ctx context.Context, digests []domain.Digest) error {
	if len(digests) == 0 {
		return nil
	}
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	if p.mailDown != nil {
		return p.sendsFailed(ctx, digests, p.mailDown)
	}
	sender, err := p.newSender()
	if err != nil {
		return err
	}
	feeds := pages.FeedNames{} // read as the messages need them
	for i, d := range digests {
		msg, err := p.pageBuilder().Email(ctx, d, feeds)
		if err != nil {
			return err
		}
		if err := p.st.BeginSend(ctx, d.User, d.Date, p.opts.Now); errors.Is(err, store.ErrSendTaken) {
			continue // another run of a shared pass is sending it
		} else if err != nil {
			return err
		}
		// An interrupt must not cut a conversation in half: the server may
		// have taken the mail when we stop listening. The sender has its
		// own timeout.
		sendErr, marked := p.sendMarked(context.WithoutCancel(ctx), sender, d, msg)
		switch {
		case errors.Is(marked, store.ErrSendTaken):
			// Our claim lapsed and another run took the send over: the
			// message was stopped before the end of its data, theirs goes.
			p.opts.Log.Warn("send taken over by another run", "user", d.User, "date", d.Date)
			continue
		case marked != nil:
			return marked // the state cannot say the mail may have gone: it was stopped
		case inDoubt(sendErr):
			p.opts.Log.Warn("no answer after the end of a message's data: it may have arrived; not sent again to avoid a duplicate",
				"user", d.User, "date", d.Date, "error", sendErr)
			p.mailDown = sendErr
			return p.sendsFailed(ctx, digests[i+1:], sendErr)
		}
		if sendErr == nil {
			p.mu.Lock()
			p.sum.EmailsSent++
			p.opts.Progress(Event{Kind: EventSent, Detail: d.User + " " + d.Date})
			p.mu.Unlock()
			if err := p.st.MarkSent(ctx, d.User, d.Date, p.opts.Now); err != nil {
				return err
			}
			continue
		}
		if !failedBeforeMessages(sendErr) {
			if err := p.sendsFailed(ctx, []domain.Digest{d}, sendErr); err != nil {
				return err
			}
			continue
		}
		p.mailDown = sendErr
		return p.sendsFailed(ctx, digests[i:], sendErr)
	}
	return nil
}

// sendMarked sends d's message, recording in the state just before
// the end of its data that from then on the server may have taken it
// (store.Store.EndSendData). marked is that record's failure: the
// message was stopped before the end of its data then, and sendErr says
// so too.
func (p *pass) sendMarked(ctx context.Context, sender *mail.Sender, d domain.Digest, msg *mail.Message) (sendErr, marked error) {
	sendErr = sender.SendMarked(ctx, func(*mail.Message) error {
		marked = p.st.EndSendData(ctx, d.User, d.Date, p.opts.Now)
		return marked
	}, msg)
	return sendErr, marked
}

// inDoubt says whether a send failed after the end of its message's data
// without an answer: the server may have taken it.
func inDoubt(sendErr error) bool {
	var failure *mail.Error
	return errors.As(sendErr, &failure) && failure.InDoubt
}

// failedBeforeMessages says whether a send failed before any message
// could go (no server, login refused): every other send would fail alike.
func failedBeforeMessages(sendErr error) bool {
	var failure *mail.Error
	return errors.As(sendErr, &failure) && failure.BeforeMessages
}

// sendsFailed records that digests were not sent, for sendErr, and counts
// them in the summary.
func (p *pass) sendsFailed(ctx context.Context, digests []domain.Digest, sendErr error) error {
	sendErr = MailAdvice(sendErr)
	var failure *mail.Error
	permanent := errors.As(sendErr, &failure) && !failure.Temporary
	for _, f := range digests {
		p.mu.Lock()
		p.sum.SendFailures++
		p.mu.Unlock()
		p.opts.Log.Warn("send failed", "user", f.User, "date", f.Date, "permanent", permanent, "error", sendErr)
		if err := p.st.MarkSendFailed(ctx, f.User, f.Date, p.opts.Now, sendErr.Error(), permanent); err != nil {
			return err
		}
	}
	return nil
}

// noteMailProblems puts a line per user with mail that did not go out
// into the summary.
func (p *pass) noteMailProblems(ctx context.Context) error {
	rows, err := mailStatusRows(ctx, p.st, p.opts.Now)
	for _, r := range rows {
		p.sum.MailProblems = append(p.sum.MailProblems, r.User+": "+r.Text(p.opts.Now))
	}
	return err
}

func (p *pass) newSender() (*mail.Sender, error) {
	var opts []mail.SenderOption
	if p.opts.SMTPTimeout > 0 {
		opts = append(opts, mail.WithTimeout(p.opts.SMTPTimeout))
	}
	return NewSender(p.cfg.Email, p.opts.SMTPPassword, opts...)
}

// NewSender is the sender the [email] table describes: its TLS mode and
// the certificates tls_ca trusts. `check` probes the server with it.
func NewSender(e config.Email, password string, opts ...mail.SenderOption) (*mail.Sender, error) {
	srv := e.SMTP
	switch e.TLS {
	case config.TLSNone:
		opts = append(opts, mail.WithoutTLS())
	case config.TLSOpportunistic:
	default: // config.TLSStartTLS (the default) and config.TLSImplicit
		opts = append(opts, mail.WithRequiredTLS())
	}
	if e.TLSCA != "" {
		trust, err := mail.TrustedCA(e.TLSCA)
		if err != nil {
			return nil, err
		}
		opts = append(opts, trust)
	}
	return mail.NewSender(srv.Host, srv.Port, srv.User, password, srv.ImplicitTLS, opts...)
}

// MailAdvice adds to a send's failure what to change in the [email]
// table, when the failure is one of configuration.
func MailAdvice(err error) error {
	var cert *mail.CertificateError
	switch {
	case errors.As(err, &cert) && cert.CAFile != "":
		return fmt.Errorf("%w; check that email.tls_ca is the relay's current certificate", err)
	case errors.As(err, &cert):
		return fmt.Errorf(`%w; if the relay is yours, set email.tls_ca to its certificate (a PEM file), or email.tls = "opportunistic" to encrypt without verifying`, err)
	case errors.Is(err, mail.ErrLoginNeedsTLS):
		return fmt.Errorf("%w: drop the user from email.smtp for a relay that needs no login, or have the relay offer STARTTLS", err)
	}
	return err
}

// warnInterruptedSends reports sends cut off between the end of their
// message's data and the server's answer. They are not retried: the
// server may have taken the mail, and a digest is sent at most once. (A
// send cut off earlier is simply sent again: nothing reached the server.)
func (p *pass) warnInterruptedSends(ctx context.Context) error {
	cut, err := p.st.InterruptedSends(ctx)
	for _, d := range cut {
		p.opts.Log.Warn("a send was cut off before the mail server answered: it may not have arrived; not sent again to avoid a duplicate",
			"user", d.User, "date", d.Date, "data_ended", d.SendDataEnded)
	}
	return err
}
