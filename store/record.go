package store

import (
	"encoding/json"
	"fmt"
	"strings"

	"feeddigest/domain"
)

// feedRecordFields are the stored fields of a feed record, in the order
// both back ends read them (each one's scanFeed): one list, so that a
// field added to domain.Feed's record is read by both at once. Each
// schema names its column after the field, but where FeedRecordColumns
// is told otherwise.
var feedRecordFields = []string{
	"id", "url", "effective_url", "pending_url", "title", "site_url", "etag", "last_modified",
	"body_hash", "last_poll", "last_success", "last_status", "last_error", "next_poll", "reason",
	"error_count", "first_error", "retry_pending", "gone_at", "dead_at", "moved_at", "moved_from",
	"origin_flag_at", "answers_304", "refuses_head", "ignores_conditional", "ttl_seconds",
	"overflow_gap", "next_extra_poll", "polls", "body_error", "repaired", "problem", "problem_at",
	"problem_since", "language", "etag_untrusted", "last_modified_untrusted", "refuses_conditional", "last_get",
	"articles_asked", "articles_read", "problem_code",
}

// FeedRecordColumns is the column list of a SELECT of feed records, in
// the order the back ends scan them: each field's column as named
// (columnOf, for the few a schema names otherwise), after prefix (a
// table alias, "f.", or "").
func FeedRecordColumns(prefix string, columnOf map[string]string) string {
	cols := make([]string, len(feedRecordFields))
	for i, f := range feedRecordFields {
		if c, ok := columnOf[f]; ok {
			f = c
		}
		cols[i] = prefix + f
	}
	return strings.Join(cols, ", ")
}

// ProblemCodeText is the stored form of a feed's problem code, as both
// back ends keep it (and migrate copies it): a JSON object, "{}" for
// none.
func ProblemCodeText(c domain.ProblemCode) string {
	if c.IsZero() {
		return "{}"
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// ProblemCodeColumn scans a feed's problem code as ProblemCodeText wrote
// it into Code.
type ProblemCodeColumn struct{ Code *domain.ProblemCode }

// Scan reads the JSON of src (text or bytes).
func (c ProblemCodeColumn) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*c.Code = domain.ProblemCode{}
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("problem code: cannot read a %T", src)
	}
	*c.Code = domain.ProblemCode{}
	if err := json.Unmarshal(b, c.Code); err != nil {
		return fmt.Errorf("problem code %q: %w", b, err)
	}
	return nil
}
