package pipeline

import (
	"time"

	"feeddigest/domain"
)

// How failed sends back off. A passing failure (the server could not be
// reached, or answered 4xx) is retried after a wait that doubles from an
// hour up to a day. After a permanent one (a 5xx answer such as 535, a
// refused login) only the newest digest of the user is tried, once a day,
// and the older ones are given up when it is: repeated failed logins can
// get an account locked, and once the fault is fixed one digest arrives,
// not a flood of stale ones. A digest not sent within SendGiveUpAge of
// being built is given up too. Its page stays, and status says so.
const (
	SendGiveUpAge   = 3 * 24 * time.Hour
	sendRetryFirst  = time.Hour
	sendRetryMax    = 24 * time.Hour
	sendBlockedWait = 24 * time.Hour
	// sendSlack lets a run a little early still try: cron does not fire
	// to the second, and an hourly run must not miss its hour.
	sendSlack = 10 * time.Minute
)

// giveUp is a digest whose sending stops for good, and why.
type giveUp struct {
	digest domain.Digest
	why    string
}

// sendPlan is what a pass does with the unsent digests.
type sendPlan struct {
	send   []domain.Digest // to try now, oldest first
	giveUp []giveUp
}

// userPlan is the plan for one user's unsent digests.
type userPlan struct {
	sendPlan
	next    time.Time // when a remaining digest may be tried next
	blocked bool      // the last failure was permanent: only the newest is tried
}

// planSends decides, for unsent digests (oldest first), which to try now
// and which to give up: a pure function of the digests' send records and
// now.
func planSends(unsent []domain.Digest, now time.Time) sendPlan {
	byUser := map[string][]domain.Digest{}
	var users []string
	for _, d := range unsent {
		if _, ok := byUser[d.User]; !ok {
			users = append(users, d.User)
		}
		byUser[d.User] = append(byUser[d.User], d)
	}
	chosen := map[[2]string]bool{}
	var plan sendPlan
	for _, u := range users {
		up := planUser(byUser[u], now)
		for _, d := range up.send {
			chosen[[2]string{d.User, d.Date}] = true
		}
		plan.giveUp = append(plan.giveUp, up.giveUp...)
	}
	for _, d := range unsent {
		if chosen[[2]string{d.User, d.Date}] {
			plan.send = append(plan.send, d)
		}
	}
	return plan
}

// planUser plans one user's unsent digests, oldest first.
func planUser(unsent []domain.Digest, now time.Time) userPlan {
	var plan userPlan
	var live []domain.Digest
	for _, d := range unsent {
		if d.SendAttempts > 0 && now.Sub(d.BuiltAt) > SendGiveUpAge {
			plan.giveUp = append(plan.giveUp, giveUp{d, "not sent within 3 days of being built"})
			continue
		}
		live = append(live, d)
	}
	if len(live) == 0 {
		return plan
	}
	if last, ok := lastFailure(live); ok && last.SendPermanent {
		plan.blocked = true
		plan.next = last.SendFailedAt.Add(sendBlockedWait)
		if !due(plan.next, now) {
			return plan
		}
		newest := live[len(live)-1]
		plan.send = []domain.Digest{newest}
		for _, d := range live[:len(live)-1] {
			plan.giveUp = append(plan.giveUp, giveUp{d, "superseded by the digest of " + newest.Date + ", after the mail server refused for good"})
		}
		return plan
	}
	for _, d := range live {
		at := retryAt(d)
		if plan.next.IsZero() || at.Before(plan.next) {
			plan.next = at
		}
		if due(at, now) {
			plan.send = append(plan.send, d)
		}
	}
	return plan
}

// lastFailure is the digest whose send failed last.
func lastFailure(digests []domain.Digest) (domain.Digest, bool) {
	var last domain.Digest
	found := false
	for _, d := range digests {
		if d.SendAttempts > 0 && (!found || d.SendFailedAt.After(last.SendFailedAt)) {
			last, found = d, true
		}
	}
	return last, found
}

// retryAt is when a digest may be tried (again) after passing failures:
// at once when it never was, else an hour after the first failure,
// doubling with each one, at most a day.
func retryAt(d domain.Digest) time.Time {
	if d.SendAttempts == 0 {
		return d.BuiltAt
	}
	wait := min(sendRetryFirst<<min(d.SendAttempts-1, 16), sendRetryMax)
	return d.SendFailedAt.Add(wait)
}

func due(at, now time.Time) bool {
	return !now.Add(sendSlack).Before(at)
}
