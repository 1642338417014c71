package cli

import (
	"errors"
	"fmt"

	"feeddigest/store"
)

// advise adds to err what to do about it, in the words of feeddigest's
// commands. The packages below return named and typed errors and leave
// the advice to the command layer (a poll's errors get theirs from
// pipeline.PollErrorText, as they also reach the status page).
func advise(err error) error {
	var schema *store.SchemaError
	switch {
	case errors.Is(err, store.ErrLocked):
		return fmt.Errorf("%w: another feeddigest run is using it; try again when it has finished", err)
	case errors.Is(err, store.ErrNoState):
		return fmt.Errorf("%w (has `%s run` run yet?)", err, progName)
	case errors.As(err, &schema) && schema.Have < schema.Want:
		return fmt.Errorf("%w: run `%s run` once to migrate", err, progName)
	case errors.As(err, &schema):
		return fmt.Errorf("%w: a newer feeddigest wrote it; upgrade feeddigest", err)
	}
	return err
}
