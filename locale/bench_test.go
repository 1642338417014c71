package locale

import (
	"testing"
	"time"
)

// BenchmarkT is the cost of one message, a count's plural form and the
// number written, as an entry's reading time takes it.
func BenchmarkT(b *testing.B) {
	fr, _ := Match("fr")
	for b.Loop() {
		fr.T("entry.reading_time", "Count", 7)
	}
}

// BenchmarkDate is the cost of one entry's time.
func BenchmarkDate(b *testing.B) {
	ar, _ := Match("ar")
	t := time.Date(2026, 11, 20, 9, 5, 0, 0, time.UTC)
	for b.Loop() {
		ar.Date(t, DateTime)
	}
}
