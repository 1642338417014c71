package render

import (
	"bytes"
	"errors"
	"testing"

	"feeddigest/domain"
	"feeddigest/ingest"
)

// streamedDigest is d with each feed's entries given by Listed, one at a
// time, and Entries holding what store.Reader's DigestTitles gives, as
// the contents and the compact lists need: no texts, and of the
// fragments the display title alone.
func streamedDigest(d Digest, fail error) Digest {
	groups := make([]FeedGroup, len(d.Groups))
	for i, g := range d.Groups {
		full := g.Entries
		titles := make([]domain.Entry, len(full))
		for j, e := range full {
			titles[j] = domain.Entry{Key: e.Key, ID: e.ID, Title: e.Title, Link: e.Link, Published: e.Published, FirstSeen: e.FirstSeen,
				Fragments: domain.Fragments{Rules: ingest.FragmentRules, Title: ingest.FragmentsOf(g.FeedURL, e).Title}}
		}
		g.Entries = titles
		g.Listed = func(yield func(domain.Entry, error) bool) {
			for _, e := range full {
				if !yield(e, nil) {
					return
				}
			}
			if fail != nil {
				yield(domain.Entry{}, fail)
			}
		}
		groups[i] = g
	}
	d.Groups = groups
	return d
}

// A page written from its feeds' listings, one feed at a time, is the
// page written from the whole digest, byte for byte: the contents, the
// sections and the links mentioned at the end.
func TestStreamedPageIsThePage(t *testing.T) {
	for _, name := range []string{"digest", "digest-full", "digest-empty", "digest-busy"} {
		d := loadDigest(t, name)
		want := page(t, d)
		got := page(t, streamedDigest(d, nil))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the streamed page differs:\n%s", name, got)
		}
		var index, wantIndex bytes.Buffer
		s := streamedDigest(d, nil)
		if err := WriteIndex(&index, d.User, nil, &s, nil); err != nil {
			t.Fatal(err)
		}
		if err := WriteIndex(&wantIndex, d.User, nil, &d, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(index.Bytes(), wantIndex.Bytes()) {
			t.Errorf("%s: the streamed index differs", name)
		}
	}
}

// An error in reading a feed's entries fails the page, naming the feed.
func TestStreamedPageFailsOnAnError(t *testing.T) {
	broken := errors.New("disk on fire")
	d := streamedDigest(loadDigest(t, "digest"), broken)
	var b bytes.Buffer
	if _, err := WriteDigestPage(&b, d); !errors.Is(err, broken) {
		t.Errorf("WriteDigestPage: %v, want the listing's error", err)
	}
	if err := WriteIndex(&b, d.User, nil, &d, nil); !errors.Is(err, broken) {
		t.Errorf("WriteIndex: %v, want the listing's error", err)
	}
}

// An email of a digest whose last entries are only counted (Unread), with
// the links its page counted, lists its first entries as the email of the
// whole digest does, byte for byte: the entries it does not have are
// never shown, only counted. (The preheader shows the first three
// entries' titles: the email is never cut before them.)
func TestEmailWithUnreadEntriesIsTheEmail(t *testing.T) {
	d := loadDigest(t, "digest")
	d.Groups = InFolderOrder(d.Groups) // the email's order
	last := &d.Groups[len(d.Groups)-1]
	more := last.Entries[0]
	more.Key, more.Title, more.Link = "id:more", "One more", "https://blog.example.org/posts/more"
	last.Entries = append(last.Entries, more)
	body, err := WriteDigestPage(&bytes.Buffer{}, d)
	if err != nil {
		t.Fatal(err)
	}
	const given = 3
	cut := d
	cut.Links = body.Links
	cut.Groups = append([]FeedGroup(nil), d.Groups...)
	kept := 0
	for i := range cut.Groups {
		g := &cut.Groups[i]
		keep := min(len(g.Entries), given-kept)
		g.Entries, g.Unread = g.Entries[:keep], len(g.Entries)-keep
		kept += keep
	}
	whole, err := DigestEmail(d, "digest@example.org", "https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	short, err := DigestEmail(cut, "digest@example.org", "https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	if short.Entries() != whole.Entries() || whole.Entries() != 4 {
		t.Errorf("the cut email counts %d entries, the whole %d, want 4", short.Entries(), whole.Entries())
	}
	for n := range given + 1 {
		want, err := whole.FirstEntries(n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := short.FirstEntries(n)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || got.HTML != want.HTML || got.Subject != want.Subject {
			t.Errorf("first %d entries: the cut email differs:\n%s\nwant:\n%s", n, got.Text, want.Text)
		}
	}
}
