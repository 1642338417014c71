package sqlite

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"feeddigest/domain"
)

// Entry texts are kept zstd-compressed: feed HTML shrinks three- to
// five-fold, which keeps a month of 200 full-text feeds in a state file
// small enough for a CI cache. The fastest level: every entry of a poll
// is compressed on the polling goroutines, and the default level costs
// half as much again for texts some 4% smaller (zstd frames read the same
// whatever level wrote them, so rows written before read as they did).
var (
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
)

func compress(s string) []byte {
	if s == "" {
		return nil
	}
	return encoder.EncodeAll([]byte(s), nil)
}

func decompress(b []byte, plain string) (string, error) {
	if len(b) == 0 {
		return plain, nil // written before compression, or empty
	}
	out, err := decoder.DecodeAll(b, nil)
	if err != nil {
		return "", fmt.Errorf("stored entry text is damaged: %w", err)
	}
	return string(out), nil
}

// packShown compresses an entry's texts and its fragments (all but the
// rules and the title, which have columns of their own) in one zstd
// frame, each field as its length (uvarint) and bytes: content, summary,
// HTML, excerpt, links (one per line), whole ("1" or ""), words (in
// decimal; frames packed before fragment rules 3 end before it). The
// HTML follows the content it was made from, so it costs little.
func packShown(e domain.Entry) []byte {
	f := e.Fragments
	whole := ""
	if f.Whole {
		whole = "1"
	}
	fields := []string{e.Content, e.Summary, f.HTML, f.Excerpt, strings.Join(f.Links, "\n"), whole, strconv.Itoa(f.Words)}
	buf := packBuffers.Get().(*packBuffer)
	defer packBuffers.Put(buf)
	buf.raw = buf.raw[:0]
	for _, s := range fields {
		buf.raw = binary.AppendUvarint(buf.raw, uint64(len(s)))
		buf.raw = append(buf.raw, s...)
	}
	buf.frame = encoder.EncodeAll(buf.raw, buf.frame[:0])
	return bytes.Clone(buf.frame)
}

// packBuffer is what packShown compresses and the frame it makes, kept
// for the next entry (packBuffers): each entry a poll stores would
// otherwise leave its texts and fragments behind as garbage, and a frame
// as large as them (zstd sizes a new frame by its input), to keep one
// that is a few times smaller.
type packBuffer struct{ raw, frame []byte }

var packBuffers = sync.Pool{New: func() any { return new(packBuffer) }}

// unpackBuffers hold what unpackShown decompresses, which it copies
// from: a digest of 20,000 entries would otherwise leave 20,000 frames of
// garbage behind its listing.
var unpackBuffers = sync.Pool{New: func() any { return new([]byte) }}

var errShownDamaged = errors.New("stored entry text is damaged: bad field")

// unpackShown reads what packShown wrote into e: the fragments, and the
// texts too when withTexts.
func unpackShown(b []byte, e *domain.Entry, withTexts bool) error {
	buf := unpackBuffers.Get().(*[]byte)
	defer unpackBuffers.Put(buf)
	raw, err := decoder.DecodeAll(b, (*buf)[:0])
	*buf = raw
	if err != nil {
		return fmt.Errorf("stored entry text is damaged: %w", err)
	}
	var fields [7]string
	for i := range fields {
		if i == len(fields)-1 && len(raw) == 0 {
			break // packed without words
		}
		n, k := binary.Uvarint(raw)
		if k <= 0 || n > uint64(len(raw)-k) {
			return errShownDamaged
		}
		if withTexts || i >= 2 {
			fields[i] = string(raw[k : k+int(n)])
		}
		raw = raw[k+int(n):]
	}
	if withTexts {
		e.Content, e.Summary = fields[0], fields[1]
	}
	e.Fragments.HTML, e.Fragments.Excerpt, e.Fragments.Whole = fields[2], fields[3], fields[5] == "1"
	if fields[6] != "" {
		words, err := strconv.Atoi(fields[6])
		if err != nil {
			return errShownDamaged
		}
		e.Fragments.Words = words
	}
	if fields[4] != "" {
		e.Fragments.Links = strings.Split(fields[4], "\n")
	}
	return nil
}
