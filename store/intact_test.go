package store

import "testing"

// A digest's page is written again (to link the next digest) only while
// the state still holds what the page showed.
func TestDigestIntactUntilTextsOrEntriesGo(t *testing.T) {
	s, _ := openTemp(t)
	f := subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)["https://a.example/feed"]
	if _, err := s.SavePoll(ctx, f.ID, []Entry{{Key: "id:1", Title: "One", Content: "<p>text</p>"}, {Key: "id:2", Title: "Two"}}, t0,
		func(SaveStats) Feed { return f }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildDigest(ctx, "ada", "2026-11-21", t0, false); err != nil {
		t.Fatal(err)
	}
	intact := func() bool {
		t.Helper()
		ok, err := s.DigestIntact(ctx, "ada", "2026-11-21")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !intact() {
		t.Fatal("a digest just built is not intact (an entry without text counts as whole)")
	}
	if ok, err := s.DigestIntact(ctx, "ada", "2020-01-01"); ok || err != nil {
		t.Errorf("a digest that does not exist: %v %v", ok, err)
	}
	s.MarkRendered(ctx, "ada", "2026-11-21", t0)
	later := t0.AddDate(0, 0, 20)
	if _, err := s.DropTexts(ctx, later.AddDate(0, 0, -14)); err != nil {
		t.Fatal(err)
	}
	if intact() {
		t.Error("a digest whose entries lost their texts is intact")
	}
	if _, err := s.Prune(ctx, later); err != nil {
		t.Fatal(err)
	}
	if intact() {
		t.Error("a digest whose entries were pruned is intact")
	}
}
