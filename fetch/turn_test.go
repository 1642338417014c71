package fetch

import (
	"context"
	"strings"
	"testing"
	"time"

	"feeddigest/parse"
)

// A client parses at most ParseBudget nodes at once: the turns of large
// bodies wait for each other, small ones go together.
func TestParseTurnsShareABudget(t *testing.T) {
	c := New(Options{})
	big := []byte(`<rss><channel><item>` + strings.Repeat("<a/>", parse.MaxNodes) + `</item></channel></rss>`)
	release1, _ := c.parseTurn(context.Background(), big)
	release2, _ := c.parseTurn(context.Background(), big)
	// A small feed: ten levels of nested elements in an item.
	small := []byte(`<rss version="2.0"><channel><title>d</title><item><guid>1</guid><title>x</title><a xmlns="urn:x">` +
		strings.Repeat("<a>", 10) + strings.Repeat("</a>", 10) + `</a></item></channel></rss>`)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.parseTurn(ctx, small); err == nil {
		t.Fatal("a third turn was given while two bodies at the bound were being parsed")
	}
	release1()
	release1() // twice is once
	for range 1000 {
		if _, err := c.parseTurn(context.Background(), small); err != nil {
			t.Fatal(err)
		}
	}
	release2()
}
