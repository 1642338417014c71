package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// endless writes chunks, pause apart, until the client goes away.
func endless(chunk []byte, pause time.Duration) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(pause):
			}
		}
	}
}

func TestMaxBody(t *testing.T) {
	const limit = 64 << 10
	feed := readTestdata(t, "rss.xml")
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		timeout  time.Duration
		want     Outcome
		wantErr  error
		maxBytes int64 // most bytes the client may have read off the wire
	}{
		{"exactly the limit is fine", func(w http.ResponseWriter, r *http.Request) {
			w.Write(append(feed, bytes.Repeat([]byte(" "), limit-len(feed))...))
		}, 0, OutcomeFresh, nil, limit},
		{"one byte past the limit, no Content-Length", func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush() // chunked: the size is known only by reading
			w.Write(append(feed, bytes.Repeat([]byte(" "), limit+1-len(feed))...))
		}, 0, OutcomeBroken, ErrTooLarge, limit + 1},
		{"Content-Length past the limit: refused unread", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(limit+1))
			w.Write(bytes.Repeat([]byte(" "), limit+1))
		}, 0, OutcomeBroken, ErrTooLarge, 0},
		{"an endless body is cut at the limit", endless(bytes.Repeat([]byte("<p>endless</p>"), 1000), time.Millisecond),
			0, OutcomeBroken, ErrTooLarge, limit + 1},
		{"an endless gzip stream is cut at the limit, decoded", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			endless(make([]byte, 32<<10), time.Millisecond)(writerResponse{zw, w}, r)
		}, 0, OutcomeBroken, ErrTooLarge, limit / 8},
		{"an endless trickle ends at the timeout", endless([]byte("<"), 20*time.Millisecond),
			300 * time.Millisecond, OutcomeNetError, nil, limit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := serve(t, tt.handler)
			if tt.timeout == 0 {
				// Without the limit, an endless body would end here, as a
				// NetError: paced at 1 ms a chunk, it cannot fill memory first.
				tt.timeout = 2 * time.Second
			}
			res := testClient(Options{MaxBody: limit, Timeout: tt.timeout}).Poll(context.Background(), Request{URL: ts.URL}, testNow)
			if res.Outcome != tt.want || (tt.wantErr != nil && !errors.Is(res.Err, tt.wantErr)) {
				t.Errorf("outcome %v err %v, want %v %v", res.Outcome, res.Err, tt.want, tt.wantErr)
			}
			if res.Bytes > tt.maxBytes {
				t.Errorf("read %d bytes, want at most %d", res.Bytes, tt.maxBytes)
			}
		})
	}
}

// writerResponse sends writes through w (a compressor) and flushes both.
type writerResponse struct {
	w interface {
		io.Writer
		Flush() error
	}
	http.ResponseWriter
}

func (wr writerResponse) Write(p []byte) (int, error) { return wr.w.Write(p) }
func (wr writerResponse) Flush() {
	wr.w.Flush()
	wr.ResponseWriter.(http.Flusher).Flush()
}

// zeros is a reader of 4 MB of zeros, more than any limit below (so that
// a reader without a limit ends, and the test fails rather than hangs),
// counting what is taken from it.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n >= 4<<20 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), 4<<20-z.n)]
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func TestReadDecodedNeverReadsPastLimit(t *testing.T) {
	for _, limit := range []int64{0, 1, 1000, 1 << 20} {
		src := &zeros{}
		body, err := readDecoded(src, "identity", limit, 0)
		if !errors.Is(err, ErrTooLarge) || body != nil {
			t.Errorf("limit %d: err %v, %d bytes", limit, err, len(body))
		}
		if src.n != limit+1 {
			t.Errorf("limit %d: read %d decoded bytes, want limit+1", limit, src.n)
		}
	}
}

// encodings compress p with each coding the client asks for.
func encodings(t testing.TB, p []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{"identity": p}
	compress := func(name string, newWriter func(io.Writer) io.WriteCloser) {
		var buf bytes.Buffer
		w := newWriter(&buf)
		if _, err := w.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out[name] = buf.Bytes()
	}
	compress("gzip", func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
	compress("deflate", func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) })
	compress("raw-deflate", func(w io.Writer) io.WriteCloser { fw, _ := flate.NewWriter(w, flate.DefaultCompression); return fw })
	compress("br", func(w io.Writer) io.WriteCloser { return brotli.NewWriter(w) })
	compress("zstd", func(w io.Writer) io.WriteCloser { zw, _ := zstd.NewWriter(w); return zw })
	return out
}

func TestDecodeEachEncoding(t *testing.T) {
	feed := readTestdata(t, "rss.xml")
	for name, body := range encodings(t, feed) {
		header := name
		if name == "raw-deflate" {
			header = "deflate" // as many servers send it
		}
		got, err := readDecoded(bytes.NewReader(body), header, 1<<20, 0)
		if err != nil || !bytes.Equal(got, feed) {
			t.Errorf("%s: err %v, %d bytes", name, err, len(got))
		}
		if _, err := readDecoded(bytes.NewReader(body), header, int64(len(feed)-1), int64(len(body))); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s one byte over the limit: err %v", name, err)
		}
	}
	// gzip over br: codings are undone last applied first.
	br := encodings(t, feed)["br"]
	got, err := readDecoded(bytes.NewReader(encodings(t, br)["gzip"]), "br, gzip", 1<<20, 0)
	if err != nil || !bytes.Equal(got, feed) {
		t.Errorf("br, gzip: err %v", err)
	}
	for _, bad := range []string{"compress", "gzip, gzip, gzip, gzip"} {
		if _, err := readDecoded(bytes.NewReader(feed), bad, 1<<20, 0); !errors.Is(err, ErrEncoding) {
			t.Errorf("%q: err %v, want ErrEncoding", bad, err)
		}
	}
}

var fuzzCodings = []string{"", "identity", "gzip", "x-gzip", "deflate", "br", "zstd", "gzip, br", "zstd, deflate", "GZIP", "bogus"}

func FuzzDecode(f *testing.F) {
	feed := readTestdata(f, "rss.xml")
	for i, name := range []string{"identity", "gzip", "deflate", "raw-deflate", "br", "zstd"} {
		body := encodings(f, feed)[name]
		f.Add(body, uint8(i), uint16(len(feed)), uint16(len(body)))
		f.Add(body, uint8(i), uint16(100), uint16(0))
	}
	bomb := encodings(f, make([]byte, 1<<20))
	f.Add(bomb["gzip"], uint8(2), uint16(1000), uint16(0))
	f.Add(bomb["zstd"], uint8(6), uint16(1000), uint16(65535))
	f.Fuzz(func(t *testing.T, data []byte, coding uint8, limit, hint uint16) {
		encoding := fuzzCodings[int(coding)%len(fuzzCodings)]
		body, err := readDecoded(bytes.NewReader(data), encoding, int64(limit), int64(hint))
		if len(body) > int(limit) {
			t.Fatalf("%d bytes returned past the limit %d", len(body), limit)
		}
		if err != nil && body != nil {
			t.Fatal("a body with an error")
		}
	})
}
