package store

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestOpenChoosesTheBackendThatHandlesTheName(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "unregistered://x"); !errors.Is(err, ErrNoBackend) {
		t.Fatalf("no back end registered: got %v, want ErrNoBackend", err)
	}
	var opened []string
	fake := func(name, prefix string) Backend {
		return Backend{
			Name:    name,
			Handles: func(s string) bool { return strings.HasPrefix(s, prefix) },
			Open: func(_ context.Context, s string) (Store, error) {
				opened = append(opened, name+" "+s)
				return nil, errors.New("opened")
			},
			OpenReader: func(context.Context, string) (Reader, error) {
				return nil, fs.ErrNotExist
			},
		}
	}
	Register(fake("one", "one:"))
	Register(fake("two", "two:"))
	t.Cleanup(func() { backends = nil })
	Open(ctx, "two:x")
	Open(ctx, "one:y")
	if got := strings.Join(opened, ", "); got != "two two:x, one one:y" {
		t.Errorf("opened %q", got)
	}
	if Exists(ctx, "one:z") {
		t.Error("a state whose reader says fs.ErrNotExist exists")
	}
}

// A back end's failed open is a nil Store, which callers can test.
func TestOpenWithGivesNoTypedNil(t *testing.T) {
	type failing struct{ Store }
	open := OpenWith(func(context.Context, string) (*failing, error) { return nil, errors.New("refused") })
	if s, err := open(context.Background(), "x"); s != nil || err == nil {
		t.Errorf("a failed open gave %#v, %v", s, err)
	}
	read := ReadWith(func(context.Context, string) (*failing, error) { return nil, errors.New("refused") })
	if r, err := read(context.Background(), "x"); r != nil || err == nil {
		t.Errorf("a failed reader gave %#v, %v", r, err)
	}
}
