package pages

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"feeddigest/config"
	"feeddigest/domain"
	"feeddigest/render"
	"feeddigest/store"
)

// listingReader answers DigestFeedListing with one entry named after the
// feed, and counts the reads.
type listingReader struct {
	store.Reader
	mu    sync.Mutex
	reads map[string]int
}

func (r *listingReader) DigestFeedListing(_ context.Context, _, _, feedURL string, _ int) ([]domain.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads[feedURL]++
	return []domain.Entry{{Key: feedURL + "#1", FeedURL: feedURL}}, nil
}

func listed(t *testing.T, g render.FeedGroup) string {
	t.Helper()
	var keys []string
	for e, err := range g.Listed {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, e.Key)
	}
	return fmt.Sprint(keys)
}

// A page asks for its feeds' listings in the order it shows them, which
// the prefetch reads ahead; asked for in another order, or twice, each
// feed still gives its own entries, and nothing waits for ever.
func TestPrefetchedListingsInAnyOrder(t *testing.T) {
	for _, order := range []string{"page", "reversed", "twice"} {
		t.Run(order, func(t *testing.T) {
			r := &listingReader{reads: map[string]int{}}
			b := &Builder{cfg: &config.Config{}, rd: r}
			rd := render.Digest{User: "ada", Date: "2026-11-22"}
			for i := range 3 * listingsAhead {
				url := fmt.Sprintf("https://f%d.example/feed", i)
				rd.Groups = append(rd.Groups, render.FeedGroup{FeedURL: url, Listed: func(yield func(domain.Entry, error) bool) {
					entries, err := r.DigestFeedListing(context.Background(), "ada", "2026-11-22", url, 0)
					yieldAll(entries, err, yield)
				}})
			}
			stop := b.prefetchListings(context.Background(), &rd)
			groups := slices.Clone(rd.Groups)
			switch order {
			case "reversed":
				slices.Reverse(groups)
			case "twice":
				groups = append(groups, groups...)
			}
			for _, g := range groups {
				if got, want := listed(t, g), fmt.Sprint([]string{g.FeedURL + "#1"}); got != want {
					t.Errorf("%s lists %s, want %s", g.FeedURL, got, want)
				}
			}
			stop()
			for _, g := range rd.Groups {
				if n := r.reads[g.FeedURL]; order == "page" && n != 1 {
					t.Errorf("%s read %d times, want once", g.FeedURL, n)
				}
			}
		})
	}
}
