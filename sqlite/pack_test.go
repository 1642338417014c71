package sqlite

import (
	"encoding/binary"
	"testing"

	"feeddigest/domain"
)

// The fragments' frame carries the word count; a frame packed before it
// had one (six fields) still reads, with none.
func TestShownFrameCarriesWords(t *testing.T) {
	e := domain.Entry{Content: "<p>x</p>", Fragments: domain.Fragments{HTML: "<p>x</p>", Excerpt: "x", Whole: true, Words: 1234}}
	var got domain.Entry
	if err := unpackShown(packShown(e), &got, true); err != nil || got.Fragments.Words != 1234 || got.Content != e.Content || !got.Fragments.Whole {
		t.Errorf("read back %+v, %v", got, err)
	}
	var raw []byte
	for _, s := range []string{"<p>old</p>", "", "<p>old</p>", "old", "", "1"} {
		raw = binary.AppendUvarint(raw, uint64(len(s)))
		raw = append(raw, s...)
	}
	var old domain.Entry
	if err := unpackShown(encoder.EncodeAll(raw, nil), &old, true); err != nil || old.Fragments.Words != 0 || old.Fragments.Excerpt != "old" {
		t.Errorf("old frame read back %+v, %v", old, err)
	}
}
