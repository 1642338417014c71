package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A page relinked is the page as written with only its pager changed:
// byte for byte what a full render with the new pager writes, from a page
// with a pager and from one without (the first digest).
func TestRelinkPageChangesOnlyThePager(t *testing.T) {
	for _, tc := range []struct {
		name     string
		was, now Pager
	}{
		{"prev, then next too", Pager{Prev: DigestRef{Date: "2020-11-21"}}, Pager{Prev: DigestRef{Date: "2020-11-21"}, Next: DigestRef{Date: "2020-11-23"}}},
		{"no pager, then next", Pager{}, Pager{Next: DigestRef{Date: "2020-11-23"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDigest(t, "digest")
			d.Prev, d.Next = tc.was.Prev, tc.was.Next
			old := page(t, d)
			d.Prev, d.Next = tc.now.Prev, tc.now.Next
			want := page(t, d)
			var got bytes.Buffer
			if err := RelinkPage(&got, bytes.NewReader(old), int64(len(old)), tc.was, tc.now); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("relinked page differs from the page rendered with the new pager:\n%s", got.Bytes())
			}
		})
	}
}

// A page that does not end with the pager it is said to have (an older
// version's page, or another pager) is refused, and nothing is written:
// the caller renders it again.
func TestRelinkPageRefusesAnUnknownPage(t *testing.T) {
	d := loadDigest(t, "digest")
	d.Prev = DigestRef{Date: "2020-11-20"}
	written := page(t, d)
	older := strings.Replace(string(written), "</main>\n<footer>", "</main>\n<!-- v1 -->\n<footer>", 1)
	for name, p := range map[string][]byte{
		"another pager":     written,
		"older version":     []byte(older),
		"not a page at all": []byte("<p>hello</p>"),
		"empty":             nil,
	} {
		var got bytes.Buffer
		err := RelinkPage(&got, bytes.NewReader(p), int64(len(p)), Pager{Prev: DigestRef{Date: "2020-11-21"}}, Pager{Prev: DigestRef{Date: "2020-11-21"}, Next: DigestRef{Date: "2020-11-23"}})
		if !errors.Is(err, ErrNoPager) {
			t.Errorf("%s: err = %v, want ErrNoPager", name, err)
		}
		if got.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", name, got.Len())
		}
	}
}

func page(t *testing.T, d Digest) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := WriteDigestPage(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
