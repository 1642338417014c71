package pipeline

import (
	"errors"

	"feeddigest/fetch"
)

// PollErrorText is how a failed poll is shown (the status page, the run's
// summary, `check`): fetch's error and, where a setting would change the
// outcome, which one. fetch names no configuration keys; this package
// maps the configuration onto it.
func PollErrorText(err error) string {
	if errors.Is(err, fetch.ErrPrivateAddress) {
		return err.Error() + " (set [fetch] allow_private_networks = true to allow)"
	}
	return err.Error()
}
