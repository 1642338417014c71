package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkHostileRun measures a whole `feeddigest run`, the real binary
// as a child process, with hostile feeds among good ones: peak RSS of the
// child (from its rusage) and wall time per run, with the default
// max_body and with 100 MB. Each run starts from a fresh state.
//
//	go test -run '^$' -bench HostileRun -benchtime 3x ./e2e/
func BenchmarkHostileRun(b *testing.B) {
	bodies := map[string][]byte{"nested": nestedBody(), "wide": wideBody(), "entries100k": manyEntriesBody()}
	// Feeds within every bound but as costly to parse as that allows
	// (80,000 entries each), 16 at once (the default concurrency): what
	// the parse budget is for.
	var heavy strings.Builder
	heavy.WriteString(`<rss version="2.0"><channel><title>heavy</title>`)
	for i := range 80_000 {
		fmt.Fprintf(&heavy, "<item><guid>%d</guid><title>x</title></item>", i)
	}
	heavy.WriteString(`</channel></rss>`)
	scenarios := []struct {
		name  string
		feeds map[string][]byte
	}{
		{"nested", map[string][]byte{"/nested": bodies["nested"]}},
		// 21 MB: the stack overflow of the report (with max_body 100 MB).
		{"nested21MB", map[string][]byte{"/nested": []byte(strings.Replace(string(bodies["nested"]), "<a>", "<a><a>", -1))}},
		{"wide", map[string][]byte{"/wide": bodies["wide"]}},
		{"entries100k", map[string][]byte{"/entries": bodies["entries100k"]}},
		{"all3", map[string][]byte{"/nested": bodies["nested"], "/wide": bodies["wide"], "/entries": bodies["entries100k"]}},
		{"16heavy", func() map[string][]byte {
			m := map[string][]byte{}
			for i := range 16 {
				m[fmt.Sprintf("/heavy%d", i)] = []byte(heavy.String())
			}
			return m
		}()},
	}
	for _, maxBody := range []string{"", `max_body = "100MB"`} {
		label := "max_body=default"
		if maxBody != "" {
			label = "max_body=100MB"
		}
		for _, sc := range scenarios {
			b.Run(sc.name+"/"+label, func(b *testing.B) {
				handlers := map[string]http.HandlerFunc{}
				for path, body := range sc.feeds {
					handlers[path] = serveBody(body)
				}
				var peak int64
				for b.Loop() {
					b.StopTimer()
					w := newHostileWorld(b, maxBody, handlers)
					b.StartTimer()
					out, rss, err := w.measuredRun(b, "2026-11-22T00:05:00Z")
					b.StopTimer()
					if err != nil {
						b.Fatalf("run: %v\n%s", err, out)
					}
					peak = max(peak, rss)
					w.checkDigests(b, "2026-11-22")
					w.server.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
			})
		}
	}
}
