package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"feeddigest/internal/feedtest"
	"feeddigest/internal/smtptest"
)

// A relay that stalls, at any stage of the conversation, and the run
// killed there (a CI timeout, a cancelled job): the real binary is killed
// with SIGKILL the moment the server sees the stage, the relay is healed,
// and the next hour's run starts. Killed before the end of the message's
// data (connecting, the greeting, STARTTLS, the login, MAIL, RCPT, DATA,
// mid-data), the digest is delivered by the next run, once: nothing
// reached the server. Killed after the end of the data, before the
// answer, the digest may have arrived: it is not sent again, and status
// says it may not have arrived.
func TestStalledRelayAtEachStage(t *testing.T) {
	for _, stage := range smtptest.Stages {
		t.Run(string(stage), func(t *testing.T) {
			stalledRelayRun(t, stage)
		})
	}
}

// stalledRelaySite is a site of 20 feeds whose second day brings 20
// long posts each: a digest email of a few hundred kilobytes, which a
// relay that stopped reading mid-data (with smtptest.NarrowWindow)
// holds before the end of its data.
func stalledRelaySite(t *testing.T) (*feedtest.Server, []string) {
	site := feedtest.Start(t)
	site.SetWindow(20)
	var urls []string
	for f := range 20 {
		path := fmt.Sprintf("/feed%d", f)
		site.Publish(path, feedtest.Feed{Title: path})
		post(site, path, fmt.Sprintf("first-%d", f))
		urls = append(urls, site.URL+path)
	}
	return site, urls
}

func stalledRelayRun(t *testing.T, stage smtptest.Stage) {
	bin := binary(t)
	site, urls := stalledRelaySite(t)
	var opts []smtptest.Option
	smtpURL, tls := "", "none"
	switch stage {
	case smtptest.StallInData:
		opts = append(opts, smtptest.NarrowWindow())
	case smtptest.StallSTARTTLS, smtptest.StallLogin:
		opts = append(opts, smtptest.OfferSTARTTLS(smtptest.NewSelfSigned(t, time.Now())), smtptest.OfferAuth(smtptest.CRAMMD5))
		tls = "opportunistic"
	}
	relay := smtptest.Start(t, opts...)
	smtpURL = relay.URL()
	if stage == smtptest.StallLogin {
		smtpURL = strings.Replace(smtpURL, "smtp://", "smtp://digest@", 1)
	}
	dir := t.TempDir()
	quoted := make([]string, len(urls))
	for i, u := range urls {
		quoted[i] = fmt.Sprintf("%q", u)
	}
	cfg := writeConfig(t, dir, fmt.Sprintf("[fetch]\nallow_private_networks = true\nhost_rate = 100.0\n"+
		"[email]\nfrom = \"Digest <digest@example.org>\"\nsmtp = %q\ntls = %q\n"+
		"[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nemail = \"ada@example.org\"\nfull_entries = 20\nfeeds = [%s]\n",
		smtpURL, tls, strings.Join(quoted, ", ")))
	env := []string{"FEEDDIGEST_SMTP_PASSWORD=secret"}
	day1 := time.Date(2026, 11, 21, 0, 5, 0, 0, time.UTC)
	day2 := day1.Add(24 * time.Hour)
	at := func(t time.Time) string { return t.Format(time.RFC3339) }
	run := func(now time.Time) string {
		t.Helper()
		code, stdout, stderr := feeddigest(t, dir, env, "run", "-config", cfg, "-now", at(now))
		if code != 0 {
			t.Fatalf("run at %s: exit %d\n%s%s", at(now), code, stdout, stderr)
		}
		return stdout
	}
	run(day1) // the first digest, sent: the one the stall meets is the second
	for f := range 20 {
		for i := range 20 {
			site.Add(fmt.Sprintf("/feed%d", f), feedtest.Entry{ID: fmt.Sprintf("post-%d-%d", f, i), Title: fmt.Sprintf("Post %d of feed %d", i, f),
				Body: "<p>" + strings.Repeat(fmt.Sprintf("A long sentence of post %d of feed %d. ", i, f), 40) + "</p>"})
		}
	}

	reached := relay.Stall(stage)
	cmd := command(bin, env, "run", "-config", cfg, "-now", at(day2))
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-reached:
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
	case err := <-exited:
		t.Fatalf("the run ended (%v) before the relay saw %s:\n%s", err, stage, out.String())
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill() //nolint:errcheck // the test fails anyway
		<-exited
		t.Fatalf("the relay never saw %s:\n%s", stage, out.String())
	}
	relay.Heal()

	run(day2.Add(time.Hour))
	id := "<digest-2026-11-22-ada@example.org>"
	sent := mailedTimes(t, relay)[id]
	status := statusOf(t, bin, dir, env, cfg, at(day2.Add(time.Hour)))
	if stage == smtptest.StallAfterData {
		if sent != 0 {
			t.Errorf("the digest whose data ended before the kill was sent again (%d times)", sent)
		}
		if !strings.Contains(status, "May not have arrived") || !strings.Contains(status, "2026-11-22") {
			t.Errorf("status does not say the digest may not have arrived:\n%s", status)
		}
		// The next digest says so too, with the page of the one in doubt.
		post(site, "/feed0", "third-day")
		run(day2.Add(24 * time.Hour))
		const says = "may not have arrived: its run was cut off before the mail server answered"
		for _, m := range relay.Messages() {
			if strings.Contains(string(m.Data), "<digest-2026-11-23-ada@example.org>") {
				_, parts := smtptest.ReadAlternative(t, m.Data)
				for kind, part := range parts {
					if !strings.Contains(strings.Join(strings.Fields(part), " "), says) {
						t.Errorf("the next digest's %s part does not say the email before may not have arrived:\n%s", kind, part)
					}
				}
			}
		}
		page, err := os.ReadFile(filepath.Join(dir, "site", "ada", "2026-11-23.html"))
		if err != nil || !strings.Contains(string(page), says) || !strings.Contains(string(page), `href="2026-11-22.html"`) {
			t.Errorf("the next digest's page does not say the email before may not have arrived (%v):\n%s", err, page)
		}
		if mailedTimes(t, relay)["<digest-2026-11-23-ada@example.org>"] != 1 {
			t.Errorf("the next digest was not mailed once")
		}
		return
	}
	if sent != 1 {
		t.Errorf("the digest cut off at %s was delivered %d times by the next run, want once:\n%s", stage, sent, status)
	}
	for _, m := range relay.Messages() {
		if stage == smtptest.StallInData && strings.Contains(string(m.Data), id) && len(m.Data) < 200_000 {
			t.Errorf("the digest has %d bytes: too few to be held mid-data by a stalled relay", len(m.Data))
		}
	}
}

// statusOf is what `status` says at now.
func statusOf(t *testing.T, bin, dir string, env []string, cfg, now string) string {
	t.Helper()
	cmd := command(bin, env, "status", "-config", cfg, "-now", now)
	cmd.Dir = dir
	code, stdout, stderr := runCommand(t, cmd)
	if code != 0 {
		t.Fatalf("status: exit %d\n%s%s", code, stdout, stderr)
	}
	return stdout
}
