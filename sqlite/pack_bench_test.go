package sqlite

import (
	"strings"
	"testing"

	"feeddigest/domain"
)

func BenchmarkPackShown(b *testing.B) {
	para := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 6)
	body := `<p>` + para + `<a href="/posts/3">an earlier post</a> and <a href="https://other.example/x?y=4">a friend</a>.</p><p><img src="img/3.png" alt="a figure"> ` + para + `</p><script>alert(3)</script><p><em>` + para + `</em></p>`
	e := domain.Entry{Content: body, Fragments: domain.Fragments{HTML: body, Excerpt: para[:200], Links: []string{"https://a.example/posts/3", "https://other.example/x?y=4"}}}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(packShown(e))
	}
	b.ReportMetric(float64(n), "bytes")
}
