package mail_test

import (
	"strings"
	"testing"

	"feeddigest/domain"
	"feeddigest/internal/smtptest"
	"feeddigest/render"
)

// The Subject says the date and how much is new, and how many feeds
// could not be read; as sent, whatever its length.
func TestSubjectSaysHowMuchIsNew(t *testing.T) {
	one := loadDigest(t, "digest")
	one.Groups = one.Groups[:1]
	one.Groups[0].Entries = one.Groups[0].Entries[:1]
	failedOnly := loadDigest(t, "digest-empty")
	failedOnly.Problems = loadDigest(t, "digest-full").Problems
	weekly := loadDigest(t, "digest-empty")
	weekly.Weekly = true
	weekly.Since = weekly.BuiltAt.AddDate(0, 0, -7)
	tests := []struct {
		name string
		d    render.Digest
		want string
	}{
		{"full", loadDigest(t, "digest-full"), "Your digest for Sunday 22 November: 4 new from 3 feeds, 1 feed could not be read"},
		{"one entry", one, "Your digest for Sunday 22 November: 1 new from 1 feed"},
		{"quiet day", loadDigest(t, "digest-empty"), "Your digest for Monday 23 November: nothing new"},
		{"failed feed only", failedOnly, "Your digest for Monday 23 November: nothing new, 1 feed could not be read"},
		{"weekly", weekly, "Your digest for 16-23 November: nothing new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := smtptest.ReadAlternative(t, buildEmail(t, tt.d, testFrom, ""))
			if got := h.Get("Subject"); got != tt.want {
				t.Errorf("Subject = %q, want %q", got, tt.want)
			}
		})
	}
}

// The HTML part opens with a hidden preheader holding the first
// headlines; the plain-text part has none.
func TestPreheaderIsHiddenAndHTMLOnly(t *testing.T) {
	_, parts := smtptest.ReadAlternative(t, buildEmail(t, loadDigest(t, "digest-full"), testFrom, ""))
	page, text := parts["text/html"], parts["text/plain"]
	const headlines = "Hello world · Just a quick note about the weather today, which was… · مرحبا بالعالم"
	i := strings.Index(page, headlines)
	if i < 0 {
		t.Fatalf("the HTML part has no preheader %q:\n%s", headlines, page)
	}
	open := page[strings.LastIndex(page[:i], "<div"):i]
	for _, hidden := range []string{"display:none", "max-height:0", "overflow:hidden", "mso-hide:all", `aria-hidden="true"`} {
		if !strings.Contains(open, hidden) {
			t.Errorf("the preheader %s lacks %s", open, hidden)
		}
	}
	if body := strings.Index(page, "<body"); body < 0 || strings.Contains(page[body:i], "<h1") {
		t.Error("the preheader is not at the top of the body")
	}
	if strings.Contains(text, "Hello world · Just") {
		t.Error("the plain-text part carries the preheader")
	}
	// Long titles: the preheader stays a line.
	d := loadDigest(t, "digest-full")
	d.Groups[0].Entries[0].Title = strings.Repeat("word ", 100)
	_, parts = smtptest.ReadAlternative(t, buildEmail(t, d, testFrom, ""))
	if pre := preheader(parts["text/html"]); len([]rune(pre)) > 151 || pre == "" {
		t.Errorf("preheader of %d characters: %q", len([]rune(pre)), pre)
	}
	// A day on which only feeds failed names them.
	d = loadDigest(t, "digest-empty")
	d.Problems = []render.Problem{{Problem: domain.Problem{FeedURL: "https://broken.example.com/feed", State: domain.ProblemFailing}, FeedName: "Broken Blog"}}
	_, parts = smtptest.ReadAlternative(t, buildEmail(t, d, testFrom, ""))
	if pre := preheader(parts["text/html"]); pre != "Could not read: Broken Blog" {
		t.Errorf("preheader %q on a day with only a failed feed", pre)
	}
}

// preheader is the text of the hidden element the HTML part opens with.
func preheader(page string) string {
	_, rest, ok := strings.Cut(page, `aria-hidden="true" dir="auto">`)
	if !ok {
		return ""
	}
	text, _, _ := strings.Cut(rest, "</div>")
	return text
}

// List-Id always; List-Unsubscribe only when the operator handles an
// address, and the one-click POST only for https.
func TestListHeaders(t *testing.T) {
	tests := []struct {
		unsubscribe, wantUnsub, wantPost string
	}{
		{"", "", ""},
		{"mailto:digest-admin@example.org?subject=unsubscribe%20ada", "<mailto:digest-admin@example.org?subject=unsubscribe%20ada>", ""},
		{"https://example.org/unsubscribe?user=ada", "<https://example.org/unsubscribe?user=ada>", "List-Unsubscribe=One-Click"},
		{"http://example.org/unsubscribe", "", ""}, // config refuses it; never in a header
	}
	for _, tt := range tests {
		d := loadDigest(t, "digest")
		d.Unsubscribe = tt.unsubscribe
		h, _ := smtptest.ReadAlternative(t, buildEmail(t, d, testFrom, ""))
		if got := h.Get("List-Id"); got != "ada digest <ada.digest.example.org>" {
			t.Errorf("%q: List-Id = %q", tt.unsubscribe, got)
		}
		if got := h.Get("List-Unsubscribe"); got != tt.wantUnsub {
			t.Errorf("%q: List-Unsubscribe = %q, want %q", tt.unsubscribe, got, tt.wantUnsub)
		}
		if got := h.Get("List-Unsubscribe-Post"); got != tt.wantPost {
			t.Errorf("%q: List-Unsubscribe-Post = %q, want %q", tt.unsubscribe, got, tt.wantPost)
		}
	}
}
