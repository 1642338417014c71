package postgres

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"feeddigest/domain"
	"feeddigest/internal/pgtest"
)

// As on SQLite: a database of the schema before validators were judged,
// migrated, forgets a validator over 1 KB and relearns ignoring
// conditional GETs; nothing is distrusted yet, and no GET is on record.
func TestMigrationForgetsHugeValidatorsAndFalseLessons(t *testing.T) {
	mine := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "etag_untrusted") })
	if mine < 0 {
		t.Fatal("no migration adds etag_untrusted")
	}
	url := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	steps := append([]string{`CREATE TABLE feeddigest_schema (version integer NOT NULL); INSERT INTO feeddigest_schema VALUES (0)`},
		migrations[:mine]...)
	huge := `"` + strings.Repeat("x", 12<<10) + `"`
	steps = append(steps, fmt.Sprintf("UPDATE feeddigest_schema SET version = %d", mine),
		`INSERT INTO feeds (url, etag, last_modified, ignores_conditional) VALUES ('https://a.example/feed', '`+huge+`', 'Sun, 01 Nov 2026 08:00:00 GMT', true)`,
		`INSERT INTO feeds (url, etag, last_modified) VALUES ('https://b.example/feed', '"short"', '`+strings.Repeat("M", 1025)+`')`)
	for _, q := range steps {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	conn.Close(ctx)
	s := open(t, url)
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
