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

// ErrEncoding means a Content-Encoding that cannot be decoded.
var ErrEncoding = errors.New("bad Content-Encoding")

// maxCodings bounds a Content-Encoding list: no server needs more than two,
// and every decoder costs memory before it has produced a byte.
const maxCodings = 3

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
	encoding := resp.Header.Get("Content-Encoding")
	if resp.ContentLength > limit && isIdentity(encoding) {
		// Announced too large: refuse before receiving a byte of it. (A
		// compressed length says little about the decoded size, so only an
		// unencoded body is judged by its header.)
		return nil, 0, fmt.Errorf("%w: Content-Length %d is more than %d bytes", ErrTooLarge, resp.ContentLength, limit)
	}
	wire := &countingReader{r: resp.Body}
	var sizeHint int64
	if isIdentity(encoding) {
		sizeHint = resp.ContentLength
	}
	body, err := readDecoded(wire, encoding, limit, sizeHint)
	return body, wire.n, err
}

// errReadBody marks a failure to read a body (its connection cut, its
// time up), which NetFailureOf tells from a parser's complaint.
var errReadBody = errors.New("read body")

// readDecoded undoes the codings of encoding (a Content-Encoding value) and
// reads at most limit+1 decoded bytes: one past the limit is how a body
// that is too large is told from one that is exactly the limit. sizeHint
// (the Content-Length of an unencoded body, else 0) sizes the buffer.
func readDecoded(r io.Reader, encoding string, limit, sizeHint int64) ([]byte, error) {
	decoded, closeAll, err := decode(r, encoding)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	body, err := readAll(io.LimitReader(decoded, limit+1), min(sizeHint, limit)+1)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errReadBody, err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return body, nil
}

// readAll is io.ReadAll starting from a buffer of size bytes: a body
// whose length is announced is read without the doublings (and garbage)
// of growing from 512 bytes. One byte more than the announced length
// lets the final read see EOF without growing.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, max(size, 512))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func isIdentity(encoding string) bool {
	for _, coding := range strings.Split(encoding, ",") {
		if c := strings.ToLower(strings.TrimSpace(coding)); c != "" && c != "identity" {
			return false
		}
	}
	return true
}

// decode undoes Content-Encoding codings, last applied first. closeAll
// releases every decoder (zstd holds buffers and, without Close, may hold
// goroutines).
func decode(r io.Reader, header string) (decoded io.Reader, closeAll func(), err error) {
	var closers []io.Closer
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i].Close()
		}
	}
	codings := strings.Split(header, ",")
	if len(codings) > maxCodings {
		return nil, closeAll, fmt.Errorf("%w: %d codings in %q", ErrEncoding, len(codings), header)
	}
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch coding := strings.ToLower(strings.TrimSpace(codings[i])); coding {
		case "", "identity":
		case "gzip", "x-gzip":
			var z *gzip.Reader
			if z, err = gzip.NewReader(r); err == nil {
				r = z
				closers = append(closers, z)
			}
		case "deflate":
			var z io.ReadCloser
			if z, err = deflateReader(r); err == nil {
				r = z
				closers = append(closers, z)
			}
		case "br":
			r = brotli.NewReader(r)
		case "zstd":
			var z *zstd.Decoder
			z, err = zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(32<<20))
			if err == nil {
				rc := z.IOReadCloser()
				r = rc
				closers = append(closers, rc)
			}
		default:
			closeAll()
			return nil, func() {}, fmt.Errorf("%w: unsupported coding %q", ErrEncoding, coding)
		}
		if err != nil {
			closeAll()
			return nil, func() {}, fmt.Errorf("decode %s body: %w", strings.TrimSpace(codings[i]), err)
		}
	}
	return r, closeAll, nil
}

// deflateReader accepts "deflate" both as zlib (RFC 9110) and, as many
// servers send it, raw DEFLATE.
func deflateReader(r io.Reader) (io.ReadCloser, error) {
	buffered := bufio.NewReader(r)
	head, _ := buffered.Peek(2)
	if len(head) == 2 && head[0]&0x0F == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(buffered)
	}
	return flate.NewReader(buffered), nil
}
