package store

import "strings"

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
	"articles_asked", "articles_read",
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
