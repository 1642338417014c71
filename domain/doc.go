// Package domain holds the facts feeddigest's packages share: a feed and
// what was learned about it, its entries, a user's digest and the notices
// in it. It is the bottom layer: it imports nothing of ours, every other
// package may import it, and a value passes from fetch to the store to
// the pages as it is, never copied field by field into a look-alike.
package domain
