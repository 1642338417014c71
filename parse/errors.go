package parse

import (
	"errors"
	"fmt"
)

// What a body can be wrong with: every error Read returns wraps one of
// these. The page's errors wrap ErrNotFeed too.
var (
	// ErrNotFeed means a body is none of RSS, Atom or JSON Feed (stage 4),
	// nor an HTML page that gives one.
	ErrNotFeed = errors.New("not a feed")

	// ErrPageWithoutFeed means an HTML page that announces no feed and
	// holds no h-feed (stage 6).
	ErrPageWithoutFeed = fmt.Errorf("%w: an HTML page with no feed link", ErrNotFeed)
	// ErrUnreadablePage means an HTML page the HTML parser gave up on
	// (more than 512 levels of elements) (stage 6).
	ErrUnreadablePage = fmt.Errorf("%w: unreadable HTML page", ErrNotFeed)

	// The shape's bounds (stage 2; see MaxDepth and the others).

	// ErrTooDeep means a body nests elements (or JSON values) deeper than MaxDepth.
	ErrTooDeep = errors.New("feed nested too deeply")
	// ErrTooManyNodes means a body has more than MaxNodes elements and attributes.
	ErrTooManyNodes = errors.New("feed has too many elements")
	// ErrTooManyNamespaces means more than MaxNamespaces declarations in scope.
	ErrTooManyNamespaces = errors.New("feed declares too many namespaces")
	// ErrTooFragmented means an element's text comes in so many pieces that
	// joining them would copy more than MaxTextCopy bytes.
	ErrTooFragmented = errors.New("feed text too fragmented")
)
