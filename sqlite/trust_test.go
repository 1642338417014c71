package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"feeddigest/domain"
)

// A state from before validators were judged: migrated, a validator over
// 1 KB (sent back, it exceeds servers' header limits) is forgotten, and
// ignoring conditional GETs, learned then from a false sign, is learned
// again; nothing is distrusted yet, and no GET is on record (so the next
// poll is one).
func TestMigrationForgetsHugeValidatorsAndFalseLessons(t *testing.T) {
	mine := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "etag_untrusted") })
	if mine < 0 {
		t.Fatal("no migration adds etag_untrusted")
	}
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", "file:"+path) // a file of the schema before, written by hand
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:mine] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	huge := `"` + strings.Repeat("x", 12<<10) + `"`
	for _, q := range []string{
		fmt.Sprintf("PRAGMA user_version = %d", mine),
		`INSERT INTO feeds (id, url, etag, last_modified, ignores_conditional) VALUES (1, 'https://a.example/feed', '` + huge + `', 'Sun, 01 Nov 2026 08:00:00 GMT', 1)`,
		`INSERT INTO feeds (id, url, etag, last_modified, ignores_conditional) VALUES (2, 'https://b.example/feed', '"short"', '` + strings.Repeat("M", 1025) + `', 0)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.Feed(ctx, "https://a.example/feed")
	if err != nil {
		t.Fatal(err)
	}
	if a.ETag != "" || a.LastModified != "Sun, 01 Nov 2026 08:00:00 GMT" || a.IgnoresConditional ||
		a.Distrust != (domain.Distrust{}) || !a.LastGet.IsZero() {
		t.Errorf("migrated: ETag of %d bytes, Last-Modified %q, ignores %v, distrust %+v, last GET %v",
			len(a.ETag), a.LastModified, a.IgnoresConditional, a.Distrust, a.LastGet)
	}
	b, err := s.Feed(ctx, "https://b.example/feed")
	if err != nil {
		t.Fatal(err)
	}
	if b.ETag != `"short"` || b.LastModified != "" {
		t.Errorf("migrated: ETag %q, Last-Modified of %d bytes", b.ETag, len(b.LastModified))
	}
}
