package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// AcceptEncoding is what the client asks for; every one is decoded here
// with the size limit applied after decompression.
const AcceptEncoding = "gzip, deflate, br, zstd"

// ErrTooLarge means a body passed max_body once decoded.
var ErrTooLarge = errors.New("response body too large")

// countingReader counts the bytes that came over the wire.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readBody reads and decodes a response body, at most limit bytes after
// decoding: a gzip bomb is cut off, not inflated. It returns the decoded
// body and the bytes received.
func readBody(resp *http.Response, limit int64) ([]byte, int64, error) {
	wire := &countingReader{r: resp.Body}
	decoded, err := decode(wire, resp.Header.Get("Content-Encoding"))
	if err != nil {
		return nil, wire.n, err
	}
	body, err := io.ReadAll(io.LimitReader(decoded, limit+1))
	if c, ok := decoded.(io.Closer); ok {
		c.Close()
	}
	if err != nil {
		return nil, wire.n, fmt.Errorf("read body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, wire.n, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return body, wire.n, nil
}

// decode undoes Content-Encoding codings, last applied first.
func decode(r io.Reader, header string) (io.Reader, error) {
	codings := strings.Split(header, ",")
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch coding := strings.ToLower(strings.TrimSpace(codings[i])); coding {
		case "", "identity":
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(r)
		case "deflate":
			r, err = deflateReader(r)
		case "br":
			r = brotli.NewReader(r)
		case "zstd":
			var z *zstd.Decoder
			z, err = zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(32<<20))
			if err == nil {
				r = z.IOReadCloser()
			}
		default:
			return nil, fmt.Errorf("unsupported Content-Encoding %q", coding)
		}
		if err != nil {
			return nil, fmt.Errorf("decode %s body: %w", codings[i], err)
		}
	}
	return r, nil
}

// deflateReader accepts "deflate" both as zlib (RFC 9110) and, as many
// servers send it, raw DEFLATE.
func deflateReader(r io.Reader) (io.Reader, error) {
	buffered := bufio.NewReader(r)
	head, _ := buffered.Peek(2)
	if len(head) == 2 && head[0]&0x0F == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(buffered)
	}
	return flate.NewReader(buffered), nil
}
