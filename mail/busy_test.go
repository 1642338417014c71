package mail_test

import "testing"

// TestGoldenBusyDayEmail composes the email of a busy day (see render's
// TestGoldenBusyDay): a busy feed's first entries in full and the rest as
// linked titles, "12 of 50 entries" in the contents, and a feed's
// first-digest note.
func TestGoldenBusyDayEmail(t *testing.T) {
	goldenCheck(t, "busy.eml", buildEmail(t, loadDigest(t, "digest-busy"), "Digest <digest@example.org>", "https://example.org/digest/"))
}
