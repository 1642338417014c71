package sqlite

import (
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// Entry texts are kept zstd-compressed: feed HTML shrinks three- to
// five-fold, which keeps a month of 200 full-text feeds in a state file
// small enough for a CI cache.
var (
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
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
