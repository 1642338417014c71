package render

import (
	"fmt"
	"io"
	"testing"
	"time"

	"feeddigest/domain"
)

// BenchmarkStatusPage writes the status page of the scale benchmark's
// state: 20,000 feeds of five subscribers each, 5,000 users.
func BenchmarkStatusPage(b *testing.B) {
	asOf := time.Date(2026, 11, 20, 2, 5, 0, 0, time.UTC)
	feeds := make([]FeedStatus, 20000)
	for i := range feeds {
		f := FeedStatus{URL: fmt.Sprintf("http://127.0.%d.%d:40000/f%d", 1+i/40/250, 1+i/40%250, i%40),
			Title: fmt.Sprintf("/f%d", i%40), LastPoll: asOf.Add(-time.Duration(i%24) * time.Hour), LastStatus: 304,
			NextPoll: asOf.Add(time.Duration(i%24) * time.Hour), Reason: "scheduled", State: domain.FeedOK, Entries: 3 + i%7}
		for u := range 5 {
			f.Subscribers = append(f.Subscribers, fmt.Sprintf("u%04d", (i+u*4000)%5000))
		}
		if i%100 == 0 {
			f.LastStatus, f.LastError, f.ErrorCount, f.State = 503, "server error (503)", 2, domain.FeedFailing
		}
		feeds[i] = f
	}
	users := make([]UserStatus, 5000)
	for i := range users {
		users[i] = UserStatus{Name: fmt.Sprintf("u%04d", i), Rhythm: "daily at 00:00 Etc/GMT-3", Location: time.UTC,
			NextDigest: asOf.Add(time.Duration(i%24) * time.Hour)}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteStatusPage(io.Discard, feeds, users, asOf); err != nil {
			b.Fatal(err)
		}
	}
}
