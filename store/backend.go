package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// A Backend opens one kind of state: package sqlite opens state files,
// package postgres PostgreSQL databases. The program's main registers
// both (Register), so that no package below it imports both back ends:
// the pipeline and the commands open a state by its name alone (Open).
type Backend struct {
	// Name says which back end this is, in messages: "SQLite".
	Name string
	// Handles says whether the state named so is this back end's.
	Handles func(state string) bool
	// Open opens (and migrates) a state for a run.
	Open func(ctx context.Context, state string) (Store, error)
	// OpenReader opens an existing state for reading only, beside a run
	// that may hold it. No state yet is an error wrapping fs.ErrNotExist.
	OpenReader func(ctx context.Context, state string) (Reader, error)
}

// ErrNoBackend means no registered back end handles a state's name: a
// program (or test) that forgot to register it.
var ErrNoBackend = errors.New("no state back end registered for this state")

var (
	backendsMu sync.RWMutex
	backends   []Backend
)

// Register adds a back end. The first registered that handles a state's
// name opens it, so the catch-all (SQLite: any file name) goes last.
// Registering a back end of the same Name again replaces it.
func Register(b Backend) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	for i, have := range backends {
		if have.Name == b.Name {
			backends[i] = b
			return
		}
	}
	backends = append(backends, b)
}

func backendFor(state string) (Backend, error) {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	for _, b := range backends {
		if b.Handles(state) {
			return b, nil
		}
	}
	return Backend{}, fmt.Errorf("%w: %q", ErrNoBackend, state)
}

// Open opens the state named so for a run, with the back end that
// handles it.
func Open(ctx context.Context, state string) (Store, error) {
	b, err := backendFor(state)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, state)
}

// OpenReader opens the state named so for reading only. No state yet (no
// SQLite file, or a database without feeddigest's tables) is an error
// wrapping fs.ErrNotExist.
func OpenReader(ctx context.Context, state string) (Reader, error) {
	b, err := backendFor(state)
	if err != nil {
		return nil, err
	}
	return b.OpenReader(ctx, state)
}

// Exists says whether the state named so exists yet: false before the
// first run. A state that cannot be read counts as existing: reading it
// then says what is wrong.
func Exists(ctx context.Context, state string) bool {
	st, err := OpenReader(ctx, state)
	if err == nil {
		st.Close()
	}
	return !errors.Is(err, fs.ErrNotExist)
}

// OpenWith adapts a back end's own Open, which returns its type, to
// Backend.Open: a failed open comes back as a nil Store, not as a nil
// pointer inside the interface.
func OpenWith[S Store](open func(context.Context, string) (S, error)) func(context.Context, string) (Store, error) {
	return openAs[Store](open)
}

// ReadWith adapts a back end's own OpenReader to Backend.OpenReader, as
// OpenWith does Open.
func ReadWith[R Reader](open func(context.Context, string) (R, error)) func(context.Context, string) (Reader, error) {
	return openAs[Reader](open)
}

// openAs is open giving an I (which S implements), nil on failure.
func openAs[I, S any](open func(context.Context, string) (S, error)) func(context.Context, string) (I, error) {
	return func(ctx context.Context, state string) (I, error) {
		var none I
		s, err := open(ctx, state)
		if err != nil {
			return none, err
		}
		return any(s).(I), nil
	}
}
