package postgres

import (
	"errors"
	"slices"
	"testing"
	"time"

	"feeddigest/domain"
	"feeddigest/store"
)

// Two workers of a shared pass: while a worker lives, its claim on a
// send keeps the other from sending the same digest; once it died (its
// lease lapsed), a send it claimed whose data never ended is the other's
// to make, and one whose data ended stays in doubt, never sent again.
func TestDeadWorkersSendIsFreeUntilItsDataEnded(t *testing.T) {
	t.Parallel() // beside the other tests, while it waits for a lease to lapse
	url := migrated.NewDatabase(t)
	a, b := open(t, url), open(t, url)
	const lease = time.Second
	for _, s := range []*Store{a, b} {
		if err := s.join(ctx, lease); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.SyncSubscriptions(ctx, map[string][]string{"ada": {"https://a.example/1"}, "bob": {"https://a.example/1"}}, hour); err != nil {
		t.Fatal(err)
	}
	for _, user := range []string{"ada", "bob"} {
		if _, err := a.BuildDigest(ctx, user, "2026-11-21", hour, true, nil); err != nil {
			t.Fatal(err)
		}
		if err := a.BeginSend(ctx, user, "2026-11-21", hour); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.EndSendData(ctx, "bob", "2026-11-21", hour); err != nil {
		t.Fatal(err)
	}
	users := func(ds []domain.Digest, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, d.User)
		}
		return out
	}
	if err := b.BeginSend(ctx, "ada", "2026-11-21", hour); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("a live worker's send begun by another: %v, want ErrSendTaken", err)
	}
	if err := b.EndSendData(ctx, "ada", "2026-11-21", hour); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("the data of a live worker's send ended by another: %v, want ErrSendTaken", err)
	}
	if got := users(b.Unsent(ctx)); len(got) != 0 {
		t.Errorf("unsent beside a live worker's sends: %v", got)
	}
	die(a)
	died := time.Now()
	for !slices.Equal(users(b.Unsent(ctx)), []string{"ada"}) {
		if time.Since(died) > 10*lease {
			t.Fatalf("the dead worker's send whose data never ended is not unsent: %v", users(b.Unsent(ctx)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if waited := time.Since(died); waited < lease/2 {
		t.Errorf("the send was freed %v after the death, before the lease could lapse", waited)
	}
	if err := b.BeginSend(ctx, "bob", "2026-11-21", hour); !errors.Is(err, store.ErrSendTaken) {
		t.Errorf("a send whose data ended begun again: %v, want ErrSendTaken", err)
	}
	if got := users(b.InterruptedSends(ctx)); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("interrupted %v, want bob's", got)
	}
	if err := b.BeginSend(ctx, "ada", "2026-11-21", hour.Add(time.Hour)); err != nil {
		t.Fatalf("the dead worker's send taken over: %v", err)
	}
	if err := b.EndSendData(ctx, "ada", "2026-11-21", hour.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}
