package fetch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"feeddigest/parse"
)

// ParseBudget bounds the nodes (see parse.MaxNodes) of the bodies one Client
// parses at once: two bodies at the bound, or hundreds of ordinary feeds.
// Parsing costs memory by the node, up to 150 MB for a body at MaxNodes,
// so without it a run's memory would grow with concurrency times that;
// with it, a run holds at most concurrency bodies of max_body waiting for
// their turn (a body waits in its request's slots: see download), and
// ParseBudget nodes being parsed.
const ParseBudget = 2 * parse.MaxNodes

// ErrNotParsed means a body was never read: no turn to parse it came
// (the pass was stopped), or the caller abandoned it (recording the
// attempt failed). It says nothing about the body, so the body's hash is
// not kept.
var ErrNotParsed = errors.New("body not parsed")

// parseTurn waits until the body's nodes fit in the client's ParseBudget
// and takes them until release is called.
func (c *Client) parseTurn(ctx context.Context, body []byte) (release func(), err error) {
	weight := int64(min(max(parse.Nodes(body), 1), parse.MaxNodes))
	if err := c.parsing.Acquire(ctx, weight); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotParsed, err)
	}
	return sync.OnceFunc(func() { c.parsing.Release(weight) }), nil
}
